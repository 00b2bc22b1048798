// APIService: kube-aggregator's validation texts, defaults, the strategy's status handling and the table cells.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  apiServiceResource,
  availableCell,
  builtinPriority,
  setCondition,
  validateAPIService,
  type APIService,
} from '../../../../src/api/apiregistration/index.js';
import { cluster, rejects, type Cluster } from '../registry-harness.js';

const svc = (name: string, spec: APIService['spec']): APIService => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec });
const messages = (o: APIService) => validateAPIService(o).map(String);

describe('APIService validation', () => {
  it('requires the name version.group', () => {
    assert.deepEqual(messages(svc('v1.foo', { group: 'bar', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 })), [
      'metadata.name: Invalid value: "v1.foo": must be `spec.version+"."+spec.group`: "v1.bar"',
    ]);
  });

  it('allows an empty group for v1 only, and checks group and version formats', () => {
    assert.deepEqual(messages(svc('v2.', { group: '', version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 })), [
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
    ]);
    assert.deepEqual(messages(svc('1v.Bad', { group: 'Bad', version: '1v', groupPriorityMinimum: 1, versionPriority: 1 })).map((m) => m.split(':')[0]), ['spec.group', 'spec.version']);
  });

  it('bounds the priorities', () => {
    assert.deepEqual(messages(svc('v1.a', { group: 'a', version: 'v1', groupPriorityMinimum: 20001, versionPriority: 0 })), [
      'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 0: must be positive and less than 1000',
    ]);
  });

  it('refuses TLS settings on a Local APIService and both caBundle and insecureSkipTLSVerify on a remote one', () => {
    const ca = Buffer.from('0123456789').toString('base64');
    assert.deepEqual(messages(svc('v1.a', { group: 'a', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: ca, insecureSkipTLSVerify: true })), [
      'spec.caBundle: Invalid value: "10 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
    assert.deepEqual(messages(svc('v1.a', { group: 'a', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: ca, insecureSkipTLSVerify: true, service: {} })), [
      'spec.service.namespace: Required value',
      'spec.service.name: Required value',
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
  });
});

describe('APIService cells and conditions', () => {
  it('prints Available as kube does', () => {
    const o = svc('v1.a', {});
    assert.equal(availableCell(o), 'Unknown');
    setCondition(o, { type: 'Available', status: 'False', reason: 'MissingEndpoints', message: 'x', lastTransitionTime: 't1' });
    assert.equal(availableCell(o), 'False (MissingEndpoints)');
    setCondition(o, { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'y', lastTransitionTime: 't2' });
    assert.equal(o.status!.conditions![0]!.lastTransitionTime, 't1', 'the same status keeps its transition time');
    setCondition(o, { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed', lastTransitionTime: 't3' });
    assert.equal(availableCell(o), 'True');
    assert.equal(o.status!.conditions![0]!.lastTransitionTime, 't3');
  });

  it('knows kube\'s built-in priorities', () => {
    assert.deepEqual(builtinPriority('', 'v1'), { group: 18000, version: 1 });
    assert.deepEqual(builtinPriority('autoscaling', 'v2'), { group: 17500, version: 30 });
    assert.equal(builtinPriority('example.com', 'v1'), undefined);
  });
});

describe('APIService strategy', () => {
  let c: Cluster;
  before(async () => (c = await cluster([apiServiceResource])));
  after(() => c.close());
  const api = () => c.client.resource('apiregistration.k8s.io/v1', 'apiservices');

  it('makes a Local APIService available on create, defaults the port and keeps status across updates', async () => {
    const local = (await api().create('', svc('v1.local.example.com', { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 }))) as APIService;
    assert.equal(local.status?.conditions?.[0]?.reason, 'Local');
    assert.equal(local.metadata.generation, undefined);
    const remote = (await api().create('', {
      ...svc('v1.remote.example.com', { group: 'remote.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10, service: { namespace: 'ns', name: 'api' } }),
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    })) as APIService;
    assert.deepEqual(remote.status, {}, 'a create sets no status');
    assert.equal(remote.spec?.service?.port, 443);
    await rejects(api().create('', svc('v1.x', { group: 'y', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 })), 422,
      'APIService.apiregistration.k8s.io "v1.x" is invalid: metadata.name: Invalid value: "v1.x": must be `spec.version+"."+spec.group`: "v1.y"');
  });
});

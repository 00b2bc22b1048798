import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { componentStatuses, componentStatusResource, type ComponentStatus } from '../../../../src/api/core/componentstatus.js';
import { defaultLimitRange, limitRangeResource, validateLimitRange, type LimitRange, type LimitRangeItem } from '../../../../src/api/core/limitrange.js';
import { quotaColumns, resourceQuotaResource, validateResourceQuota, validateResourceQuotaUpdate, type ResourceQuota } from '../../../../src/api/core/resourcequota/resource.js';
import { cluster, NOW, status, strings, ts, type Cluster } from './more-helpers.js';

const lr = (...limits: LimitRangeItem[]): LimitRange => {
  const l: LimitRange = { metadata: { name: 'limits', namespace: 'default' }, spec: { limits } };
  defaultLimitRange(l);
  return l;
};
const q = (v: number | string, scale = 0, s = String(v)) =>
  `resource.Quantity{i:resource.int64Amount{value:${v}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"DecimalSI"}`;
const rq = (spec: ResourceQuota['spec'], st?: ResourceQuota['status']): ResourceQuota => ({ metadata: { name: 'quota', namespace: 'default' }, spec, status: st });

describe('LimitRange', () => {
  it('defaults container limits from max and requests from default, then min', () => {
    const l = lr({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }, { type: 'Pod', max: { cpu: '4' } });
    assert.deepEqual(l.spec?.limits, [
      { type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } },
      { type: 'Pod', max: { cpu: '4' } },
    ]);
  });

  it('compares min, max, default and default request with the Kubernetes messages', () => {
    assert.deepEqual(strings(validateLimitRange(lr({ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }))), [
      `spec.limits[0].min[cpu]: Invalid value: ${q(2)}: min value 2 is greater than max value 1`,
      `spec.limits[0].defaultRequest[cpu]: Invalid value: ${q(1)}: min value 2 is greater than default request value 1`,
      `spec.limits[0].default[cpu]: Invalid value: ${q(2)}: min value 2 is greater than default value 1`,
    ]);
    assert.deepEqual(strings(validateLimitRange(lr({ type: 'Container', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3', memory: '0.5' } }))), [
      `spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${q(3)}: ratio 3 is greater than max/min = 2.000000`,
      `spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: ${q(5, -1, '')}: ratio 500m is less than 1`,
    ]);
  });

  it('checks types, resource names and Pod and claim rules', () => {
    assert.deepEqual(strings(validateLimitRange(lr({ type: 'Pod', default: { cpu: '1' }, max: { gpu: '1' } }, { type: 'PersistentVolumeClaim' }, { type: 'Pod' }, { type: 'Foo' }))), [
      'spec.limits[0].max[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.limits[0].max[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[1].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
      'spec.limits[2].type: Duplicate value: "Pod"',
      'spec.limits[3].type: Invalid value: "Foo": must be a standard limit type or fully qualified',
    ]);
    assert.deepEqual(limitRangeResource.columns, []);
    assert.deepEqual(limitRangeResource.shortNames, ['limits']);
  });
});

describe('ResourceQuota', () => {
  it('validates hard limits, scopes and scope selectors', () => {
    assert.deepEqual(strings(validateResourceQuota(rq({ hard: { pods: '1.5', foo: '1', 'requests.cpu': '-1' } }))), [
      `spec.hard[pods]: Invalid value: ${q(15, -1, '')}: must be an integer`,
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
      'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
      'spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    assert.deepEqual(strings(validateResourceQuota(rq({ hard: { cpu: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }))), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
    ]);
    assert.deepEqual(strings(validateResourceQuota(rq({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }, { scopeName: 'Terminating', operator: 'In', values: ['x'] }] } }))), [
      "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ]);
    assert.deepEqual(strings(validateResourceQuotaUpdate(rq({ scopes: ['Terminating'] }), rq({}))), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable',
    ]);
  });

  it('prints used/hard split into requests and limits', () => {
    const quota = rq({}, { hard: { pods: '10', 'requests.cpu': '1', 'limits.memory': '2Gi' }, used: { pods: '3' } });
    assert.deepEqual(quotaColumns(quota), { request: 'pods: 3/10, requests.cpu: 0/1', limit: 'limits.memory: 0/2Gi' });
    assert.deepEqual(resourceQuotaResource.columns.map((c) => c.cell(ts(quota) as ResourceQuota, { now: NOW })), [
      'quota', 'pods: 3/10, requests.cpu: 0/1', 'limits.memory: 0/2Gi', '5m',
    ]);
    assert.deepEqual(resourceQuotaResource.shortNames, ['quota']);
  });
});

describe('ComponentStatus', () => {
  it('reports the components as healthy, read-only', () => {
    const cs = componentStatuses();
    assert.deepEqual(cs.map((c) => c.metadata.name), ['scheduler', 'controller-manager', 'etcd-0']);
    assert.deepEqual(cs[0], { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'scheduler', creationTimestamp: null }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] });
    assert.deepEqual(componentStatusResource.columns.map((c) => c.cell(cs[2], { now: NOW })), ['etcd-0', 'Healthy', 'ok', '']);
    const sick: ComponentStatus = { metadata: { name: 'x' }, conditions: [{ type: 'Healthy', status: 'False', message: 'down', error: 'refused' }] };
    assert.deepEqual(componentStatusResource.columns.map((c) => c.cell(sick, { now: NOW })), ['x', 'Unhealthy', 'down', 'refused']);
    assert.deepEqual(componentStatusResource.verbs, ['get', 'list']);
    assert.deepEqual(componentStatusResource.shortNames, ['cs']);
  });
});

describe('LimitRange and ResourceQuota through the registry', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.store.close());

  it('stores defaulted limit ranges and rejects inconsistent ones', async () => {
    const r = c.client.resource('v1', 'limitranges');
    const created = await r.create('default', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { memory: '1Gi' } }] } });
    assert.deepEqual(created.spec, { limits: [{ type: 'Container', max: { memory: '1Gi' }, default: { memory: '1Gi' }, defaultRequest: { memory: '1Gi' } }] });
    await assert.rejects(
      r.create('default', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'bad' }, spec: { limits: [{ type: 'Container', default: { cpu: '2' }, max: { cpu: '1' } }] } }),
      status(422, `LimitRange "bad" is invalid: [spec.limits[0].defaultRequest[cpu]: Invalid value: ${q(2)}: default request value 2 is greater than max value 1, spec.limits[0].default[cpu]: Invalid value: ${q(1)}: default value 2 is greater than max value 1]`),
    );
  });

  it('resets quota status on create and keeps it on spec updates', async () => {
    const r = c.client.resource('v1', 'resourcequotas');
    const created = await r.create('default', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '10', 'requests.cpu': '0.5' } }, status: { used: { pods: '99' } } });
    assert.deepEqual(created.status, {});
    // Stored as Go serialises quantities.
    assert.deepEqual(created.spec, { hard: { pods: '10', 'requests.cpu': '500m' } });
    const st = await r.update('default', { ...created, status: { hard: { pods: '10' }, used: { pods: '1' } } }, { subresource: 'status' });
    assert.deepEqual(st.status, { hard: { pods: '10' }, used: { pods: '1' } });
    const grown = await r.update('default', { ...st, spec: { hard: { pods: '20' } }, status: {} });
    assert.deepEqual(grown.status, { hard: { pods: '10' }, used: { pods: '1' } });
    await assert.rejects(
      r.update('default', { ...grown, spec: { hard: { pods: '20' }, scopes: ['Terminating'] } }),
      status(422, 'ResourceQuota "q" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable'),
    );
  });
});

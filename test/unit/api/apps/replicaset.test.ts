import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replicaSetResource } from '../../../../src/api/apps/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(replicaSetResource);
const rs = (spec: Obj = {}, m: Obj = {}): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: meta('web-5d4f', m),
  spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec },
});
const spec = (o: KObject) => o.spec as Obj;

describe('ReplicaSet', () => {
  it('has the kube names and columns', () => {
    assert.deepEqual([replicaSetResource.plural, replicaSetResource.shortNames, replicaSetResource.categories], ['replicasets', ['rs'], ['all']]);
    assert.deepEqual(
      replicaSetResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`),
      ['Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
    );
    assert.deepEqual(Object.keys(replicaSetResource.selectableFields ?? {}), ['status.replicas']);
  });

  it('defaults replicas to 1, resets the status to replicas 0 and drops a zero minReadySeconds', () => {
    const o = d.created({ ...rs({ minReadySeconds: 0 }), status: { replicas: 3, readyReplicas: 3 } });
    assert.equal(spec(o).replicas, 1);
    assert.equal('minReadySeconds' in spec(o), false);
    assert.deepEqual(o.status, { replicas: 0 });
  });

  it('validates replicas, selector and template with the Kubernetes messages', () => {
    assert.equal(
      d.message(rs({ replicas: -1, minReadySeconds: -1, selector: { matchLabels: { app: 'x' } } })),
      'ReplicaSet.apps "web-5d4f" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    );
    assert.deepEqual(d.errors(rs({ selector: { matchLabels: {} } })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('keeps the selector immutable on update', () => {
    const old = d.created(rs({ selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } }));
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).replicas = 5)), []);
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).selector = { matchLabels: { app: 'web' } })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });

  it('validates status updates and drops terminatingReplicas (gate off)', () => {
    const old = d.created(rs());
    assert.deepEqual(d.statusErrors(old, { replicas: 1, fullyLabeledReplicas: 2, readyReplicas: -1 }), [
      'status.readyReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas',
      // 0 available pods are still more than -1 ready ones
      'status.availableReplicas: Invalid value: 0: cannot be greater than readyReplicas',
    ]);
    const next = { ...old, status: { replicas: 2, terminatingReplicas: 1 } };
    replicaSetResource.strategy.prepareForStatusUpdate!(next, old);
    assert.deepEqual(next.status, { replicas: 2 });
  });

  it('prints DESIRED CURRENT READY and the selector', () => {
    const o = d.created(rs({ replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }));
    o.status = { replicas: 2, readyReplicas: 1 };
    assert.deepEqual(d.cells(o), { Name: 'web-5d4f', Desired: 3, Current: 2, Ready: 1, Age: '10m', Containers: 'nginx', Images: 'nginx:1.27', Selector: 'app=web,tier in (a,b)' });
    assert.equal(replicaSetResource.selectableFields!['status.replicas'](o), '2');
  });
});

describe('ReplicaSet through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('apps/v1', 'replicasets');

  it('creates, lists by status.replicas and scales', async () => {
    const o = await api().create('default', rs());
    assert.deepEqual(o.status, { replicas: 0 });
    assert.equal(o.metadata.generation, 1);
    const list = await api().list('default', { fieldSelector: 'status.replicas=0' });
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['web-5d4f']);
    assert.equal((await api().list('default', { fieldSelector: 'status.replicas=1' })).items.length, 0);
    const sc = await api().update('default', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web-5d4f' }, spec: { replicas: 2 } }, { subresource: 'scale' });
    assert.deepEqual(sc.status, { replicas: 0, selector: 'app=web' });
    const got = await api().get('default', 'web-5d4f');
    assert.equal(spec(got).replicas, 2);
    assert.equal(got.metadata.generation, 2);
  });

  it('rejects a template whose restartPolicy is not Always', async () => {
    const e = await rejection(api().create('default', rs({ template: template({ app: 'web' }, { restartPolicy: 'Never' }) }, { name: 'never' })));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'ReplicaSet.apps "never" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"');
  });
});

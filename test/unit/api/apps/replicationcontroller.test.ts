import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replicationControllerResource } from '../../../../src/api/core/workloads.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(replicationControllerResource);
const rc = (spec: Obj = {}, m: Obj = {}): KObject => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: meta('frontend', m), spec: { template: template(), ...spec } });
const spec = (o: KObject) => o.spec as Obj;

describe('ReplicationController', () => {
  it('has the kube names, columns and garbage-collection default', () => {
    assert.deepEqual([replicationControllerResource.group, replicationControllerResource.plural, replicationControllerResource.shortNames], ['', 'replicationcontrollers', ['rc']]);
    assert.deepEqual(replicationControllerResource.categories, ['all']);
    assert.equal(replicationControllerResource.strategy.defaultGCPolicy, 'OrphanDependents');
    assert.deepEqual(
      replicationControllerResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`),
      ['Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
    );
    assert.equal(replicationControllerResource.definitions['io.k8s.api.core.v1.ReplicationControllerSpec'].properties!.selector.mapType, 'atomic');
  });

  it('defaults the selector and labels from the template, replicas to 1, and resets status', () => {
    const o = d.created({ ...rc(), status: { replicas: 4 } });
    assert.deepEqual(spec(o).selector, { app: 'web' });
    assert.deepEqual(o.metadata.labels, { app: 'web' });
    assert.equal(spec(o).replicas, 1);
    assert.deepEqual(o.status, { replicas: 0 });
    // explicit values win
    const own = d.created(rc({ selector: { app: 'web' }, replicas: 0 }, { labels: { team: 'a' } }));
    assert.deepEqual([own.metadata.labels, spec(own).replicas], [{ team: 'a' }, 0]);
  });

  it('requires a selector and a template', () => {
    assert.equal(
      d.message(rc({ template: undefined, replicas: -2 })),
      'ReplicationController "frontend" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -2: must be greater than or equal to 0, spec.template: Required value]',
    );
  });

  it('checks the template against the selector and the workload rules', () => {
    assert.deepEqual(d.errors(rc({ selector: { app: 'other' }, template: template({ app: 'web' }, { restartPolicy: 'OnFailure', activeDeadlineSeconds: 1 }) })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
    ]);
  });

  it('lets the selector change and validates status', () => {
    const old = d.created(rc());
    assert.deepEqual(d.updateErrors(old, (o) => {
      spec(o).selector = { app: 'web', v: '2' };
      (spec(o).template as { metadata: Obj }).metadata.labels = { app: 'web', v: '2' };
    }), []);
    assert.deepEqual(d.statusErrors(old, { replicas: 1, availableReplicas: 1 }), ['status.availableReplicas: Invalid value: 1: cannot be greater than readyReplicas']);
  });

  it('prints DESIRED CURRENT READY and the map selector', () => {
    const o = d.created(rc({ replicas: 2 }));
    o.status = { replicas: 2, readyReplicas: 1 };
    assert.deepEqual(d.cells(o), { Name: 'frontend', Desired: 2, Current: 2, Ready: 1, Age: '10m', Containers: 'nginx', Images: 'nginx:1.27', Selector: 'app=web' });
    assert.equal(d.cells(d.created(rc({ template: undefined }))).Containers, '');
  });
});

describe('ReplicationController through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('v1', 'replicationcontrollers');

  it('creates with defaults, scales and filters by status.replicas', async () => {
    const o = await api().create('default', rc());
    assert.deepEqual([spec(o).selector, o.metadata.labels, o.status], [{ app: 'web' }, { app: 'web' }, { replicas: 0 }]);
    const sc = await api().update('default', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'frontend' }, spec: { replicas: 3 } }, { subresource: 'scale' });
    assert.deepEqual(sc.spec, { replicas: 3 });
    const got = await api().get('default', 'frontend');
    assert.deepEqual([spec(got).replicas, got.metadata.generation], [3, 2]);
    assert.equal((await api().list('default', { fieldSelector: 'status.replicas=0' })).items.length, 1);
  });

  it('answers 422 with the Kubernetes message', async () => {
    const e = await rejection(api().create('default', rc({ template: template({}) }, { name: 'nolabels' })));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'ReplicationController "nolabels" is invalid: spec.selector: Required value');
  });
});

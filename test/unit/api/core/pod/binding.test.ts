import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import { cluster, createPod, rejection, type Cluster } from './subresource-helpers.js';

const bindingPath = (name: string) => `/api/v1/namespaces/default/pods/${name}/binding`;
const binding = (name: string, target: Record<string, unknown> = { kind: 'Node', name: 'n1' }, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...meta },
  target,
});

describe('pods/binding', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());

  it('sets nodeName, merges annotations and adds PodScheduled=True without touching generation', async () => {
    const created = await createPod(c, 'a', { meta: { annotations: { keep: 'me' } } });
    const res = await c.post(bindingPath('a'), binding('a', { kind: 'Node', name: 'n1' }, { annotations: { 'scheduler/x': 'y' } }));
    assert.equal(res.code, 201);
    assert.deepEqual(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pod = (await c.pods.get('default', 'a')) as Pod;
    assert.equal(pod.spec?.nodeName, 'n1');
    assert.deepEqual(pod.metadata.annotations, { keep: 'me', 'scheduler/x': 'y' });
    assert.equal(pod.metadata.generation, created.metadata.generation);
    assert.notEqual(pod.metadata.resourceVersion, created.metadata.resourceVersion);
    const cond = pod.status?.conditions?.find((x) => x.type === 'PodScheduled');
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.lastProbeTime, null);
    assert.match(String(cond?.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const list = await c.pods.list('default', { fieldSelector: 'spec.nodeName=n1' });
    assert.deepEqual(list.items.map((p) => p.metadata.name), ['a']);
  });

  it('refuses a second binding with 409 on pods/binding', async () => {
    const e = await rejection(c.post(bindingPath('a'), binding('a', { name: 'n2' })));
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'Conflict');
    assert.equal(e.message, 'Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "n1"');
    assert.deepEqual(e.details, { name: 'a', kind: 'pods/binding' });
  });

  it('validates the target like ValidatePodBinding (a plain error: 500)', async () => {
    await createPod(c, 'v');
    let e = await rejection(c.post(bindingPath('v'), binding('v', { kind: 'Pod', name: 'x' })));
    assert.equal(e.code, 500);
    assert.equal(e.message, 'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"');
    e = await rejection(c.post(bindingPath('v'), binding('v', { kind: 'Pod' })));
    assert.equal(e.message, '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]');
    // an empty kind means Node
    assert.equal((await c.post(bindingPath('v'), binding('v', { name: 'n3' }))).code, 201);
  });

  it('checks names, namespace, body kind and the pod', async () => {
    let e = await rejection(c.post(bindingPath('v'), binding('other')));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'name in URL does not match name in Binding object');
    e = await rejection(c.post(bindingPath('v'), binding('v', undefined, { namespace: 'kube-system' })));
    assert.equal(e.message, 'the namespace of the provided object does not match the namespace sent on the request');
    e = await rejection(c.post(bindingPath('v'), { ...binding('v'), apiVersion: 'apps/v1' }));
    assert.equal(e.message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');
    e = await rejection(c.post(bindingPath('nope'), binding('nope')));
    assert.equal(e.code, 404);
    assert.equal(e.message, 'pods "nope" not found');
    e = await rejection(c.post('/api/v1/namespaces/default/pods/v/binding', null));
    assert.equal(e.code, 400);
  });

  it('refuses pods being deleted or with scheduling gates', async () => {
    await createPod(c, 'del', { meta: { finalizers: ['example.com/hold'] } });
    await c.pods.delete('default', 'del');
    let e = await rejection(c.post(bindingPath('del'), binding('del')));
    assert.equal(e.code, 409);
    assert.equal(e.message, 'Operation cannot be fulfilled on pods/binding "del": pod del is being deleted, cannot be assigned to a host');
    await c.pods.patch('default', 'del', 'merge', { metadata: { finalizers: null } });
    await createPod(c, 'gated', { spec: { schedulingGates: [{ name: 'example.com/gate' }] } });
    e = await rejection(c.post(bindingPath('gated'), binding('gated')));
    assert.equal(e.message, 'Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');
  });

  it('uses the uid and resourceVersion of the binding as preconditions', async () => {
    const p = await createPod(c, 'pre');
    const e = await rejection(c.post(bindingPath('pre'), binding('pre', undefined, { uid: 'other-uid' })));
    assert.equal(e.code, 409);
    assert.equal(
      e.message,
      `Operation cannot be fulfilled on pods "pre": StorageError: invalid object, Code: 4, Key: /registry/pods/default/pre, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other-uid, UID in object meta: ${p.metadata.uid}`,
    );
    const ok = await c.post(bindingPath('pre'), binding('pre', undefined, { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion }));
    assert.equal(ok.code, 201);
  });

  it('writes nothing on dryRun', async () => {
    await createPod(c, 'dry');
    const res = await c.post(bindingPath('dry'), binding('dry'), { dryRun: 'All' });
    assert.equal(res.code, 201);
    assert.equal(((await c.pods.get('default', 'dry')) as Pod).spec?.nodeName, undefined);
  });

  it('replaces a PodScheduled=False condition', async () => {
    await createPod(c, 'unsched');
    await c.pods.patch('default', 'unsched', 'merge', { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no nodes' }] } }, { subresource: 'status' });
    await c.post(bindingPath('unsched'), binding('unsched'));
    const conds = ((await c.pods.get('default', 'unsched')) as Pod).status?.conditions ?? [];
    assert.equal(conds.length, 1);
    assert.equal(conds[0].status, 'True');
    assert.equal(conds[0].reason, undefined);
    assert.equal(((await c.pods.get('default', 'unsched')) as Pod).metadata.annotations, undefined);
  });

  it('serves the legacy bindings resource (create only)', async () => {
    await createPod(c, 'legacy');
    const res = await c.post('/api/v1/namespaces/default/bindings', binding('legacy', { name: 'n9' }));
    assert.equal(res.code, 201);
    assert.equal(res.body.status, 'Success');
    assert.equal(((await c.pods.get('default', 'legacy')) as Pod).spec?.nodeName, 'n9');
    const e = await rejection(c.client.resource('v1', 'bindings').list('default'));
    assert.equal(e.code, 405);
  });

  it('is listed in discovery of pods', () => {
    const pods = c.registry.lookup('', 'v1', 'pods')!;
    assert.deepEqual(pods.def.subresources?.actions?.map((a) => a.name), ['binding', 'eviction']);
    assert.deepEqual(pods.def.subresources?.extra, ['ephemeralcontainers', 'resize']);
  });
});

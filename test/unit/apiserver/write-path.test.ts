// The generic store's write path without copies: decoded revisions kept for watchers and the next update, PUT
// bodies changed in place (re-decoded on a conflict), objects handed out never shared with the store's own.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../src/cluster/api.js';
import { followsInObjectMeta, withResourceVersion } from '../../../src/apiserver/registry/resource-version-place.js';
import type { KObject } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { updatePodCondition } from '../../../src/api/core/pod/subresources.js';
import type { ClientWatchEvent } from '../../../src/client/types.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import type { Store } from '../../../src/storage/types.js';

interface Harness {
  api: ClusterApi;
  store: SqliteStore;
  /** called before the store's next update of `key` (once) */
  beforeUpdate(key: string, fn: () => Promise<void>): void;
  close(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const store = SqliteStore.open({ path: ':memory:' });
  const hooks = new Map<string, () => Promise<void>>();
  // the store as the API sees it, with a hook to slip a concurrent write in before an update's compare-and-swap
  const seen: Store = new Proxy(store, {
    get(target, prop) {
      if (prop === 'update') {
        return async (key: string, value: string, rev: number) => {
          const hook = hooks.get(key);
          if (hook) {
            hooks.delete(key);
            await hook();
          }
          return target.update(key, value, rev);
        };
      }
      const v = (target as unknown as Record<string | symbol, unknown>)[prop];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const api = buildClusterApi(seen, { metrics: false });
  await bootstrapClusterObjects(api);
  await api.client.resource('v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  return {
    api,
    store,
    beforeUpdate: (key, fn) => void hooks.set(key, fn),
    async close() {
      api.stop();
      await store.close();
    },
  };
}

const pod = (name: string): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) as KObject;

/** What decoding the stored value of a key gives (the store's format: no resourceVersion inside). */
async function storedObject(store: SqliteStore, key: string): Promise<KObject> {
  const kv = (await store.get(key))!;
  const o = JSON.parse(kv.value) as KObject;
  o.metadata = withResourceVersion(o.metadata as Record<string, unknown>, String(kv.modRevision), followsInObjectMeta) as KObject['metadata'];
  return o;
}

/** A harness whose pods in `default` are watched (so the store keeps decoded revisions); closed after the test. */
async function watchedPods(t: TestContext): Promise<{ h: Harness; pods: ReturnType<ClusterApi['client']['resource']>; events: ClientWatchEvent[] }> {
  const h = await harness();
  t.after(() => h.close());
  const pods = h.api.client.resource('v1', 'pods');
  const events: ClientWatchEvent[] = [];
  const w = await pods.watch('default', {}, (ev) => events.push(ev));
  t.after(() => w.stop());
  return { h, pods, events };
}

describe('write path', () => {
  it('watchers get exactly what decoding the stored revision gives, key order included', async (t) => {
    const { h, pods, events } = await watchedPods(t);
    const created = await pods.create('default', pod('p'));
    await pods.update('default', { ...created, status: { ...(created.status as object), phase: 'Running', podIP: '10.0.0.1' } } as KObject, { subresource: 'status' });
    await pods.patch('default', 'p', 'merge', { metadata: { labels: { b: 'c' } } });
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
    const last = events[2]!.object as KObject;
    assert.equal(JSON.stringify(last), JSON.stringify(await storedObject(h.store, '/registry/core/pods/default/p')));
    assert.equal(last.metadata.labels?.b, 'c');
    assert.equal((last.status as { podIP?: string }).podIP, '10.0.0.1');
  });

  it('objects returned by get and update are the caller’s own: changing them changes nothing stored', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const pods = h.api.client.resource('v1', 'pods');
    const w = await pods.watch('default', {}, () => {}); // so the store keeps decoded revisions
    t.after(() => w.stop());
    await pods.create('default', pod('p'));
    const a = await pods.get('default', 'p');
    a.metadata.labels!.app = 'changed';
    (a.spec as { containers: { image: string }[] }).containers[0]!.image = 'changed';
    const b = await pods.get('default', 'p');
    assert.equal(b.metadata.labels!.app, 'a');
    assert.equal((b.spec as { containers: { image: string }[] }).containers[0]!.image, 'busybox');
    // a no-op update hands back the current object: also a copy
    const same = await pods.update('default', b);
    assert.equal(same.metadata.resourceVersion, b.metadata.resourceVersion);
    same.metadata.labels!.app = 'changed again';
    assert.equal((await pods.get('default', 'p')).metadata.labels!.app, 'a');
  });

  it('a PUT that loses the compare-and-swap starts again from its own body, not from the first attempt', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const pods = h.api.client.resource('v1', 'pods');
    const created = await pods.create('default', pod('p'));
    const key = '/registry/core/pods/default/p';
    let concurrent = 0;
    h.beforeUpdate(key, async () => {
      // another writer changes a label between the update's read and its write
      const kv = (await h.store.get(key))!;
      const o = JSON.parse(kv.value) as KObject;
      o.metadata.labels = { ...o.metadata.labels, other: 'writer' };
      const res = await h.store.update(key, JSON.stringify(o), kv.modRevision);
      assert.ok(res.ok);
      concurrent = res.kv.modRevision;
    });
    const status = { ...(created.status as object), phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const out = await pods.update('default', { ...created, metadata: { ...created.metadata, resourceVersion: undefined }, status } as KObject, { subresource: 'status' });
    assert.ok(concurrent > 0);
    assert.ok(Number(out.metadata.resourceVersion) > concurrent);
    // the status subresource keeps the other writer's label and applies this body's status, defaulted once
    assert.equal(out.metadata.labels?.other, 'writer');
    assert.equal((out.status as { phase?: string }).phase, 'Running');
    const conds = (out.status as { conditions: Record<string, unknown>[] }).conditions;
    assert.deepEqual(conds, [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }]);
    assert.equal(JSON.stringify(await pods.get('default', 'p')), JSON.stringify(await storedObject(h.store, key)));
    assert.equal(JSON.stringify(out), JSON.stringify(await storedObject(h.store, key)));
  });

  it('a pinned PUT that loses the race is refused with a conflict', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const pods = h.api.client.resource('v1', 'pods');
    const created = await pods.create('default', pod('p'));
    await pods.patch('default', 'p', 'merge', { metadata: { labels: { x: 'y' } } });
    await assert.rejects(pods.update('default', { ...created, metadata: { ...created.metadata, labels: { z: '1' } } } as KObject), (e: { code?: number }) => e.code === 409);
  });

  it('unwatched writes still read back exactly (events)', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const events = h.api.client.resource('v1', 'events');
    const ev = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'R',
      message: 'm',
      type: 'Normal',
      count: 1,
      source: { component: 'x' },
    } as unknown as KObject;
    await events.create('default', ev);
    const patched = await events.patch('default', 'e', 'merge', { count: 2 });
    assert.equal((patched as unknown as { count: number }).count, 2);
    assert.equal(JSON.stringify(await events.get('default', 'e')), JSON.stringify(await storedObject(h.store, '/registry/core/events/default/e')));
  });

  it('a binding stores what changing a decoded copy in place stored, and leaves the shared revision alone', async (t) => {
    const { h, pods, events } = await watchedPods(t);
    const key = '/registry/core/pods/default/p';
    await pods.create('default', { ...pod('p'), metadata: { name: 'p', annotations: { a: '1' } } } as KObject);
    const before = await storedObject(h.store, key);
    await pods.create('default', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', annotations: { b: '2' } }, target: { kind: 'Node', name: 'n1' } } as unknown as KObject, { subresource: 'binding' });
    await new Promise((r) => setTimeout(r, 20));
    const after = await storedObject(h.store, key);
    // the former path: the decoded pod changed in place, then encoded
    const expected = structuredClone(before) as Pod;
    expected.spec!.nodeName = 'n1';
    expected.metadata.annotations = { a: '1', b: '2' };
    const scheduled = (after as Pod).status!.conditions!.find((c) => c.type === 'PodScheduled')!;
    updatePodCondition(expected, { type: 'PodScheduled', status: 'True' }, String(scheduled.lastTransitionTime));
    expected.metadata.resourceVersion = after.metadata.resourceVersion;
    // the same members, stored in the Pod's Go field order (spec.nodeName in its place, not appended)
    assert.equal(JSON.stringify(after), JSON.stringify(h.api.registry.order.struct(expected, 'io.k8s.api.core.v1.Pod')));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED']);
    assert.equal(JSON.stringify(events[1]!.object), JSON.stringify(after));
    // the watcher's ADDED object (shared with the store) is as it was
    assert.equal(JSON.stringify(events[0]!.object), JSON.stringify(before));
  });

  it('a status update keeps exactly the stored revision for watchers and leaves the revision before it alone', async (t) => {
    const { h, pods, events } = await watchedPods(t);
    const key = '/registry/core/pods/default/p';
    const created = await pods.create('default', pod('p'));
    const first = JSON.stringify(await storedObject(h.store, key));
    for (const phase of ['Running', 'Succeeded']) {
      const cur = await pods.get('default', 'p');
      await pods.update('default', { ...cur, status: { ...(cur.status as object), phase, podIP: '10.0.0.1' } } as KObject, { subresource: 'status' });
    }
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
    assert.equal(JSON.stringify(events[0]!.object), first);
    assert.equal(JSON.stringify(events[2]!.object), JSON.stringify(await storedObject(h.store, key)));
    assert.equal((events[1]!.object.status as { phase: string }).phase, 'Running');
    assert.equal((events[2]!.object.status as { phase: string }).phase, 'Succeeded');
    // the managedFields of the status writer and of the creator
    const mf = events[2]!.object.metadata.managedFields!;
    assert.deepEqual(mf.map((e) => [e.manager, e.operation, e.subresource ?? '']), [['k1s', 'Update', ''], ['k1s', 'Update', 'status']]);
    assert.equal(created.metadata.uid, events[2]!.object.metadata.uid);
  });

  it('a patch works on the stored object itself and leaves it alone (the patch functions copy what they patch)', async (t) => {
    const { h, pods, events } = await watchedPods(t);
    const key = '/registry/core/pods/default/p';
    await pods.create('default', pod('p'));
    const first = JSON.stringify(await storedObject(h.store, key));
    await pods.patch('default', 'p', 'merge', { metadata: { labels: { b: 'c' } } });
    await pods.patch('default', 'p', 'json', [{ op: 'add', path: '/metadata/labels/d', value: 'e' }]);
    await pods.patch('default', 'p', 'strategic', { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } });
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED']);
    assert.equal(JSON.stringify(events[0]!.object), first);
    assert.deepEqual(events[1]!.object.metadata.labels, { app: 'a', b: 'c' });
    assert.deepEqual(events[2]!.object.metadata.labels, { app: 'a', b: 'c', d: 'e' });
    assert.equal(JSON.stringify(events[3]!.object), JSON.stringify(await storedObject(h.store, key)));
  });
});

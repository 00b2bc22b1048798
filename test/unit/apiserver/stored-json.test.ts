// A create's response text is its stored text with the revision spliced in: it must be byte for byte what
// JSON.stringify of the result gives, and anything else must fall back to JSON.stringify.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import { handleResource } from '../../../src/apiserver/handlers/rest.js';
import { parseRequestInfo } from '../../../src/apiserver/handlers/request-info.js';
import { encodeRemembered, jsonOf } from '../../../src/apiserver/registry/stored-json.js';
import { followsInObjectMeta, withResourceVersion } from '../../../src/apiserver/registry/resource-version-place.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

/** JSON.stringify of `o` with metadata.resourceVersion moved where kube writes it */
const placed = (o: KObject): string =>
  JSON.stringify({ ...o, metadata: withResourceVersion({ ...o.metadata } as Record<string, unknown>, o.metadata.resourceVersion!, followsInObjectMeta) });

const obj = (metadata: Record<string, unknown>, rest: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...rest }) as unknown as KObject;

describe('stored JSON reused for the response', () => {
  it('the stored text is JSON.stringify, and the response adds resourceVersion where ObjectMeta declares it', () => {
    for (const o of [
      obj({ name: 'a', labels: { x: 'y' } }, { data: { k: 'v\u2028"<>' } }),
      obj({}, { data: { k: 'v' } }),
      obj({ name: 'a', annotations: {} }),
      obj({ name: 'a', gone: undefined }, { data: undefined, spec: { a: [1, null, { b: 'c' }] } }),
      obj({ name: 'a', namespace: 'n', uid: 'u', creationTimestamp: 't', labels: { x: 'y' } }),
      obj({ generation: 1 }),
      { metadata: { name: 'first' }, kind: 'ConfigMap', apiVersion: 'v1', z: 1 } as unknown as KObject,
    ]) {
      const text = encodeRemembered(o, followsInObjectMeta);
      assert.equal(text, JSON.stringify(o));
      o.metadata.resourceVersion = '42';
      assert.equal(jsonOf(o), placed(o));
    }
  });

  it('falls back to JSON.stringify when metadata got more than its resourceVersion, or had one before', () => {
    const a = obj({ name: 'a' });
    encodeRemembered(a, followsInObjectMeta);
    a.metadata.resourceVersion = '7';
    (a.metadata as Record<string, unknown>).later = 'x';
    assert.equal(jsonOf(a), JSON.stringify(a));
    const b = obj({ name: 'b', resourceVersion: '' });
    encodeRemembered(b, followsInObjectMeta);
    b.metadata.resourceVersion = '8';
    assert.equal(jsonOf(b), JSON.stringify(b));
    const c = obj({ name: 'c' });
    assert.equal(jsonOf(c), JSON.stringify(c));
    assert.equal(jsonOf([1, 'x']), JSON.stringify([1, 'x']));
  });

  it('a text serves one response; texts no response took are dropped, oldest first', () => {
    const a = obj({ name: 'a' });
    encodeRemembered(a, followsInObjectMeta);
    a.metadata.resourceVersion = '1';
    assert.equal(jsonOf(a), placed(a));
    // asked again after a change: not from the text any more
    (a as unknown as Record<string, unknown>).data = { k: 'v' };
    assert.equal(jsonOf(a), JSON.stringify(a));
    const many = Array.from({ length: 1500 }, (_, i) => obj({ name: `m${i}` }));
    for (const m of many) encodeRemembered(m, followsInObjectMeta);
    for (const m of many) {
      m.metadata.resourceVersion = '2';
      assert.equal(jsonOf(m), placed(m));
    }
  });

  describe('through the API (as the HTTPS front serialises a create)', () => {
    const store = SqliteStore.open({ path: ':memory:' });
    const api = buildClusterApi(store, { metrics: false });
    after(async () => {
      api.stop();
      await store.close();
    });

    it('a pod create answers the stored pod with its revision', async () => {
      await bootstrapClusterObjects(api);
      await api.client.resource('v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      const query = new URLSearchParams();
      const res = await handleResource(api.registry, {
        info: parseRequestInfo('POST', '/api/v1/namespaces/default/pods', query),
        query,
        headers: { 'content-type': 'application/json' },
        body,
        user: { name: 'admin', groups: ['system:masters', 'system:authenticated'] },
        serializesResponse: true,
        respondsWithJson: true,
      });
      assert.equal(res.code, 201);
      const text = jsonOf(res.body, res.wire);
      assert.equal(text, placed(res.body as KObject));
      // kube's order: TypeMeta (kind first), then ObjectMeta's fields as Go declares them, then spec and status
      assert.deepEqual(Object.keys(JSON.parse(text)), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
      assert.deepEqual(Object.keys(JSON.parse(text).metadata).slice(0, 5), ['name', 'namespace', 'uid', 'resourceVersion', 'generation']);
      const kv = (await store.get('/registry/core/pods/default/p'))!;
      const stored = JSON.parse(kv.value) as KObject;
      stored.metadata.resourceVersion = String(kv.modRevision);
      assert.deepEqual(JSON.parse(text), stored);
    });
  });
});

// The generic store over a kind whose conversion is async (a CRD's conversion webhook, here a fake with random
// delays): writes stored in the storage version, reads, lists and watches in the requested one, watch events in
// revision order, a failed conversion as an ERROR event that ends the watch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customResourceDefinitions } from '../../../../src/api/apiextensions/customresource/definition.js';
import type { CustomResourceDefinition } from '../../../../src/api/apiextensions/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { newContext } from '../../../../src/apiserver/context.js';
import { listObjects, watchObjects, type WatchEventOut } from '../../../../src/apiserver/registry/list.js';
import { buildClusterApi, bootstrapClusterObjects } from '../../../../src/cluster/api.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

type Obj = Record<string, any>;
const schema = (spec: Obj) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });
const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.ex.test' },
  spec: {
    group: 'ex.test',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
      { name: 'v2', served: true, storage: false, schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } }, colour: { type: 'string', default: 'grey' } }) },
    ],
    conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/' } } },
  },
};

async function harness() {
  const store = SqliteStore.open({ path: ':memory:' });
  const api = buildClusterApi(store, { metrics: false });
  await bootstrapClusterObjects(api);
  const calls: string[] = [];
  let broken = false;
  // spec.size ⇄ spec.dimensions.size; a field unknown to the target schema is left in to be pruned
  const convert = async (o: KObject, to: string): Promise<KObject> => {
    calls.push(`${o.apiVersion}>${to}`);
    await new Promise((r) => setTimeout(r, Math.random() * 5));
    if (broken) throw new StatusError(500, '', `conversion webhook for ${o.apiVersion}, Kind=Gadget failed: down`);
    const { size, dimensions, ...rest } = (o.spec ?? {}) as Obj;
    const spec = to === 'ex.test/v2' ? { ...rest, dimensions: { size } } : { ...rest, size: dimensions?.size };
    return { ...structuredClone(o), apiVersion: to, spec: { ...spec, unknown: true } };
  };
  api.registry.replaceOwned('gadgets.ex.test', customResourceDefinitions(crd, { convert }));
  const v1 = api.registry.mustLookup('ex.test', 'v1', 'gadgets');
  const v2 = api.registry.mustLookup('ex.test', 'v2', 'gadgets');
  const ctx = newContext({ name: 'admin', groups: ['system:masters'] });
  return {
    api, store, v1, v2, ctx, calls,
    breakIt: (b: boolean) => void (broken = b),
    async close() {
      api.stop();
      await store.close();
    },
  };
}

const gadgetV2 = (name: string, size: number): KObject => ({ apiVersion: 'ex.test/v2', kind: 'Gadget', metadata: { name, namespace: 'default' }, spec: { dimensions: { size } } });

describe('store under an async conversion', () => {
  it('stores in the storage version, answers and reads in the requested one', async () => {
    const h = await harness();
    try {
      const created = await h.v2.create(h.ctx, 'default', gadgetV2('a', 3));
      assert.deepEqual(h.calls, ['ex.test/v2>ex.test/v1', 'ex.test/v1>ex.test/v2'], 'to storage and back for the answer');
      assert.deepEqual(created.spec, { dimensions: { size: 3 }, colour: 'grey' }, 'pruned to v2 and defaulted');
      const stored = JSON.parse((await h.store.get(h.v1.key('default', 'a')))!.value) as Obj;
      assert.equal(stored.apiVersion, 'ex.test/v1');
      assert.deepEqual(stored.spec, { size: 3 }, 'pruned to v1');
      assert.equal(stored.metadata.resourceVersion, undefined);
      h.calls.length = 0;
      assert.deepEqual((await h.v1.get('default', 'a')).spec, { size: 3 });
      assert.deepEqual(h.calls, [], 'the storage version needs no conversion');
      const got = await h.v2.get('default', 'a');
      assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.deepEqual(got.spec, { dimensions: { size: 3 }, colour: 'grey' });

      const updated = await h.v2.guaranteedUpdate(h.ctx, 'default', 'a', (cur) => ({ ...cur!, spec: { ...cur!.spec as Obj, dimensions: { size: 4 } } }), { subresource: '' });
      assert.deepEqual(updated.object.spec, { dimensions: { size: 4 }, colour: 'grey' });
      assert.deepEqual((await h.v1.get('default', 'a')).spec, { size: 4 });

      await h.v2.create(h.ctx, 'default', gadgetV2('b', 1));
      const list = await listObjects(h.v2, 'default', {});
      assert.deepEqual(list.items.map((o) => [o.metadata.name, o.apiVersion, (o.spec as Obj).dimensions.size]), [['a', 'ex.test/v2', 4], ['b', 'ex.test/v2', 1]]);

      h.breakIt(true);
      await assert.rejects(h.v2.get('default', 'a'), /conversion webhook for ex\.test\/v1, Kind=Gadget failed: down/);
      await assert.rejects(h.v2.create(h.ctx, 'default', gadgetV2('c', 1)), /failed: down/);
      assert.equal(await h.store.get(h.v1.key('default', 'c')), undefined);
      await h.v2.delete(h.ctx, 'default', 'b', {}).then(() => assert.fail('deleted'), (e: Error) => assert.match(e.message, /failed: down/));
      assert.ok((await h.v1.get('default', 'b')).metadata.uid);
    } finally {
      await h.close();
    }
  });

  it('watches in the requested version, in revision order, and ends with an internal error', async () => {
    const h = await harness();
    try {
      const rv = (await listObjects(h.v2, 'default', {})).resourceVersion;
      const events: WatchEventOut[] = [];
      const w = await watchObjects(h.v2, 'default', { resourceVersion: rv }, (ev) => events.push(ev));
      for (let i = 0; i < 10; i++) await h.v1.create(h.ctx, 'default', { apiVersion: 'ex.test/v1', kind: 'Gadget', metadata: { name: `g${i}`, namespace: 'default' }, spec: { size: i } });
      const until = async (n: number) => {
        for (let t = 0; t < 200 && events.length < n; t++) await new Promise((r) => setTimeout(r, 10));
      };
      await until(10);
      assert.deepEqual(events.map((e) => (e.object as KObject).metadata.name), Array.from({ length: 10 }, (_, i) => `g${i}`));
      for (const e of events) {
        assert.equal(e.type, 'ADDED');
        assert.equal((e.object as KObject).apiVersion, 'ex.test/v2');
        assert.equal((e as { kv?: unknown }).kv, undefined, 'no stored text to splice');
      }
      const rvs = events.map((e) => Number((e.object as KObject).metadata.resourceVersion));
      assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b));

      h.breakIt(true);
      await h.v1.create(h.ctx, 'default', { apiVersion: 'ex.test/v1', kind: 'Gadget', metadata: { name: 'late', namespace: 'default' }, spec: { size: 1 } });
      await until(11);
      const last = events.at(-1)!;
      assert.equal(last.type, 'ERROR');
      assert.deepEqual(last.object, {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, reason: 'InternalError',
        message: 'Internal error occurred: conversion webhook for ex.test/v1, Kind=Gadget failed: down',
        details: { causes: [{ message: 'conversion webhook for ex.test/v1, Kind=Gadget failed: down' }] },
      });
      h.breakIt(false);
      await h.v1.create(h.ctx, 'default', { apiVersion: 'ex.test/v1', kind: 'Gadget', metadata: { name: 'after', namespace: 'default' }, spec: { size: 1 } });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(events.length, 11, 'the watch ended');
      w.stop();
    } finally {
      await h.close();
    }
  });

  it('leaves definitions without a webhook synchronous', async () => {
    const none = customResourceDefinitions({ ...crd, spec: { ...crd.spec, conversion: { strategy: 'None' } } }, { convert: async () => assert.fail('called') });
    assert.deepEqual(none.map((d) => d.conversion), [undefined, undefined]);
    const hooked = customResourceDefinitions(crd);
    assert.deepEqual(hooked.map((d) => d.conversion), [undefined, undefined], 'no converter given');
  });
});

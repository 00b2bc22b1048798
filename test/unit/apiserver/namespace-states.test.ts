// NamespaceLifecycle over its watch-fed namespace states: always as fresh as reading the store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configMapResource } from '../../../src/api/core/configmap.js';
import { namespaceResource } from '../../../src/api/core/namespace.js';
import { coreDefinitions } from '../../../src/api/core/index.js';
import { metaDefinitions } from '../../../src/api/meta.js';
import { namespaceLifecycle } from '../../../src/apiserver/admission/namespace-lifecycle.js';
import { NamespaceStates } from '../../../src/apiserver/admission/namespace-states.js';
import { Registry } from '../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../src/client/local.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

function setup() {
  const store = SqliteStore.open({ path: ':memory:' });
  const registry = new Registry(store, [namespaceResource, configMapResource], [metaDefinitions, coreDefinitions]);
  const namespaces = () => registry.mustLookup('', 'v1', 'namespaces');
  registry.admission.add(namespaceLifecycle(namespaces));
  const client = new LocalClient(registry);
  const ns = client.resource('v1', 'namespaces');
  const cms = client.resource('v1', 'configmaps');
  const cm = (namespace: string, name: string) => cms.create(namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const mkns = (name: string) => ns.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return { store, registry, namespaces, ns, cm, mkns };
}

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof StatusError) return `${e.code} ${e.reason}: ${e.message}`;
    throw e;
  }
}

describe('NamespaceLifecycle with watch-fed namespace states', () => {
  it('sees namespaces created, terminating and deleted right after each write returns', async () => {
    const { store, ns, cm, mkns } = setup();
    try {
      assert.equal(await reason(cm('a', 'x')), '404 NotFound: namespaces "a" not found');
      await mkns('a');
      assert.equal(await reason(cm('a', 'x')), 'ok');
      // the namespace keeps its "kubernetes" finalizer: a delete only marks it terminating
      await ns.delete('', 'a');
      assert.match(await reason(cm('a', 'y')), /^403 Forbidden: configmaps "y" is forbidden: unable to create new content in namespace a because it is being terminated$/);
      await ns.update('', { ...(await ns.get('', 'a')), spec: { finalizers: [] } }, { subresource: 'finalize' });
      assert.equal(await reason(ns.get('', 'a')), '404 NotFound: namespaces "a" not found');
      assert.equal(await reason(cm('a', 'z')), '404 NotFound: namespaces "a" not found');
      await mkns('a');
      assert.equal(await reason(cm('a', 'z')), 'ok');
    } finally {
      await store.close();
    }
  });

  it('starts from the namespaces already stored, and follows writes made straight to the store', async () => {
    const { store, namespaces, mkns } = setup();
    try {
      await mkns('before');
      const states = new NamespaceStates(namespaces);
      assert.equal(await states.terminating('before'), false);
      assert.equal(await states.terminating('nope'), undefined);
      const rs = namespaces();
      const obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'raw', uid: 'u', deletionTimestamp: '2026-01-01T00:00:00Z' } };
      await store.create(rs.key('', 'raw'), JSON.stringify(obj));
      assert.equal(await states.terminating('raw'), true);
      await store.delete(rs.key('', 'before'));
      assert.equal(await states.terminating('before'), undefined);
      states.stop();
    } finally {
      await store.close();
    }
  });

  it('looks a name it has not seen up in the store', async () => {
    const { store, namespaces } = setup();
    try {
      const states = new NamespaceStates(namespaces);
      assert.equal(await states.terminating('late'), undefined);
      states.stop(); // from now on the map goes stale; lookups of unknown names still read the store
      const rs = namespaces();
      await store.create(rs.key('', 'late'), JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late', uid: 'u' } }));
      assert.equal(await states.terminating('late'), false);
    } finally {
      await store.close();
    }
  });
});

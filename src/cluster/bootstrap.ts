// Objects every cluster has from its first start.
import type { KObject } from '../api/types.js';
import { systemUser, type LocalClient } from '../client/local.js';
import { newContext } from '../apiserver/context.js';
import type { ResourceStore } from '../apiserver/registry/store.js';
import { StatusError } from '../machinery/errors.js';

export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function bootstrapNamespaces(client: LocalClient): Promise<void> {
  const ns = client.resource('v1', 'namespaces');
  // Concurrent creates share one group commit (one fsync) instead of one each: most of a first start's bootstrap.
  await Promise.all(
    systemNamespaces.map(async (name) => {
      // A read first: on restarts they all exist, and a get is much cheaper than a create refused as AlreadyExists.
      if (await exists(() => ns.get('', name))) return;
      try {
        await ns.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
      }
    }),
  );
}

async function exists(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return true;
  } catch (e) {
    if (e instanceof StatusError && e.reason === 'NotFound') return false;
    throw e;
  }
}

/** Creates each object unless it exists (built-in PriorityClasses, the kubernetes Service, …). */
export async function ensureObjects(client: LocalClient, objects: KObject[], plural: (o: KObject) => string): Promise<void> {
  await Promise.all(
    objects.map(async (o) => {
      const rc = client.resource(o.apiVersion!, plural(o));
      const ns = o.metadata.namespace ?? '';
      if (await exists(() => rc.get(ns, o.metadata.name!))) return;
      try {
        await rc.create(ns, o);
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
      }
    }),
  );
}

/** Objects of read-only kinds (ComponentStatus) are written by the cluster itself, past the verb check. */
export async function ensureReadOnly(store: ResourceStore, objects: KObject[]): Promise<void> {
  const ctx = newContext(systemUser);
  await Promise.all(
    objects.map(async (o) => {
      if (await exists(() => store.get('', o.metadata.name!))) return;
      await store.create(ctx, '', o);
    }),
  );
}

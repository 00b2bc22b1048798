// An in-memory cluster (registry + in-process client) for the per-kind tests, and assertions on StatusErrors.
import assert from 'node:assert/strict';
import { namespaceResource } from '../../../src/api/core/namespace.js';
import { coreDefinitions } from '../../../src/api/core/index.js';
import { metaDefinitions } from '../../../src/api/meta.js';
import type { ResourceDefinition } from '../../../src/api/types.js';
import { Registry } from '../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../src/client/local.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

export interface Cluster {
  client: LocalClient;
  registry: Registry;
  close(): Promise<void>;
}

/** Namespaces plus `resources`, with the `default` namespace created. */
export async function cluster(resources: ResourceDefinition[]): Promise<Cluster> {
  const store = SqliteStore.open({ path: ':memory:' });
  const registry = new Registry(store, [namespaceResource, ...resources], [metaDefinitions, coreDefinitions]);
  const client = new LocalClient(registry);
  await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { client, registry, close: () => store.close() };
}

/** The StatusError a promise rejects with. */
export async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

/** Asserts that `p` rejects with a StatusError of this code and exact message. */
export async function rejects(p: Promise<unknown>, code: number, message: string): Promise<void> {
  const e = await rejection(p);
  assert.equal(e.code, code);
  assert.equal(e.message, message);
}

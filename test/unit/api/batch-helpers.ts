// A registry over an in-memory store with the given resources, and small helpers for the batch-group tests.
import { namespaceResource } from '../../../src/api/core-namespace.js';
import { coreDefinitions } from '../../../src/api/core.js';
import { metaDefinitions } from '../../../src/api/meta.js';
import type { KObject, ResourceDefinition } from '../../../src/api/types.js';
import { Registry } from '../../../src/apiserver/registry.js';
import { LocalClient } from '../../../src/client/local.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite.js';

export interface Cluster {
  client: LocalClient;
  registry: Registry;
  close(): Promise<void>;
}

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

export const container = { name: 'c', image: 'busybox:1.36' };

export function podTemplate(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { spec: { containers: [container], restartPolicy: 'Never', ...extra } };
}

export function withMeta(o: Record<string, unknown>, name = 'x', namespace = 'default'): KObject {
  return { metadata: { name, namespace }, ...o } as KObject;
}

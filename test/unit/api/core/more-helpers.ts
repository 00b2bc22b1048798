// Shared set-up for the coremore tests: a registry with the remaining core kinds (and the service allocator),
// and helpers to render validation results as Kubernetes prints them.
import { serviceAllocation } from '../../../../src/apiserver/admission/service-ip.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { coreMoreDefinitions, coreMoreResources } from '../../../../src/api/core/more-kinds.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import type { KObject } from '../../../../src/api/types.js';
import { errors, StatusError, type FieldError } from '../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

export interface Cluster {
  store: SqliteStore;
  registry: Registry;
  client: LocalClient;
}

/** A fixed sequence of "random" numbers, so allocations are predictable. */
export function seq(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length];
}

export async function cluster(random: () => number = seq(0)): Promise<Cluster> {
  const store = SqliteStore.open({ path: ':memory:' });
  const registry = new Registry(store, [namespaceResource, ...coreMoreResources], [metaDefinitions, coreDefinitions, coreMoreDefinitions]);
  registry.admission.add(
    serviceAllocation({ serviceCIDR: '10.43.0.0/16', nodePortRange: [30000, 32767], random }, () => registry.mustLookup('', 'v1', 'services')),
  );
  const client = new LocalClient(registry);
  await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { store, registry, client };
}

/** The 422 message Kubernetes builds from field errors. */
export function invalidMessage(kind: string, name: string, errs: FieldError[]): string {
  return errors.invalid(kind, '', name, errs).message;
}

export const strings = (errs: FieldError[]): string[] => errs.map(String);

/** assert.rejects predicate: a StatusError with this code and message. */
export function status(code: number, message: string) {
  return (e: unknown): boolean => {
    if (!(e instanceof StatusError)) throw e;
    if (e.code !== code || e.message !== message) throw new Error(`got ${e.code} ${e.message}`);
    return true;
  };
}

export const ts = (o: KObject, iso = '2024-01-01T00:00:00Z'): KObject => ({ ...o, metadata: { ...o.metadata, creationTimestamp: iso } });
export const NOW = Date.parse('2024-01-01T00:05:00Z');

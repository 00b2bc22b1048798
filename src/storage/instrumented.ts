// A store that times each request into etcd_request_duration_seconds{operation,type}, kube's storage-layer
// figures, whatever the backend. The type is the group-resource of the key (/registry/<group>/<resource>/…):
// "pods", "deployments.apps", as kube labels it.
import type { StorageMetrics } from '../metrics/storage.js';
import type { Store } from './types.js';

/** kube's type label of a key: the resource, with its group unless it is core */
export function keyType(key: string): string {
  // '/registry/' is 10 characters
  const g = key.indexOf('/', 10);
  if (g < 0) return key.slice(10);
  const group = key.slice(10, g);
  const r = key.indexOf('/', g + 1);
  const resource = r < 0 ? key.slice(g + 1) : key.slice(g + 1, r);
  return group === 'core' ? resource : `${resource}.${group}`;
}

export function instrumentStore(store: Store, m: StorageMetrics): Store {
  const timed = <T>(operation: string, key: string, run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    return run().then(
      (v) => {
        m.record(operation, keyType(key), (performance.now() - t) / 1000);
        return v;
      },
      (e: unknown) => {
        m.record(operation, keyType(key), (performance.now() - t) / 1000, true);
        throw e;
      },
    );
  };
  const wrapped: Store = {
    create: (key, value) => timed('create', key, () => store.create(key, value)),
    get: (key, opts) => timed('get', key, () => store.get(key, opts)),
    update: (key, value, rev) => timed('update', key, () => store.update(key, value, rev)),
    delete: (key, opts) => timed('delete', key, () => store.delete(key, opts)),
    list: (prefix, opts) => timed('list', prefix, () => store.list(prefix, opts)),
    count: (prefix) => timed('count', prefix, () => store.count(prefix)),
    watch: (prefix, opts, onEvent) => store.watch(prefix, opts, onEvent),
    compact: (rev) => store.compact(rev),
    currentRevision: () => store.currentRevision(),
    compactedRevision: () => store.compactedRevision(),
    close: () => store.close(),
  };
  if (store.revision) wrapped.revision = (key) => timed('get', key, () => store.revision!(key));
  if (store.watched) wrapped.watched = (key) => store.watched!(key);
  // encryption at rest: an unchanged update still rewrites a value stored under an older key
  if (store.stale) wrapped.stale = (key, modRevision) => store.stale!(key, modRevision);
  return wrapped;
}

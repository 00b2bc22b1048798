// The cache half of an informer: objects by key, named indexes over them and event handlers told of every change.
// Informer fills it from list + watch; the cluster DNS worker's mirror fills it from the main thread's messages.
import type { KObject } from '../api/types.js';

export interface InformerHandler {
  add?(obj: KObject): void;
  update?(oldObj: KObject, newObj: KObject): void;
  delete?(obj: KObject): void;
}

export type IndexFunc = (obj: KObject) => string[];

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (cache.MetaNamespaceKeyFunc). */
export function objectKey(obj: { metadata: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name}` : obj.metadata.name!;
}

export class IndexedCache {
  protected readonly items = new Map<string, KObject>();
  protected readonly handlers: InformerHandler[] = [];
  private readonly indexers = new Map<string, IndexFunc>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  /** `onHandlerError`: a throwing handler is reported there and the others still run (default: it throws) */
  constructor(private readonly onHandlerError?: (e: unknown) => void) {}

  addIndex(name: string, fn: IndexFunc): void {
    if (this.indexers.has(name)) return;
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indexes.set(name, idx);
    for (const [k, o] of this.items) for (const v of fn(o)) addTo(idx, v, k);
  }

  get(namespace: string, name: string): KObject | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): KObject | undefined {
    return this.items.get(key);
  }

  byIndex(index: string, value: string): KObject[] {
    const keys = this.indexes.get(index)?.get(value);
    if (!keys) return [];
    const out: KObject[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  get size(): number {
    return this.items.size;
  }

  /** Stores `obj` under `key` and tells the handlers (add, or update with the object it replaces). */
  protected store(key: string, obj: KObject): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const idx = this.indexes.get(name)!;
      const next = fn(obj);
      if (old) {
        // most updates keep their index values (a status change keeps the namespace and node): nothing to move
        const prev = fn(old);
        if (sameValues(prev, next)) continue;
        for (const v of prev) removeFrom(idx, v, key);
      }
      for (const v of next) addTo(idx, v, key);
    }
    this.notify((h) => (old ? h.update?.(old, obj) : h.add?.(obj)));
  }

  /** Drops `key` and tells the handlers with the cached object; nothing if it is not cached. */
  protected drop(key: string): void {
    const had = this.items.get(key);
    if (!had) return;
    this.unindex(key, had);
    this.items.delete(key);
    this.notify((h) => h.delete?.(had));
  }

  private notify(fn: (h: InformerHandler) => void): void {
    for (const h of this.handlers) {
      if (!this.onHandlerError) fn(h);
      else {
        try {
          fn(h);
        } catch (e) {
          this.onHandlerError(e);
        }
      }
    }
  }

  private unindex(key: string, obj: KObject): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indexes.get(name)!;
      for (const v of fn(obj)) removeFrom(idx, v, key);
    }
  }
}

function sameValues(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFrom(idx: Map<string, Set<string>>, v: string, key: string): void {
  const s = idx.get(v);
  if (!s) return;
  s.delete(key);
  if (!s.size) idx.delete(v);
}

function addTo(idx: Map<string, Set<string>>, v: string, key: string): void {
  let s = idx.get(v);
  if (!s) idx.set(v, (s = new Set()));
  s.add(key);
}

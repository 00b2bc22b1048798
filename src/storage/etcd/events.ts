// etcd's watch events as the store's: a put of a new key is ADDED (its version is 1), any other put MODIFIED, and a
// delete DELETED with the last value (etcd's prev_kv) and the tombstone's revision. Keys another program wrote under
// the root are left out.
import type { KeyValue, WatchEvent } from '../types.js';
import type { RawKeyValue } from './client.js';
import type { KeyLayout } from './keys.js';
import type { EtcdValues } from './values.js';
import type { RawEvent } from './watch-stream.js';

export function toWatchEvents(evs: RawEvent[], layout: KeyLayout, values: EtcdValues, prefix?: string): WatchEvent[] {
  const value = (key: string, kv: RawKeyValue): KeyValue => ({
    key,
    value: values.decodeOrEmpty(key, kv.value),
    modRevision: kv.mod_revision,
    createRevision: kv.create_revision,
  });
  const out: WatchEvent[] = [];
  for (const e of evs) {
    const key = layout.fromEtcd(e.kv.key.toString());
    if (key === undefined || (prefix !== undefined && !key.startsWith(prefix))) continue;
    const prev = e.prev_kv ? value(key, e.prev_kv) : undefined;
    if (e.type === 'DELETE') {
      const kv = { key, value: prev?.value ?? '', modRevision: e.kv.mod_revision, createRevision: prev?.createRevision ?? 0 };
      out.push(prev ? { type: 'DELETED', kv, prev } : { type: 'DELETED', kv });
      continue;
    }
    const kv = value(key, e.kv);
    if (e.kv.version === 1 || !prev) out.push({ type: e.kv.version === 1 ? 'ADDED' : 'MODIFIED', kv });
    else out.push({ type: 'MODIFIED', kv, prev });
  }
  return out;
}

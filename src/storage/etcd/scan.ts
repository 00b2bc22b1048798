// A list across several key translations (everything under /registry/, say): etcd's order of the translated keys is
// not k1s' order, so the whole root is read in one range (one revision) and the keys under prefix sorted back.
// Rare: the API lists one resource (one range) at a time.
import { compareKeys } from '../key-range.js';
import type { KeyValue } from '../types.js';
import type { EtcdClient, RawKeyValue } from './client.js';
import type { KeyLayout } from './keys.js';

export async function scanRoot(
  client: EtcdClient,
  layout: KeyLayout,
  prefix: string,
  revision: number,
  keysOnly: boolean,
  decoded: (key: string, kv: RawKeyValue) => KeyValue,
): Promise<{ kvs: KeyValue[]; revision: number; header: number }> {
  const root = layout.rootRange();
  const r = await client.range({ key: Buffer.from(root.start), range_end: root.end, revision, keys_only: keysOnly });
  const kvs: KeyValue[] = [];
  for (const kv of r.kvs) {
    const key = layout.fromEtcd(kv.key.toString());
    if (key === undefined || !key.startsWith(prefix)) continue;
    kvs.push(keysOnly ? { key, value: '', modRevision: kv.mod_revision, createRevision: kv.create_revision } : decoded(key, kv));
  }
  kvs.sort((a, b) => compareKeys(a.key, b.key));
  return { kvs, revision: revision || r.header.revision, header: r.header.revision };
}

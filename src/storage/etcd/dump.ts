// Dumping k1s' keys out of etcd and loading a dump into etcd (see ../dump.ts). A dump is a logical copy: every key
// under the prefix read at one revision, in pages (Range with a limit, each page at the first page's revision). A
// load puts each key on its own (one revision per object, as k1s writes them), only where the key does not exist,
// and then marks the new revision compacted, as `etcdutl snapshot restore --mark-compacted` does: the copied
// objects have new resourceVersions, and a client still holding one of the old cluster's gets 410 Gone (or "Too
// large resource version") and relists, instead of resuming a watch in the middle of the load.
import { storedFromBytes, bytesFromStored, type Dump, type DumpRow } from '../dump.js';
import { StoreError } from '../types.js';
import type { EtcdClient } from './client.js';
import { prefixEnd, type KeyLayout } from './keys.js';

/** Keys under the prefix that k1s did not write (another program's), which a dump leaves out. */
export interface EtcdDump extends Dump {
  skipped: number;
}

/** Every k1s key under layout's root at etcd's current revision. */
export async function dumpEtcd(client: EtcdClient, layout: KeyLayout, opts: { pageSize?: number } = {}): Promise<EtcdDump> {
  const limit = opts.pageSize ?? 500;
  const root = layout.rootRange();
  const first = await client.range({ key: Buffer.from(root.start), range_end: root.end, limit });
  const revision = first.header.revision;
  const dump: EtcdDump = {
    revision,
    skipped: 0,
    async *pages() {
      let r = first;
      for (;;) {
        const page: DumpRow[] = [];
        for (const kv of r.kvs) {
          const key = layout.fromEtcd(kv.key.toString());
          if (key === undefined) dump.skipped++;
          else page.push({ key, value: storedFromBytes(kv.value), modRevision: kv.mod_revision, createRevision: kv.create_revision });
        }
        if (page.length) yield page;
        if (!r.more || !r.kvs.length) return;
        // the next page starts just after the last key, at the same revision
        const next = Buffer.concat([r.kvs[r.kvs.length - 1]!.key, Buffer.from([0])]);
        r = await client.range({ key: next, range_end: root.end, limit, revision });
      }
    },
  };
  return dump;
}

/** How many keys (k1s' or not) are under layout's root. */
export async function countEtcd(client: EtcdClient, layout: KeyLayout): Promise<number> {
  const root = layout.rootRange();
  return (await client.range({ key: Buffer.from(root.start), range_end: root.end, count_only: true })).count;
}

/** Deletes every key under layout's root (a forced load's first step); returns how many. */
export async function clearEtcd(client: EtcdClient, layout: KeyLayout): Promise<number> {
  const root = layout.rootRange();
  return (await client.deleteRange({ key: Buffer.from(root.start), range_end: root.end })).deleted;
}

/**
 * Loads a dump under layout's root, `concurrency` puts in flight. Fails when a key exists already (a server or
 * another load writing there meanwhile): the caller checked the prefix was empty.
 */
export async function loadEtcd(
  client: EtcdClient,
  layout: KeyLayout,
  dump: Dump,
  opts: { concurrency?: number; onPage?: (copied: number) => void } = {},
): Promise<{ copied: number; revision: number }> {
  const concurrency = opts.concurrency ?? 64;
  let copied = 0;
  let revision = 0;
  const put = async (row: DumpRow) => {
    const key = Buffer.from(layout.toEtcd(row.key));
    const r = await client.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
      success: [{ request_put: { key, value: bytesFromStored(row.value) } }],
      failure: [],
    });
    if (!r.succeeded) throw new Error(`${layout.toEtcd(row.key)} exists in etcd already: is a server or another copy writing there?`);
    revision = Math.max(revision, r.header.revision);
  };
  // a window of puts in flight across pages (etcd commits them in shared raft batches)
  const inflight = new Set<Promise<void>>();
  let failed: unknown;
  for await (const page of dump.pages()) {
    for (const row of page) {
      while (inflight.size >= concurrency) await Promise.race(inflight);
      if (failed) throw failed;
      const p: Promise<void> = put(row).then(
        () => void inflight.delete(p),
        (e: unknown) => {
          inflight.delete(p);
          failed ??= e;
        },
      );
      inflight.add(p);
    }
    copied += page.length;
    opts.onPage?.(copied - inflight.size);
  }
  await Promise.all(inflight);
  if (failed) throw failed;
  opts.onPage?.(copied);
  if (!revision) revision = (await client.range({ key: Buffer.from(layout.root), range_end: prefixEnd(layout.root), count_only: true })).header.revision;
  try {
    await client.compact(revision);
  } catch (e) {
    // compacted further already (by another user of the same etcd): the old revisions are gone all the same
    if (!(e instanceof StoreError && e.code === 'Compacted')) throw e;
  }
  return { copied, revision };
}

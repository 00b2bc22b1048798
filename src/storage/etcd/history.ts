// Every revision etcd still holds of one key (back to its compaction), for `k1s history`: the key's value at the
// compacted revision, then a watch of the key from just after it, which etcd answers with each later put and delete
// (prev_kv: a delete's last value). The watch ends at the key's latest revision when it exists; when it has been
// deleted there is no such mark (etcd 3.4's progress answers do not wait for the watcher to catch up), so it ends
// once no event has come for `quietMs` after a delete.
import type { StoredValue } from '../sqlite/reads.js';
import { storedFromBytes } from '../dump.js';
import { StoreError } from '../types.js';
import type { EtcdClient, RawKeyValue } from './client.js';
import { findCompacted } from './compacted-revision.js';
import type { RawEvent } from './watch-stream.js';

/** One revision of a key, as SQLite's log holds it. */
export interface KeyRevision {
  revision: number;
  createRevision: number;
  deleted: boolean;
  value: StoredValue;
}

const put = (kv: RawKeyValue): KeyRevision => ({ revision: kv.mod_revision, createRevision: kv.create_revision, deleted: false, value: storedFromBytes(kv.value) });

export async function etcdKeyHistory(client: EtcdClient, etcdKey: string, opts: { timeoutMs?: number; quietMs?: number } = {}): Promise<KeyRevision[]> {
  const key = Buffer.from(etcdKey);
  const now = await client.range({ key });
  const current = now.header.revision;
  const latest = now.kvs[0];
  const compacted = await findCompacted(client, key, current);
  const out: KeyRevision[] = [];
  if (compacted) {
    const base = (await client.range({ key, revision: compacted })).kvs[0];
    if (base) out.push(put(base));
  }
  if (latest && latest.mod_revision <= compacted) return out;
  if (compacted + 1 > current) return out;
  const events = await watchUntil(client, key, compacted + 1, latest?.mod_revision, opts.timeoutMs ?? 10_000, opts.quietMs ?? 500);
  for (const e of events) {
    if (e.type === 'DELETE') {
      out.push({ revision: e.kv.mod_revision, createRevision: e.prev_kv?.create_revision ?? 0, deleted: true, value: e.prev_kv ? storedFromBytes(e.prev_kv.value) : '' });
    } else out.push(put(e.kv));
  }
  return out;
}

/** The key's events from `start`: up to revision `last` when given, else until quiet after a delete. */
function watchUntil(client: EtcdClient, key: Buffer, start: number, last: number | undefined, timeoutMs: number, quietMs: number): Promise<RawEvent[]> {
  const stream = client.openWatch();
  const events: RawEvent[] = [];
  return new Promise<RawEvent[]>((resolve, reject) => {
    let quiet: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(quiet);
      stream.removeAllListeners('data');
      stream.on('error', () => {}); // the cancel below ends the call with an error: expected
      stream.cancel();
      if (err) reject(err);
      else resolve(events);
    };
    const deadline = setTimeout(() => finish(new StoreError('Unavailable', `etcd did not send the history of ${key.toString()} within ${timeoutMs} ms`)), timeoutMs);
    const waitQuiet = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(), quietMs);
    };
    stream.on('data', (r: { created: boolean; canceled: boolean; cancel_reason: string; compact_revision: number; events: RawEvent[] }) => {
      if (r.canceled) return finish(new StoreError('Compacted', `etcd compacted the history of ${key.toString()} meanwhile (${r.cancel_reason || r.compact_revision})`));
      if (r.created && last === undefined) waitQuiet();
      if (!r.events.length) return;
      events.push(...r.events);
      const end = r.events[r.events.length - 1]!;
      if (last !== undefined) {
        if (end.kv.mod_revision >= last) finish();
      } else if (end.type === 'DELETE') waitQuiet();
      else clearTimeout(quiet);
    });
    stream.on('error', (e: Error) => finish(new StoreError('Unavailable', `etcd ${client.endpoint}: ${e.message}`)));
    stream.write({ create_request: { key, start_revision: start, prev_kv: true } });
  });
}

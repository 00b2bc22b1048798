// `k1s history KIND/NAME [-n NS]`: every stored revision of one object, read from the store's revision log (until
// compaction drops old ones), as the first version in full and then a diff per revision with who made it (the
// field managers whose managedFields entries changed). The log is read directly from the database file: with the
// WAL a reader does not block the running server. A cluster on etcd (DATA-DIR/db/etcd.json) is read from etcd, which
// keeps every revision of a key until compaction (../storage/etcd/history.ts).
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import { builtinResources } from '../api/index.js';
import { YAML } from '../machinery/yaml.js';
import { clusterInfo, resolveName } from './clusters.js';
import { openStoreReadonly } from './snapshot.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { storedFromBytes } from '../storage/dump.js';
import { readDatastoreMarker, type DatastoreOptions } from '../cluster/datastore.js';
import { EtcdClient } from '../storage/etcd/client.js';
import { etcdKeyHistory, type KeyRevision } from '../storage/etcd/history.js';
import { KeyLayout } from '../storage/etcd/keys.js';
import { loadEncryptionConfig } from '../apiserver/encryption/config.js';
import { KeyTransformers } from '../storage/encryption/key-transformers.js';
import { secretsEncryptionConfigPath } from '../cluster/secrets-encryption.js';

export interface ResourceRef {
  /** key prefix of its objects, e.g. /registry/apps/deployments/ */
  prefix: string;
  namespaced: boolean;
  kind: string;
}

interface Names {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  shortNames?: string[];
  namespaced: boolean;
  storedAs?: { group: string; plural: string };
}

function matches(n: Names, word: string): boolean {
  const w = word.toLowerCase();
  const [res, ...groupParts] = w.split('.');
  const group = groupParts.join('.');
  if (group && group !== n.group) return false;
  return [n.plural, n.singular, n.kind.toLowerCase(), ...(n.shortNames ?? [])].includes(res);
}

const CRDS = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

/** The stored CustomResourceDefinitions of a SQLite store. */
function sqliteCrds(db: Database.Database): (string | Uint8Array)[] {
  return db.prepare("SELECT l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key >= ? AND c.key < ?").pluck().all(CRDS, `${CRDS.slice(0, -1)}0`) as (string | Uint8Array)[];
}

/**
 * Resolves a kubectl-style resource word (pods, po, Deployment, deployments.apps, a CRD's names) to its keys; the
 * cluster's CRDs are read from its SQLite database, or given as their stored values.
 */
export function resolveResource(word: string, crds?: Database.Database | (string | Uint8Array)[]): ResourceRef | undefined {
  const candidates: Names[] = builtinResources().filter((d) => !d.virtual);
  if (crds) {
    // CustomResourceDefinitions of the cluster
    const rows = Array.isArray(crds) ? crds : sqliteCrds(crds);
    for (const v of rows) {
      if (typeof v !== 'string') continue; // encrypted at rest ('*.*'): its names are not readable here
      const crd = JSON.parse(v) as { spec: { group: string; scope: string; names: { plural: string; singular?: string; kind: string; shortNames?: string[] } } };
      const n = crd.spec.names;
      candidates.push({ group: crd.spec.group, plural: n.plural, singular: n.singular ?? n.kind.toLowerCase(), kind: n.kind, shortNames: n.shortNames, namespaced: crd.spec.scope === 'Namespaced' });
    }
  }
  // the preferred group wins, as kubectl's (events before events.k8s.io, autoscaling/v2 before v1: same storage)
  const found = candidates.find((n) => matches(n, word));
  if (!found) return undefined;
  const g = found.storedAs?.group ?? found.group;
  const p = found.storedAs?.plural ?? found.plural;
  return { prefix: `/registry/${g || 'core'}/${p}/`, namespaced: found.namespaced, kind: found.kind };
}

/** The cluster's encryption configuration as a decoder (--secrets-encryption, --encryption-provider-config). */
function encryptionDecoder(dataDir: string, serverArgs: string[]): HistoryDecoder | undefined {
  const i = serverArgs.indexOf('--encryption-provider-config');
  // a data dir of k1s server has no stored flags: its --secrets-encryption configuration is found where it lives
  const own = serverArgs.includes('--secrets-encryption') || (i < 0 && existsSync(secretsEncryptionConfigPath(dataDir)));
  const path = own ? secretsEncryptionConfigPath(dataDir) : i >= 0 ? serverArgs[i + 1] : undefined;
  if (!path || !existsSync(path)) return undefined;
  try {
    const t = new KeyTransformers(loadEncryptionConfig(path).overrides);
    return (key, stored) => t.decode(key, stored);
  } catch {
    return undefined;
  }
}

export interface Revision {
  revision: number;
  createRevision: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Record<string, unknown>;
}

/** Every revision of key in the log, oldest first (a deleted and re-created object continues its chain). */
/** A stored value → its JSON text (decrypting values encrypted at rest); throws when it cannot. */
export type HistoryDecoder = (key: string, stored: string | Uint8Array) => string;

/** The revision's object, or for a value that cannot be decrypted here, which provider and key it is stored under. */
function objectOf(key: string, stored: string | Uint8Array, decode?: HistoryDecoder): Record<string, unknown> {
  if (typeof stored === 'string') return JSON.parse(stored) as Record<string, unknown>;
  try {
    return JSON.parse(decode ? decode(key, stored) : Buffer.from(stored).toString()) as Record<string, unknown>;
  } catch {
    const prefix = /^k8s:enc:[a-z0-9]+:v1:[^:]+/.exec(Buffer.from(stored).subarray(0, 128).toString('latin1'));
    return { encrypted: prefix ? prefix[0] : 'unreadable' };
  }
}

export function readHistory(db: Database.Database, key: string, decode?: HistoryDecoder): Revision[] {
  const rows = db.prepare('SELECT rev, create_rev, prev_rev, deleted, value FROM log WHERE key = ? ORDER BY rev').all(key) as {
    rev: number;
    create_rev: number;
    prev_rev: number;
    deleted: number;
    value: string | Uint8Array;
  }[];
  return toRevisions(rows.map((r) => ({ revision: r.rev, createRevision: r.create_rev, deleted: !!r.deleted, value: r.value })), key, decode);
}

export function toRevisions(rows: KeyRevision[], key: string, decode?: HistoryDecoder): Revision[] {
  return rows.map((r) => ({
    revision: r.revision,
    createRevision: r.createRevision,
    type: r.deleted ? 'DELETED' : r.createRevision === r.revision ? 'ADDED' : 'MODIFIED',
    object: objectOf(key, r.value, decode),
  }));
}

/** Where the history is read: the data dir's SQLite file, or the etcd it names. */
interface HistorySource {
  crds(): Promise<(string | Uint8Array)[]>;
  revisions(key: string, decode?: HistoryDecoder): Promise<Revision[]>;
  close(): void;
}

function sqliteSource(dbPath: string): HistorySource {
  const db = openStoreReadonly(dbPath);
  return { crds: async () => sqliteCrds(db), revisions: async (key, decode) => readHistory(db, key, decode), close: () => db.close() };
}

function etcdSource(ds: DatastoreOptions): HistorySource {
  const client = new EtcdClient({ ...ds, timeoutMs: ds.timeoutMs ?? 5000 });
  const layout = new KeyLayout(ds.prefix);
  return {
    crds: async () => {
      const range = layout.range(CRDS)!;
      return (await client.range({ key: Buffer.from(range.start), range_end: range.end })).kvs.map((kv) => storedFromBytes(kv.value));
    },
    revisions: async (key, decode) => toRevisions(await etcdKeyHistory(client, layout.toEtcd(key)), key, decode),
    close: () => client.close(),
  };
}

interface ManagedEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: string;
}

function managedFields(o: Record<string, unknown>): ManagedEntry[] {
  return ((o.metadata as { managedFields?: ManagedEntry[] })?.managedFields ?? []) as ManagedEntry[];
}

/**
 * The field managers that made this revision: entries that are new or carry a new time. (An entry that only lost
 * fields to another manager keeps its time: that manager did nothing.)
 */
export function changedManagers(prev: Record<string, unknown> | undefined, next: Record<string, unknown>): string[] {
  const id = (e: ManagedEntry) => `${e.manager ?? '?'} (${e.operation ?? '?'}${e.subresource ? ` ${e.subresource}` : ''})`;
  const before = new Map(managedFields(prev ?? {}).map((e) => [id(e), e.time]));
  const out = new Set<string>();
  for (const e of managedFields(next)) {
    if (!before.has(id(e)) || before.get(id(e)) !== e.time) out.add(id(e));
  }
  return [...out];
}

function render(o: Record<string, unknown>, opts: { managedFields: boolean }): string[] {
  let obj = o;
  if (!opts.managedFields && (o.metadata as Record<string, unknown>)?.managedFields) {
    const { managedFields: _drop, ...meta } = o.metadata as Record<string, unknown>;
    obj = { ...o, metadata: meta };
  }
  return YAML.stringify(obj).trimEnd().split('\n');
}

/** A unified diff of two line lists with `context` lines around changes (LCS; large inputs compare as a whole). */
export function lineDiff(a: string[], b: string[], context = 3): string[] {
  const n = a.length;
  const m = b.length;
  const ops: { t: ' ' | '-' | '+'; line: string }[] = [];
  if (n * m > 4_000_000) {
    for (const l of a) ops.push({ t: '-', line: l });
    for (const l of b) ops.push({ t: '+', line: l });
  } else {
    // lcs[i][j] = LCS length of a[i:] and b[j:]
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) {
        ops.push({ t: ' ', line: a[i++] });
        j++;
      } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ t: '-', line: a[i++] });
      else ops.push({ t: '+', line: b[j++] });
    }
  }
  if (ops.every((o) => o.t === ' ')) return [];
  const keep = ops.map((op, k) => op.t !== ' ' || ops.slice(Math.max(0, k - context), k + context + 1).some((o) => o.t !== ' '));
  const out: string[] = [];
  let skipped = false;
  ops.forEach((op, k) => {
    if (!keep[k]) {
      skipped = true;
      return;
    }
    if (skipped || (out.length === 0 && k > 0)) out.push('  ...');
    skipped = false;
    out.push(`${op.t} ${op.line}`);
  });
  if (skipped) out.push('  ...');
  return out;
}

/** The history as text: the first revision in full, then per revision its type, managers and diff. */
export function formatHistory(revs: Revision[], opts: { managedFields?: boolean } = {}): string {
  const r = { managedFields: opts.managedFields ?? false };
  const out: string[] = [];
  let prev: Revision | undefined;
  for (const rev of revs) {
    const who = rev.type === 'DELETED' ? [] : changedManagers(prev?.type === 'DELETED' ? undefined : prev?.object, rev.object);
    out.push(`=== revision ${rev.revision} ${rev.type}${who.length ? ` by ${who.join(', ')}` : ''}`);
    if (rev.type === 'DELETED') {
      // nothing changes in the object itself; deletionTimestamp/finalizers show in the revisions before
    } else if (!prev || prev.type === 'DELETED') out.push(...render(rev.object, r).map((l) => `  ${l}`));
    else {
      const d = lineDiff(render(prev.object, r), render(rev.object, r));
      out.push(...(d.length ? d : ['  (no change outside managedFields)']));
    }
    prev = rev;
  }
  return out.join('\n');
}

const help = `Usage: k1s history KIND/NAME [flags]

Shows every stored revision of an object from the cluster's revision log (back to the last compaction, about five
minutes of history for objects that changed since), with a diff between consecutive revisions and the field
managers that made each one. Works while the cluster runs, on SQLite and on etcd.

Examples:
  k1s history deployment/web
  k1s history pods/web-5d8f7-abcde -n shop
  k1s history node/k1s-sim-0 --name dev --show-managed-fields

Flags:
  -n, --namespace NS       namespace of a namespaced object (default "default")
  --name NAME              the cluster (default k1s)
  --data-dir DIR           the data dir of a cluster run with k1s server, instead of a name
  --show-managed-fields    include metadata.managedFields in the output
  -o, --output F           text (default) or json (the revisions as stored)
  -h, --help               show this help`;

export async function historyCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        namespace: { type: 'string', short: 'n' },
        name: { type: 'string' },
        'data-dir': { type: 'string' },
        'show-managed-fields': { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`k1s history: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  let kind: string | undefined;
  let objName: string | undefined;
  if (positionals.length === 1 && positionals[0].includes('/')) [kind, objName] = positionals[0].split('/', 2);
  else if (positionals.length === 2) [kind, objName] = positionals;
  const r = resolveName(undefined, values.name);
  if (!kind || !objName || 'error' in r || (values.output && !['text', 'json'].includes(values.output))) {
    console.error(`k1s history: ${'error' in r ? r.error : 'say which object: KIND/NAME, e.g. deployment/web'}\n\n${help}`);
    return 2;
  }
  if (values['data-dir'] && values.name) {
    console.error(`k1s history: give a cluster name or --data-dir, not both\n\n${help}`);
    return 2;
  }
  const info = values['data-dir'] ? { paths: { dir: resolve(values['data-dir']) }, state: undefined } : clusterInfo(r.name);
  const dataDir = info.paths.dir;
  let source: HistorySource;
  try {
    const etcd = readDatastoreMarker(dataDir);
    source = etcd ? etcdSource(etcd) : sqliteSource(join(dataDir, 'db', 'state.db'));
  } catch (e) {
    console.error(`k1s history: ${(e as Error).message}`);
    return 1;
  }
  try {
    const ref = resolveResource(kind, await source.crds());
    if (!ref) {
      console.error(`k1s history: the server doesn't have a resource type "${kind}" (see kubectl api-resources)`);
      return 1;
    }
    const ns = values.namespace ?? 'default';
    const key = ref.namespaced ? `${ref.prefix}${ns}/${objName}` : `${ref.prefix}${objName}`;
    const revs = await source.revisions(key, encryptionDecoder(dataDir, info.state?.serverArgs ?? []));
    if (!revs.length) {
      const where = ref.namespaced ? ` in namespace "${ns}"` : '';
      console.error(`k1s history: no stored revisions of ${ref.kind} "${objName}"${where} (wrong namespace? use -n; or compacted away)`);
      return 1;
    }
    if (values.output === 'json') console.log(JSON.stringify(revs, null, 2));
    else console.log(formatHistory(revs, { managedFields: values['show-managed-fields'] }));
    return 0;
  } catch (e) {
    console.error(`k1s history: ${(e as Error).message}`);
    return 1;
  } finally {
    source.close();
  }
}

// `k1s secrets-encrypt status|rotate|reencrypt|prune`: the Secrets encryption of a cluster run with
// --secrets-encryption (k3s' command of that name). Its key file lives in the data dir and the server follows it;
// reencrypt goes through the API as kube's own way does (every Secret replaced unchanged: the server rewrites
// those stored under an older key), and which key each Secret is stored under is read from the database file
// (a WAL reader does not block the running server), or from etcd for a cluster on etcd (DATA-DIR/db/etcd.json).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpClient } from '../client/http.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { dataDirTarget, type DataDirTarget } from './clusters.js';
import { openStoreReadonly } from './snapshot.js';
import { readDatastoreMarker } from '../cluster/datastore.js';
import { EtcdClient } from '../storage/etcd/client.js';
import { KeyLayout } from '../storage/etcd/keys.js';
import { formatTable } from './status.js';
import {
  newKey,
  readSecretsConfig,
  secretsConfig,
  secretsEncryptionConfigPath,
  secretsKeys,
  writeSecretsConfig,
} from '../cluster/secrets-encryption.js';

const help = `Usage: k1s secrets-encrypt <status|rotate|reencrypt|prune> [NAME] [flags]

Manages the encryption at rest of Secrets of a cluster started with --secrets-encryption ("k1s start --secrets-encryption"
or "k1s server --secrets-encryption"): an aescbc key in DATA-DIR/cred/encryption-config.json, which the running
server follows (no restart needed).

Commands:
  status     whether Secrets are encrypted, the active key, and how many Secrets are stored under each key
  rotate     a new key, first: new and updated Secrets are encrypted with it; the old keys stay for reading
  reencrypt  rewrites every Secret through the API, so that all are stored under the active key
  prune      drops the keys no Secret is stored under any more (after reencrypt)

Examples:
  k1s secrets-encrypt status
  k1s secrets-encrypt rotate && k1s secrets-encrypt reencrypt && k1s secrets-encrypt prune
  k1s secrets-encrypt status --data-dir /var/lib/k1s

Flags:
  --name NAME          the cluster started with k1s start (same as the NAME argument; default k1s)
  --data-dir DIR       the data dir of a cluster run with k1s server (default ~/.k1s, /var/lib/k1s as root)
  --kubeconfig FILE    reencrypt: the admin kubeconfig (default DATA-DIR/kubeconfig.yaml, else DATA-DIR/kubeconfig)
  -h, --help           show this help

Exit status: 0 done, 1 failed, 2 usage error.`;

const SECRETS = '/registry/core/secrets/';
const TYPES: Record<string, string> = { aescbc: 'AES-CBC', aesgcm: 'AES-GCM', secretbox: 'XSalsa20-Poly1305', identity: 'identity' };

/** Stored values' first bytes → how many are under each `provider:key` ("identity" for those not encrypted). */
function countByKey(heads: (string | Buffer)[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const h of heads) {
    const m = typeof h === 'string' ? null : /^k8s:enc:([a-z0-9]+):v1:([^:]+):/.exec(h.toString('latin1'));
    const k = m ? `${m[1]}:${m[2]}` : 'identity';
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** How many Secrets of a data dir's SQLite file are stored under each `provider:key`. */
export function secretsByKey(dataDir: string): Map<string, number> {
  const db = openStoreReadonly(join(dataDir, 'db', 'state.db'));
  try {
    const heads = db
      .prepare(`SELECT substr(l.value, 1, 128) FROM current c JOIN log l ON l.rev = c.rev WHERE c.key >= ? AND c.key < ?`)
      .pluck()
      .all(SECRETS, SECRETS.slice(0, -1) + '0') as (string | Buffer)[];
    return countByKey(heads);
  } finally {
    db.close();
  }
}

/** secretsByKey of the store the data dir's state is in: its SQLite file, or the etcd it names. */
export async function storedSecretsByKey(dataDir: string): Promise<Map<string, number>> {
  const etcd = readDatastoreMarker(dataDir);
  if (!etcd) return existsSync(join(dataDir, 'db', 'state.db')) ? secretsByKey(dataDir) : new Map();
  const client = new EtcdClient({ ...etcd, timeoutMs: 5000 });
  try {
    const range = new KeyLayout(etcd.prefix).range(SECRETS)!;
    const r = await client.range({ key: Buffer.from(range.start), range_end: range.end });
    const enc = Buffer.from('k8s:enc:');
    return countByKey(r.kvs.map((kv) => (kv.value.subarray(0, enc.length).equals(enc) ? kv.value.subarray(0, 128) : '')));
  } finally {
    client.close();
  }
}

async function status(t: DataDirTarget): Promise<number> {
  const path = secretsEncryptionConfigPath(t.dataDir);
  if (!existsSync(path)) {
    console.log('Encryption Status: Disabled (no --secrets-encryption key in this data dir)');
    return 0;
  }
  const keys = secretsKeys(readSecretsConfig(path));
  const counts = await storedSecretsByKey(t.dataDir);
  console.log('Encryption Status: Enabled');
  console.log(`Configuration: ${path}`);
  console.log(`Active Key: ${keys[0]?.name ?? '(none)'}\n`);
  const rows = keys.map((k, i) => [i === 0 ? ' *' : '', TYPES.aescbc!, k.name ?? '', String(counts.get(`aescbc:${k.name}`) ?? 0)]);
  rows.push(['', TYPES.identity!, '(not encrypted)', String(counts.get('identity') ?? 0)]);
  const listed = new Set(['identity', ...keys.map((k) => `aescbc:${k.name}`)]);
  for (const [k, n] of counts) {
    if (listed.has(k)) continue;
    const [p, name] = k.split(':');
    rows.push(['', TYPES[p!] ?? p!, `${name} (not in the configuration: unreadable)`, String(n)]);
  }
  console.log(formatTable(['ACTIVE', 'KEY TYPE', 'NAME', 'SECRETS'], rows));
  return 0;
}

function configOrFail(t: DataDirTarget, verb: string): { path: string; keys: ReturnType<typeof secretsKeys> } | undefined {
  const path = secretsEncryptionConfigPath(t.dataDir);
  if (!existsSync(path)) {
    console.error(`k1s secrets-encrypt ${verb}: ${path} does not exist: start the cluster with --secrets-encryption first`);
    return undefined;
  }
  return { path, keys: secretsKeys(readSecretsConfig(path)) };
}

/** The server follows the file; SIGHUP makes it re-read it at once when its pid is known. */
function tellServer(t: DataDirTarget): void {
  if (t.running) process.kill(t.running.pid, 'SIGHUP');
}

function rotate(t: DataDirTarget): number {
  const c = configOrFail(t, 'rotate');
  if (!c) return 1;
  const key = newKey(false);
  writeSecretsConfig(c.path, secretsConfig([key, ...c.keys]));
  tellServer(t);
  console.log(`new key ${key.name} is active: new and updated Secrets are encrypted with it; ${c.keys.length} older key(s) kept for reading`);
  console.log('next: "k1s secrets-encrypt reencrypt" rewrites the others, then "k1s secrets-encrypt prune" drops the old keys');
  return 0;
}

function kubeconfigOf(t: DataDirTarget, flag: string | undefined): string | undefined {
  if (flag) return resolve(flag);
  return [join(t.dataDir, 'kubeconfig.yaml'), join(t.dataDir, 'kubeconfig')].find((p) => existsSync(p));
}

async function reencrypt(t: DataDirTarget, kubeconfigFlag: string | undefined): Promise<number> {
  const c = configOrFail(t, 'reencrypt');
  if (!c) return 1;
  const kubeconfig = kubeconfigOf(t, kubeconfigFlag);
  if (!kubeconfig) {
    console.error(`k1s secrets-encrypt reencrypt: no kubeconfig in ${t.dataDir}: give the cluster's admin kubeconfig with --kubeconfig`);
    return 1;
  }
  const active = `aescbc:${c.keys[0]!.name}`;
  const client = new HttpClient(loadKubeconfig(kubeconfig), 'k1s-secrets-encrypt');
  const secrets = client.resource('v1', 'secrets');
  try {
    // the server may still be reading the rotated file: rewrite until every Secret is under the active key
    const deadline = Date.now() + 15_000;
    let rewritten = 0;
    for (;;) {
      const list = await secrets.list('');
      for (const s of list.items) {
        try {
          await secrets.update(s.metadata.namespace ?? '', { ...s, apiVersion: 'v1', kind: 'Secret' });
          rewritten++;
        } catch (e) {
          // changed or deleted meanwhile: its new revision was written with the active key
          if (!/Conflict|NotFound|the object has been modified|not found/i.test(String((e as Error).message))) throw e;
        }
      }
      const counts = await storedSecretsByKey(t.dataDir);
      const behind = [...counts].filter(([k]) => k !== active).reduce((n, [, v]) => n + v, 0);
      if (!behind) {
        console.log(`${list.items.length} Secrets stored under ${c.keys[0]!.name}`);
        return 0;
      }
      if (Date.now() > deadline) {
        console.error(`k1s secrets-encrypt reencrypt: ${behind} Secrets are still stored under other keys (${rewritten} replaced): is the server running with --secrets-encryption?`);
        return 1;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    client.close();
  }
}

async function prune(t: DataDirTarget): Promise<number> {
  const c = configOrFail(t, 'prune');
  if (!c) return 1;
  const counts = await storedSecretsByKey(t.dataDir);
  const old = c.keys.slice(1);
  const inUse = old.filter((k) => (counts.get(`aescbc:${k.name}`) ?? 0) > 0);
  if (inUse.length) {
    console.error(`k1s secrets-encrypt prune: Secrets are still stored under ${inUse.map((k) => k.name).join(', ')}: run "k1s secrets-encrypt reencrypt" first`);
    return 1;
  }
  writeSecretsConfig(c.path, secretsConfig([c.keys[0]!]));
  tellServer(t);
  console.log(old.length ? `dropped ${old.map((k) => k.name).join(', ')}; active key: ${c.keys[0]!.name}` : `nothing to drop; active key: ${c.keys[0]!.name}`);
  return 0;
}

export async function secretsEncryptCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'data-dir': { type: 'string' },
        kubeconfig: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (e) {
    console.error(`k1s secrets-encrypt: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const [verb, nameArg, ...rest] = positionals;
  if (!verb || !['status', 'rotate', 'reencrypt', 'prune'].includes(verb) || rest.length) {
    console.error(`k1s secrets-encrypt: ${verb ? `unknown command "${[verb, nameArg, ...rest].join(' ')}"` : 'a command is required'}\n\n${help}`);
    return 2;
  }
  const t = dataDirTarget(values['data-dir'], values.name ?? nameArg);
  try {
    if (verb === 'status') return await status(t);
    if (verb === 'rotate') return rotate(t);
    if (verb === 'prune') return await prune(t);
    return await reencrypt(t, values.kubeconfig);
  } catch (e) {
    console.error(`k1s secrets-encrypt ${verb}: ${(e as Error).message}`);
    return 1;
  }
}

// What makes several servers on one etcd one cluster, as k3s' bootstrap data does: the cluster CA, the
// service-account signing keys, the front-proxy CA and (with --secrets-encryption) the encryption configuration,
// kept in one etcd key outside the API's objects (<prefix>/_k1s/bootstrap), encrypted with a key derived from the
// cluster's token. The first server with a token writes it; later ones (and restarts) read it and put those files
// into their own data directory before the PKI is checked, so each server's serving certificate is issued by the
// shared CA with its own names.
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CERT_MODE, DIR_MODE, KEY_MODE, readIfExists, writeFileAtomic } from '../pki/fsutil.js';
import { EtcdClient, type RawKeyValue } from '../storage/etcd/client.js';
import { KeyLayout } from '../storage/etcd/keys.js';
import type { DatastoreOptions } from './datastore.js';
import { etcdUnreachable, StartRefused } from './start-refused.js';

/** the store key (etcd: <prefix>/_k1s/bootstrap) */
export const BOOTSTRAP_KEY = '/bootstrap';
/** the data directory's shared files, relative to it */
export const SHARED_FILES = [
  'tls/ca.crt',
  'tls/ca.key',
  'tls/service-account.key',
  'tls/service-account.pub',
  'tls/front-proxy-ca.crt',
  'tls/front-proxy-ca.key',
  'cred/encryption-config.json',
] as const;
const ENCRYPTION_FILE = 'cred/encryption-config.json';
/** the token a server was started with, so a restart without --token picks up where it was (k3s: server/token) */
export const TOKEN_FILE = 'cred/token';


interface Sealed {
  version: 1;
  kdf: 'scrypt';
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

// scrypt's cost: ~50 ms per start, what a guessed token costs too
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function deriveKey(token: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(token, salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The files, encrypted with AES-256-GCM under a key scrypt derives from the token (a fresh salt and IV each time). */
export async function sealBootstrap(files: Record<string, string>, token: string): Promise<string> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(token, salt), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(files), 'utf8'), cipher.final()]);
  const sealed: Sealed = { version: 1, kdf: 'scrypt', salt: salt.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  return JSON.stringify(sealed);
}

/** The files back; a wrong token fails GCM's authentication and refuses the start. */
export async function openBootstrap(text: string, token: string): Promise<Record<string, string>> {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(text) as Sealed;
    if (sealed.version !== 1 || sealed.kdf !== 'scrypt') throw new Error(`version ${sealed.version}`);
  } catch (e) {
    throw new StartRefused(`the datastore's bootstrap data is not k1s' (${(e as Error).message}): check --etcd-prefix`);
  }
  const b = (s: string) => Buffer.from(s, 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', await deriveKey(token, b(sealed.salt)), b(sealed.iv));
    decipher.setAuthTag(b(sealed.tag));
    const plain = Buffer.concat([decipher.update(b(sealed.data)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, string>;
  } catch {
    throw new StartRefused('the token does not match the one the cluster was created with: pass the first server\'s --token (or K1S_TOKEN, --token-file)');
  }
}

/** The token to use: the one given (saved for later starts), else the one saved by an earlier start. */
export async function resolveToken(dataDir: string, given: string | undefined): Promise<string | undefined> {
  const path = join(dataDir, TOKEN_FILE);
  const saved = (await readIfExists(path))?.trim();
  if (given === undefined) return saved || undefined;
  if (given !== saved) {
    await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
    await writeFileAtomic(path, `${given}\n`, KEY_MODE);
  }
  return given;
}

async function readShared(dataDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const f of SHARED_FILES) {
    const text = await readIfExists(join(dataDir, f));
    if (text !== null) files[f] = text;
  }
  return files;
}

/** Writes the cluster's files where they differ (keys 0600), saying which were replaced. */
async function writeShared(dataDir: string, files: Record<string, string>, log: (line: string) => void): Promise<void> {
  for (const f of SHARED_FILES) {
    const text = files[f];
    if (text === undefined) continue;
    const path = join(dataDir, f);
    const had = await readIfExists(path);
    if (had === text) continue;
    await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
    await writeFileAtomic(path, text, f.endsWith('.crt') ? CERT_MODE : KEY_MODE);
    if (had !== null) log(`k1s: ${path} replaced by the cluster's (from the datastore)`);
  }
}

/** --secrets-encryption must be the same on every server: a server that disagrees would write what others cannot read */
function checkEncryption(files: Record<string, string>, secretsEncryption: boolean): void {
  const shared = files[ENCRYPTION_FILE] !== undefined;
  if (shared && !secretsEncryption) throw new StartRefused('the cluster encrypts Secrets at rest (its first server runs with --secrets-encryption): start this server with --secrets-encryption too');
  if (!shared && secretsEncryption) throw new StartRefused('the cluster was created without --secrets-encryption: start this server without it (every server must agree)');
}

export interface SharedBootstrapOptions {
  dataDir: string;
  datastore: DatastoreOptions;
  /** the cluster's token (--token); without one the server keeps its own certificates, as before */
  token?: string;
  secretsEncryption?: boolean;
  log: (line: string) => void;
  /** creates this server's own PKI (and encryption configuration) in the data directory: what a first server shares */
  createLocal: () => Promise<void>;
}

/** 'created': this server's files are now the cluster's; 'joined': the cluster's are now in its data directory. */
export async function shareBootstrap(opts: SharedBootstrapOptions): Promise<'created' | 'joined' | 'standalone'> {
  const key = Buffer.from(new KeyLayout(opts.datastore.prefix).toEtcd(BOOTSTRAP_KEY));
  const client = new EtcdClient(opts.datastore);
  try {
    const existing = (
      await client.range({ key }).catch((e: Error) => {
        throw etcdUnreachable(opts.datastore.endpoints, e);
      })
    ).kvs[0]?.value.toString('utf8');
    if (!opts.token) {
      if (existing) opts.log('k1s: the datastore holds the bootstrap data of servers started with --token; this server keeps its own CA and keys: pass the same --token to join them');
      return 'standalone';
    }
    if (existing) return await joinWith(existing, opts);
    await opts.createLocal();
    const files = await readShared(opts.dataDir);
    // a configuration left from an earlier run with --secrets-encryption is not the cluster's
    if (!opts.secretsEncryption) delete files[ENCRYPTION_FILE];
    const value = Buffer.from(await sealBootstrap(files, opts.token));
    const r = await client.txn({
      compare: [{ key, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
      success: [{ request_put: { key, value } }],
      failure: [{ request_range: { key } }],
    });
    if (r.succeeded) {
      opts.log('k1s: cluster bootstrap data (CA, service-account keys) saved in the datastore, encrypted with the token');
      return 'created';
    }
    // another server started at the same moment and wrote first: its files win
    const theirs = (r.responses[0]?.response_range?.kvs as RawKeyValue[] | undefined)?.[0]?.value.toString('utf8');
    if (!theirs) throw new Error('the bootstrap data was written and removed while this server started: start it again');
    return await joinWith(theirs, opts);
  } finally {
    client.close();
  }
}

async function joinWith(sealed: string, opts: SharedBootstrapOptions): Promise<'joined'> {
  const files = await openBootstrap(sealed, opts.token!);
  checkEncryption(files, !!opts.secretsEncryption);
  await writeShared(opts.dataDir, files, opts.log);
  opts.log('k1s: joined the cluster in the datastore: its CA and service-account keys are in use');
  return 'joined';
}

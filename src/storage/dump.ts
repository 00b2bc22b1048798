// A logical copy of a store: every live key with its value exactly as stored (encrypted values stay encrypted: a
// copy needs no keys and re-encrypts nothing), read at one revision. SQLite and etcd dump into and load from this
// one shape (sqlite/dump.ts, etcd/dump.ts), which is what makes snapshots and migrations portable between them.
import type { StoredValue } from './sqlite/reads.js';

export interface DumpRow {
  /** k1s' key (/registry/<group>/<resource>/…), whatever the store's own layout */
  key: string;
  /** as stored: JSON text, or a transformer's k8s:enc:… bytes */
  value: StoredValue;
  modRevision: number;
  createRevision: number;
}

/** What a dump read: its revision, and its rows in pages (so a large store is never all in memory). */
export interface Dump {
  revision: number;
  pages(): AsyncIterable<DumpRow[]>;
}

const ENCRYPTED = Buffer.from('k8s:enc:');

/**
 * Bytes from etcd → SQLite's form: encrypted values are BLOBs there, plain ones TEXT (the transformers and
 * `secrets-encrypt status` tell them apart by that).
 */
export function storedFromBytes(bytes: Uint8Array): StoredValue {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.subarray(0, ENCRYPTED.length).equals(ENCRYPTED) ? b : b.toString('utf8');
}

/** SQLite's stored form → the bytes etcd holds (what EtcdValues.encode writes). */
export function bytesFromStored(value: StoredValue): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

// Values between the store's callers (plain JSON text) and etcd (bytes): with encryption at rest
// (--encryption-provider-config) a transformer's bytes, exactly what SQLite keeps in its BLOBs. The authenticated
// data is k1s' key, as on SQLite, so the configuration means the same on both stores.
import { identityRead, type KeyTransformers } from '../encryption/key-transformers.js';

export class EtcdValues {
  constructor(private readonly transformers: KeyTransformers | undefined) {}

  get plain(): boolean {
    return !this.transformers;
  }

  encode(key: string, value: string): Buffer {
    if (!this.transformers) return Buffer.from(value);
    const s = this.transformers.encode(key, value);
    return typeof s === 'string' ? Buffer.from(s) : s;
  }

  /** throws TransformError when the bytes cannot be read (encrypted without a configuration, or a lost key) */
  decode(key: string, stored: Buffer): string {
    if (this.transformers) return this.transformers.decode(key, stored);
    // without a configuration, encrypted values are refused as kube's identity transformer refuses them
    return Buffer.from(identityRead(stored)).toString();
  }

  /** decode() for a watch event, whose watcher gets '' (which decodes to nothing) rather than a failed stream */
  decodeOrEmpty(key: string, stored: Buffer): string {
    try {
      return this.decode(key, stored);
    } catch {
      return '';
    }
  }

  stale(key: string, stored: Buffer): boolean {
    if (!this.transformers) return false;
    try {
      return this.transformers.read(key, stored).stale;
    } catch {
      return false;
    }
  }
}

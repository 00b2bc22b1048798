// Values between the store's callers and the log: plain JSON text for callers, and in the log either that text
// or, with encryption at rest, a transformer's bytes (a BLOB). Encrypted on the way in, decrypted on the way out.
import { identityRead, type KeyTransformers } from '../encryption/key-transformers.js';
import type { KeyValue } from '../types.js';
import type { StoredKeyValue, StoredValue } from './reads.js';

export class StoredValues {
  constructor(private readonly transformers: KeyTransformers | undefined) {}

  /** whether values are stored as they are (no encryption configured) */
  get plain(): boolean {
    return !this.transformers;
  }

  /** The log's form of a value: undefined when it is the value itself. */
  encode(key: string, value: string): StoredValue | undefined {
    if (!this.transformers) return undefined;
    const s = this.transformers.encode(key, value);
    return s === value ? undefined : s;
  }

  /** A stored value → the value; throws TransformError when it cannot be read. */
  readonly decode = (key: string, stored: StoredValue): string => {
    if (this.transformers) return this.transformers.decode(key, stored);
    // without a configuration, encrypted values are refused as kube's identity transformer refuses them
    return typeof stored === 'string' ? stored : Buffer.from(identityRead(stored)).toString();
  };

  decoded(kv: StoredKeyValue): KeyValue {
    return typeof kv.value === 'string' && !this.transformers ? (kv as KeyValue) : { ...kv, value: this.decode(kv.key, kv.value) };
  }

  /** decoded() for an event's value, which a watcher gets as '' when it cannot be read (and then fails to decode) */
  decodedOrEmpty(kv: StoredKeyValue): KeyValue {
    try {
      return this.decoded(kv);
    } catch {
      return { ...kv, value: '' };
    }
  }

  /** Whether a stored value would be stored otherwise now (an older key or provider). */
  stale(key: string, stored: StoredValue): boolean {
    if (!this.transformers) return false;
    try {
      return this.transformers.read(key, stored).stale;
    } catch {
      return false; // unreadable: the read before the update has failed already
    }
  }
}

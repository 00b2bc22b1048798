// The identity provider: values stored as they are. It refuses to read encrypted ones, so that a later provider of
// the list does (identity first: decrypting everything back as it is written).
import type { FromStorage, Transformer } from './transformer.js';

export const ENCRYPTED_PREFIX = 'k8s:enc:';
const encrypted = Buffer.from(ENCRYPTED_PREFIX);

export class IdentityTransformer implements Transformer {
  fromStorage(data: Buffer): FromStorage {
    if (data.length >= encrypted.length && data.compare(encrypted, 0, encrypted.length, 0, encrypted.length) === 0) {
      throw new Error('identity transformer tried to read encrypted data');
    }
    return { data, stale: false };
  }

  toStorage(data: Buffer): Buffer {
    return data;
  }
}

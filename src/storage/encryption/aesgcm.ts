// The aesgcm provider: a random 12-byte nonce, then AES-GCM of the value sealed with its 16-byte tag, the storage
// key as authenticated data (a value copied under another key does not open).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FromStorage, Transformer } from './transformer.js';

const NONCE = 12;
const TAG = 16;

export class AesGcmTransformer implements Transformer {
  private readonly algorithm: 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm';

  constructor(private readonly key: Buffer) {
    this.algorithm = `aes-${key.length * 8}-gcm` as AesGcmTransformer['algorithm'];
  }

  fromStorage(data: Buffer, context: Buffer): FromStorage {
    if (data.length < NONCE) throw new Error('the stored data was shorter than the required size');
    // Go's Open fails the same way on a value too short for its tag
    if (data.length < NONCE + TAG) throw new Error('cipher: message authentication failed');
    const d = createDecipheriv(this.algorithm, this.key, data.subarray(0, NONCE), { authTagLength: TAG });
    d.setAAD(context);
    d.setAuthTag(data.subarray(data.length - TAG));
    try {
      return { data: Buffer.concat([d.update(data.subarray(NONCE, data.length - TAG)), d.final()]), stale: false };
    } catch {
      throw new Error('cipher: message authentication failed');
    }
  }

  toStorage(data: Buffer, context: Buffer): Buffer {
    const nonce = randomBytes(NONCE);
    const c = createCipheriv(this.algorithm, this.key, nonce, { authTagLength: TAG });
    c.setAAD(context);
    const body = Buffer.concat([c.update(data), c.final()]);
    return Buffer.concat([nonce, body, c.getAuthTag()]);
  }
}

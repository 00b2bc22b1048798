// The secretbox provider: a random 24-byte nonce, then NaCl secretbox (XSalsa20-Poly1305: 16-byte tag, then the
// ciphertext) of the value, as golang.org/x/crypto/nacl/secretbox seals it. node:crypto has no XSalsa20.
import { randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import type { FromStorage, Transformer } from './transformer.js';

const NONCE = 24;
const OVERHEAD = 16;

export class SecretboxTransformer implements Transformer {
  constructor(private readonly key: Buffer) {}

  fromStorage(data: Buffer): FromStorage {
    if (data.length < NONCE + OVERHEAD) throw new Error('the stored data was shorter than the required size');
    try {
      const out = xsalsa20poly1305(this.key, data.subarray(0, NONCE)).decrypt(data.subarray(NONCE));
      return { data: Buffer.from(out.buffer, out.byteOffset, out.byteLength), stale: false };
    } catch {
      // kube's own text for a box that does not open
      throw new Error('output array was not large enough for encryption');
    }
  }

  toStorage(data: Buffer): Buffer {
    const nonce = randomBytes(NONCE);
    const sealed = xsalsa20poly1305(this.key, nonce).encrypt(data);
    return Buffer.concat([nonce, sealed]);
  }
}

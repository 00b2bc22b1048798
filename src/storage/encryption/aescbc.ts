// The aescbc provider: a random 16-byte IV, then AES-CBC of the value with PKCS#7 padding (what kube writes after
// `k8s:enc:aescbc:v1:<key>:`). The padding is checked here, with kube's messages, rather than by OpenSSL.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FromStorage, Transformer } from './transformer.js';

const BLOCK = 16;

export class AesCbcTransformer implements Transformer {
  private readonly algorithm: string;

  constructor(private readonly key: Buffer) {
    this.algorithm = `aes-${key.length * 8}-cbc`;
  }

  fromStorage(data: Buffer): FromStorage {
    if (data.length < BLOCK) throw new Error('the stored data was shorter than the required size');
    const body = data.subarray(BLOCK);
    if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
    const d = createDecipheriv(this.algorithm, this.key, data.subarray(0, BLOCK)).setAutoPadding(false);
    const out = Buffer.concat([d.update(body), d.final()]);
    const pad = out.length ? out[out.length - 1]! : 0;
    if (pad === 0 || pad > out.length) throw new Error('invalid PKCS7 data (empty or not padded)');
    for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) throw new Error('invalid padding on input');
    return { data: out.subarray(0, out.length - pad), stale: false };
  }

  toStorage(data: Buffer): Buffer {
    const iv = randomBytes(BLOCK);
    const c = createCipheriv(this.algorithm, this.key, iv); // PKCS#7 padding is OpenSSL's default
    return Buffer.concat([iv, c.update(data), c.final()]);
  }
}

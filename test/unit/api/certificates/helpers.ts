// Builds PKCS#10 certificate signing requests for the CSR tests (node:crypto has no CSR builder).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const v of rest) {
    const out = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) out.unshift((x & 0x7f) | 0x80);
    bytes.push(...out);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const ALGS = {
  ec: { sigOid: '1.2.840.10045.4.3.2', hash: 'sha256' as string | null, params: [] as Buffer[] },
  rsa: { sigOid: '1.2.840.113549.1.1.11', hash: 'sha256' as string | null, params: [Buffer.from([0x05, 0x00])] },
  ed25519: { sigOid: '1.3.101.112', hash: null as string | null, params: [] as Buffer[] },
};

function keyPair(alg: keyof typeof ALGS): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg === 'ec') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (alg === 'rsa') return generateKeyPairSync('rsa', { modulusLength: 2048 });
  return generateKeyPairSync('ed25519');
}

/** A PEM "CERTIFICATE REQUEST" for CN=`cn`; `tamper` flips a signature byte. */
export function makeCSR(cn = 'jane', alg: keyof typeof ALGS = 'ec', tamper = false): string {
  const { privateKey, publicKey } = keyPair(alg);
  const name = tlv(0x30, tlv(0x31, tlv(0x30, oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn)))));
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const info = tlv(0x30, tlv(0x02, Buffer.from([0])), name, spki, Buffer.from([0xa0, 0x00]));
  const a = ALGS[alg];
  const signature = sign(a.hash, info, privateKey);
  if (tamper) signature[signature.length - 1] ^= 0xff;
  const der = tlv(0x30, info, tlv(0x30, oid(a.sigOid), ...a.params), tlv(0x03, Buffer.from([0]), signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');

// PEM and DER handling for CertificateSigningRequests, as kube-apiserver's validation sees them: Go's pem.Decode
// (first well-formed block, leading text skipped), certificates.ParseCSR + x509.CertificateRequest.CheckSignature,
// and the status.certificate check (validateCertificate in pkg/apis/certificates/validation). Structural ASN.1
// errors carry simplified texts: Go's encoding/asn1 messages name internal Go types.
import { createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

/** pem.Decode: the first complete block in `data` and what follows it; undefined when there is none. */
export function pemDecode(data: string): { block: PemBlock; rest: string } | undefined {
  let rest = data;
  for (;;) {
    const begin = rest.startsWith('-----BEGIN ') ? 0 : rest.indexOf('\n-----BEGIN ');
    if (begin < 0) return undefined;
    rest = rest.slice(begin === 0 ? 0 : begin + 1);
    const lineEnd = rest.indexOf('\n');
    const typeLine = (lineEnd < 0 ? rest : rest.slice(0, lineEnd)).replace(/[ \t\r]+$/, '');
    const after = lineEnd < 0 ? '' : rest.slice(lineEnd + 1);
    rest = rest.slice('-----BEGIN '.length);
    if (!typeLine.endsWith('-----') || typeLine.length < '-----BEGIN -----'.length) continue;
    const type = typeLine.slice('-----BEGIN '.length, -5);
    const endMarker = `-----END ${type}-----`;
    const endAt = after.startsWith(endMarker) ? 0 : after.indexOf(`\n${endMarker}`);
    if (endAt < 0) continue;
    const body = after.slice(0, endAt);
    const tail = after.slice(endAt === 0 ? endMarker.length : endAt + 1 + endMarker.length);
    const lines = body.split('\n');
    const headers: Record<string, string> = {};
    let i = 0;
    for (; i < lines.length && lines[i].includes(':'); i++) {
      const [k, ...v] = lines[i].split(':');
      headers[k.trim()] = v.join(':').trim();
    }
    const b64 = lines.slice(i).join('').replace(/[ \t\r\n]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) continue;
    const trailer = tail.match(/^[ \t\r]*(\n|$)/);
    if (!trailer) continue;
    return { block: { type, headers, bytes: Buffer.from(b64, 'base64') }, rest: tail.slice(trailer[0].length) };
  }
}

interface Tlv {
  tag: number;
  /** offset of the tag byte */
  start: number;
  /** offset of the first content byte */
  body: number;
  /** offset just after the content */
  end: number;
}

class AsnError extends Error {}

function readTlv(buf: Uint8Array, at: number): Tlv {
  if (at + 2 > buf.length) throw new AsnError('asn1: syntax error: data truncated');
  const tag = buf[at];
  let len = buf[at + 1];
  let body = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || body + n > buf.length) throw new AsnError('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[body + i];
    body += n;
  }
  if (body + len > buf.length) throw new AsnError('asn1: syntax error: data truncated');
  return { tag, start: at, body, end: body + len };
}

function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end; ) {
    const t = readTlv(buf, at);
    out.push(t);
    at = t.end;
  }
  return out;
}

function oidString(buf: Uint8Array, t: Tlv): string {
  const parts: number[] = [];
  let v = 0;
  for (let i = t.body; i < t.end; i++) {
    v = v * 128 + (buf[i] & 0x7f);
    if (!(buf[i] & 0x80)) {
      if (!parts.length) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

// Signature algorithms Go's x509 verifies for requests (SHA-1 is allowed for CSRs); RSA-PSS is not handled here.
const SIG_ALGS: Record<string, { hash: string | null; key: string }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', key: 'rsa' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', key: 'rsa' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', key: 'rsa' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', key: 'rsa' },
  '1.2.840.10045.4.1': { hash: 'sha1', key: 'ec' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', key: 'ec' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', key: 'ec' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', key: 'ec' },
  '1.3.101.112': { hash: null, key: 'ed25519' },
};

const VERIFY_FAILURE: Record<string, string> = {
  rsa: 'crypto/rsa: verification error',
  ec: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
};

/** x509.ParseCertificateRequest + CheckSignature on DER bytes; the error text, or undefined when valid. */
function checkRequestDer(der: Buffer): string | undefined {
  try {
    const outer = readTlv(der, 0);
    if (outer.tag !== 0x30) return 'x509: malformed certificate request';
    if (outer.end !== der.length) return 'asn1: syntax error: trailing data';
    const [info, alg, sig] = children(der, outer);
    if (!info || !alg || !sig || info.tag !== 0x30 || alg.tag !== 0x30 || sig.tag !== 0x03) return 'x509: malformed certificate request';
    const infoParts = children(der, info);
    if (infoParts.length < 3 || infoParts[0].tag !== 0x02 || infoParts[1].tag !== 0x30 || infoParts[2].tag !== 0x30) {
      return 'x509: malformed certificate request';
    }
    const spki = infoParts[2];
    const algOid = children(der, alg)[0];
    if (!algOid || algOid.tag !== 0x06) return 'x509: malformed certificate request';
    const sigAlg = SIG_ALGS[oidString(der, algOid)];
    if (der[sig.body] !== 0) return 'x509: malformed certificate request';
    let key: KeyObject;
    try {
      key = createPublicKey({ key: der.subarray(spki.start, spki.end), format: 'der', type: 'spki' });
    } catch {
      return 'x509: cannot verify signature: algorithm unimplemented';
    }
    if (!sigAlg) return 'x509: cannot verify signature: algorithm unimplemented';
    const keyType = key.asymmetricKeyType ?? '';
    if (keyType !== sigAlg.key) {
      const names: Record<string, string> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };
      const goTypes: Record<string, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };
      const algName = names[sigAlg.key];
      const goType = goTypes[keyType] ?? keyType;
      return `x509: signature algorithm specifies an ${algName} public key, but have public key of type ${goType}`;
    }
    const tbs = der.subarray(info.start, info.end);
    const signature = der.subarray(sig.body + 1, sig.end);
    const ok = verify(sigAlg.hash, tbs, key, signature);
    return ok ? undefined : VERIFY_FAILURE[sigAlg.key];
  } catch (e) {
    return e instanceof AsnError ? e.message : 'x509: malformed certificate request';
  }
}

/** certificates.ParseCSR + CheckSignature on the PEM text of spec.request: the error text, or undefined. */
export function csrRequestError(pem: Buffer): string | undefined {
  const decoded = pemDecode(pem.toString('latin1'));
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  return checkRequestDer(decoded.block.bytes);
}

/** validateCertificate: status.certificate must be one or more CERTIFICATE blocks without headers. */
export function certificateError(pem: Buffer): string | undefined {
  if (!pem.length) return undefined;
  let data = pem.toString('latin1');
  let blocks = 0;
  for (;;) {
    const decoded = pemDecode(data);
    if (!decoded) break;
    const { block } = decoded;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    if (Object.keys(block.headers).length) return 'no PEM block headers are permitted';
    blocks++;
    let count = 0;
    try {
      for (let at = 0; at < block.bytes.length; count++) {
        const t = readTlv(block.bytes, at);
        new X509Certificate(block.bytes.subarray(t.start, t.end));
        at = t.end;
      }
    } catch (e) {
      return e instanceof AsnError ? e.message : 'x509: malformed certificate';
    }
    if (!count) return 'found CERTIFICATE PEM block containing 0 certificates';
    data = decoded.rest;
  }
  return blocks ? undefined : 'must contain at least one CERTIFICATE PEM block';
}

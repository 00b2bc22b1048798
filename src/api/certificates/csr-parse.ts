// PEM and DER handling for CertificateSigningRequests, as kube-apiserver's validation sees them: Go's pem.Decode
// (first well-formed block, leading text skipped), certificates.ParseCSR + x509.CertificateRequest.CheckSignature,
// and the status.certificate check (validateCertificate in pkg/apis/certificates/validation). PEM is text and decoded
// here; the DER inside is parsed by libraries, never by hand: requests by @peculiar/x509 (loaded on first use),
// certificates by node:crypto. Structural ASN.1 errors carry simplified texts: Go's encoding/asn1 messages name
// internal Go types.
import { constants, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';
// Installs the Reflect metadata functions @peculiar/x509's tsyringe needs (a few closures; no-op when present).
import '../../pki/reflect-shim.js';

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

type X509Lib = typeof X509;
let x509Lib: X509Lib | undefined;

/**
 * @peculiar/x509, loaded on the first CSR validated (it costs ~100 ms, which start-up should not pay). Validation is
 * synchronous, so it is require()d (the package is CommonJS; node caches it); the
 * Reflect metadata polyfill its dependency tsyringe insists on is the tiny reflect-shim imported above.
 */
function loadX509(): X509Lib {
  x509Lib ??= createRequire(import.meta.url)('@peculiar/x509') as X509Lib;
  return x509Lib;
}

const MALFORMED_REQUEST = 'x509: malformed certificate request';
const TRUNCATED = 'asn1: syntax error: data truncated';
const UNIMPLEMENTED = 'x509: cannot verify signature: algorithm unimplemented';

type KeyKind = 'rsa' | 'ec' | 'ed25519';

// WebCrypto algorithm names (as @peculiar/x509 reports them) of the key types Go's x509 verifies requests with.
const KEY_KINDS: Record<string, KeyKind> = { 'RSASSA-PKCS1-v1_5': 'rsa', 'RSA-PSS': 'rsa', ECDSA: 'ec', Ed25519: 'ed25519' };
// Digests Go accepts for request signatures (SHA-1 is still allowed for CSRs; MD5 is not).
const HASHES: Record<string, { name: string; size: number }> = {
  'SHA-1': { name: 'sha1', size: 20 },
  'SHA-256': { name: 'sha256', size: 32 },
  'SHA-384': { name: 'sha384', size: 48 },
  'SHA-512': { name: 'sha512', size: 64 },
};
const KEY_NAMES: Record<KeyKind, string> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };
const GO_KEY_TYPES: Record<string, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };
const VERIFY_FAILURE: Record<KeyKind, string> = {
  rsa: 'crypto/rsa: verification error',
  ec: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
};

/**
 * The DER of certificationRequestInfo as received, the bytes the signature covers. @peculiar/x509 keeps it in a getter
 * its verify() uses but its typings mark private; verify() itself is WebCrypto (async), and validation is synchronous.
 */
interface SignedRequest {
  readonly tbs: ArrayBuffer;
}

interface SignatureScheme {
  key: KeyKind;
  /** node digest name; null for Ed25519 */
  hash: string | null;
  pss?: boolean;
}

/** The signature algorithm as x509.CertificateRequest.CheckSignature supports it; undefined when it does not. */
function signatureScheme(alg: Algorithm & { hash?: Algorithm; saltLength?: number }): SignatureScheme | undefined {
  const key = KEY_KINDS[alg.name];
  if (!key) return undefined;
  if (key === 'ed25519') return { key, hash: null };
  const hash = alg.hash && HASHES[alg.hash.name];
  if (!hash) return undefined;
  if (alg.name !== 'RSA-PSS') return { key, hash: hash.name };
  // Go verifies RSA-PSS requests (SHA-256 and up) with the salt as long as the digest.
  return hash.size >= 32 && alg.saltLength === hash.size ? { key, hash: hash.name, pss: true } : undefined;
}

/** The library's parse failures, in encoding/asn1's words where Go's are structural (others simplified). */
function parseErrorText(e: unknown): string {
  const msg = e instanceof Error ? e.message : '';
  return /zero (buffer )?length|end of input reached/i.test(msg) ? TRUNCATED : MALFORMED_REQUEST;
}

/** x509.ParseCertificateRequest + CheckSignature on DER bytes; the error text, or undefined when valid. */
function checkRequestDer(der: Buffer): string | undefined {
  if (!der.length) return TRUNCATED;
  // Anything but a SEQUENCE is malformed (and @peculiar/x509 would try other bytes as PEM, hex or base64 text).
  if (der[0] !== 0x30) return MALFORMED_REQUEST;
  const x509 = loadX509();
  let csr: X509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(new Uint8Array(der));
  } catch (e) {
    return parseErrorText(e);
  }
  // The library ignores bytes after the request; Go rejects them. A request that still parses without its last byte
  // did not need that byte: it was trailing data.
  try {
    new x509.Pkcs10CertificateRequest(new Uint8Array(der.subarray(0, -1)));
    return 'asn1: syntax error: trailing data';
  } catch {
    // truncated without it: the request spans all of the input
  }

  let scheme: SignatureScheme | undefined;
  let keyKind: KeyKind | undefined;
  let key: KeyObject;
  let tbs: Buffer;
  let signature: Buffer;
  try {
    keyKind = KEY_KINDS[csr.publicKey.algorithm.name];
    key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
    scheme = signatureScheme(csr.signatureAlgorithm as Algorithm);
    tbs = Buffer.from((csr as unknown as SignedRequest).tbs);
    signature = Buffer.from(csr.signature);
  } catch {
    return UNIMPLEMENTED; // a key or algorithm parameters the library or node cannot handle
  }
  if (!scheme || !keyKind) return UNIMPLEMENTED;
  if (keyKind !== scheme.key) {
    return `x509: signature algorithm specifies an ${KEY_NAMES[scheme.key]} public key, but have public key of type ${GO_KEY_TYPES[keyKind]}`;
  }
  // node:crypto verifies synchronously (validation is synchronous; the library's verify() is WebCrypto, so async).
  // ECDSA signatures stay DER encoded, as node expects by default.
  const verifyKey = scheme.pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : key;
  let ok = false;
  try {
    ok = verify(scheme.hash, tbs, verifyKey, signature);
  } catch {
    ok = false;
  }
  return ok ? undefined : VERIFY_FAILURE[scheme.key];
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
    // x509.ParseCertificates: the block holds one or more DER certificates back to back. node parses the first
    // certificate of the bytes it is given (ignoring what follows); its DER (raw) says where the next one starts.
    let count = 0;
    for (let at = 0; at < block.bytes.length; count++) {
      const rest = block.bytes.subarray(at);
      // node would also accept PEM text here; only DER (a SEQUENCE) is a certificate.
      if (rest[0] !== 0x30) return 'x509: malformed certificate';
      let raw: Buffer;
      try {
        raw = new X509Certificate(rest).raw;
      } catch {
        return 'x509: malformed certificate';
      }
      if (!raw.length || !rest.subarray(0, raw.length).equals(raw)) return 'x509: malformed certificate';
      at += raw.length;
    }
    if (!count) return 'found CERTIFICATE PEM block containing 0 certificates';
    data = decoded.rest;
  }
  return blocks ? undefined : 'must contain at least one CERTIFICATE PEM block';
}

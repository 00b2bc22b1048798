// Go behaviours Secret validation surfaces in its messages: encoding/json's error text for
// json.Unmarshal(data, &map[string]interface{}{}) (dockercfg secrets), and crypto/tls.X509KeyPair's
// errors, which kube-apiserver returns as warnings for kubernetes.io/tls secrets.
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/** Go's quoteChar: how encoding/json names the offending byte. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const esc: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (esc[c]) return `'${esc[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Go quotes string(byte), i.e. the rune U+00XX.
  return `'${String.fromCharCode(c)}'`;
}

class JSONSyntax extends Error {}

/** Checks `buf` the way Go's json scanner does and returns Unmarshal's error into a map, or undefined. */
export function goJSONMapError(buf: Buffer): string | undefined {
  let i = 0;
  const END = 'unexpected end of JSON input';
  const fail = (what: string): never => {
    throw new JSONSyntax(i >= buf.length ? END : `invalid character ${quoteChar(buf[i])} ${what}`);
  };
  const ws = () => {
    while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0a || buf[i] === 0x0d)) i++;
  };
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
  const str = () => {
    i++; // opening quote
    for (;;) {
      if (i >= buf.length) fail('');
      const c = buf[i];
      if (c === 0x22) return void i++;
      if (c < 0x20) fail('in string literal');
      if (c === 0x5c) {
        i++;
        if (i >= buf.length) fail('');
        if (buf[i] === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= buf.length || !isHex(buf[i])) fail('in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(buf[i]))) fail('in string escape code');
      }
      i++;
    }
  };
  const num = () => {
    if (buf[i] === 0x2d) {
      i++;
      if (i >= buf.length || !isDigit(buf[i])) fail('in numeric literal');
    }
    if (buf[i] === 0x30) i++;
    else while (i < buf.length && isDigit(buf[i])) i++;
    if (buf[i] === 0x2e) {
      i++;
      if (i >= buf.length || !isDigit(buf[i])) fail('after decimal point in numeric literal');
      while (i < buf.length && isDigit(buf[i])) i++;
    }
    if (buf[i] === 0x65 || buf[i] === 0x45) {
      i++;
      if (buf[i] === 0x2b || buf[i] === 0x2d) i++;
      if (i >= buf.length || !isDigit(buf[i])) fail('in exponent of numeric literal');
      while (i < buf.length && isDigit(buf[i])) i++;
    }
  };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= buf.length || buf[i] !== word.charCodeAt(k)) fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    i++;
  };
  const value = (): void => {
    ws();
    if (i >= buf.length) fail('');
    const c = buf[i];
    if (c === 0x7b) {
      i++;
      ws();
      if (buf[i] === 0x7d) return void i++;
      for (;;) {
        ws();
        if (buf[i] !== 0x22) fail('looking for beginning of object key string');
        str();
        ws();
        if (buf[i] !== 0x3a) fail('after object key');
        i++;
        value();
        ws();
        if (buf[i] === 0x2c) i++;
        else if (buf[i] === 0x7d) return void i++;
        else fail('after object key:value pair');
      }
    }
    if (c === 0x5b) {
      i++;
      ws();
      if (buf[i] === 0x5d) return void i++;
      for (;;) {
        value();
        ws();
        if (buf[i] === 0x2c) i++;
        else if (buf[i] === 0x5d) return void i++;
        else fail('after array element');
      }
    }
    if (c === 0x22) return str();
    if (c === 0x2d || isDigit(c)) return num();
    if (c === 0x74) return literal('true');
    if (c === 0x66) return literal('false');
    if (c === 0x6e) return literal('null');
    fail('looking for beginning of value');
  };
  try {
    value();
    ws();
    if (i < buf.length) fail('after top-level value');
  } catch (e) {
    if (e instanceof JSONSyntax) return e.message;
    throw e;
  }
  const first = buf[buf.findIndex((c) => c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)];
  const kind =
    first === 0x5b ? 'array' : first === 0x22 ? 'string' : first === 0x74 || first === 0x66 ? 'bool' : first === 0x7b || first === 0x6e ? '' : 'number';
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : undefined;
}

interface PemBlock {
  type: string;
  der: Buffer;
}

function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // Skip headers ("Proc-Type: ...") before the base64 body, as pem.Decode does.
    const body = m[2].includes(':') ? m[2].split(/\r?\n\r?\n/).slice(1).join('\n') : m[2];
    out.push({ type: m[1], der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return out;
}

function parsePrivateKey(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding, as Go's parsePrivateKey does
    }
  }
  return undefined;
}

/** The error tls.X509KeyPair(cert, key) would return, or undefined when the pair is usable. */
export function x509KeyPairError(certPEM: Buffer, keyPEM: Buffer): string | undefined {
  const certBlocks = pemBlocks(certPEM.toString('latin1'));
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0].endsWith('PRIVATE KEY'))
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  const skipped: string[] = [];
  let keyBlock: PemBlock | undefined;
  for (const b of pemBlocks(keyPEM.toString('latin1'))) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) {
      keyBlock = b;
      break;
    }
    skipped.push(b.type);
  }
  if (!keyBlock) {
    if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  let pub: KeyObject;
  try {
    pub = new X509Certificate(certs[0].der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  const priv = parsePrivateKey(keyBlock.der);
  if (!priv) return 'tls: failed to parse private key';
  if (pub.asymmetricKeyType !== priv.asymmetricKeyType) return 'tls: private key type does not match public key type';
  const a = pub.export({ type: 'spki', format: 'der' });
  const b = createPublicKey(priv).export({ type: 'spki', format: 'der' });
  return a.equals(b) ? undefined : 'tls: private key does not match public key';
}

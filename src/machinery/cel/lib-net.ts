// Kubernetes' IP and CIDR libraries over a port of Go's net/netip parsing and formatting.
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

/** An address: 4 or 16 bytes; zone only as parsed (Kubernetes rejects zones). */
export class CelIP {
  constructor(readonly bytes: Uint8Array, readonly zone = '') {}
  get is4(): boolean {
    return this.bytes.length === 4;
  }
  get is4In6(): boolean {
    const b = this.bytes;
    return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  }
  toString(): string {
    const b = this.bytes;
    if (this.is4) return [...b].join('.');
    if (this.is4In6) return `::ffff:${[...b.slice(12)].join('.')}`;
    const words = Array.from({ length: 8 }, (_, i) => (b[2 * i] << 8) | b[2 * i + 1]);
    let bestStart = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; ) {
      let j = i;
      while (j < 8 && words[j] === 0) j++;
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j === i ? i + 1 : j;
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === bestStart) {
        out += '::';
        i += bestLen - 1;
        continue;
      }
      if (out && !out.endsWith(':')) out += ':';
      out += words[i].toString(16);
    }
    return out + (this.zone ? `%${this.zone}` : '');
  }
}

export class CelCIDR {
  constructor(readonly ip: CelIP, readonly bits: number) {}
  toString(): string {
    return `${this.ip}/${this.bits}`;
  }
  masked(): CelCIDR {
    const b = new Uint8Array(this.ip.bytes);
    for (let i = 0; i < b.length * 8; i++) if (i >= this.bits) b[i >> 3] &= ~(0x80 >> (i & 7));
    return new CelCIDR(new CelIP(b), this.bits);
  }
  containsBits(ip: CelIP, bits: number): boolean {
    if (ip.bytes.length !== this.ip.bytes.length) return false;
    for (let i = 0; i < Math.min(bits, this.bits); i++) {
      const m = 0x80 >> (i & 7);
      if ((ip.bytes[i >> 3] & m) !== (this.ip.bytes[i >> 3] & m)) return false;
    }
    return true;
  }
}

class AddrError extends Error {
  constructor(input: string, msg: string, at = '') {
    super(`ParseAddr(${JSON.stringify(input)}): ${msg}${at ? ` (at ${JSON.stringify(at)})` : ''}`);
  }
}

function parse4(s: string, input = s): Uint8Array {
  const out = new Uint8Array(4);
  let val = 0;
  let digits = 0;
  let pos = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw new AddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) throw new AddrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new AddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new AddrError(input, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else throw new AddrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw new AddrError(input, 'IPv4 address too short');
  out[3] = val;
  return out;
}

function parse6(input: string): CelIP {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (!zone) throw new AddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (!s) return new CelIP(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (off < s.length && /[0-9a-fA-F]/.test(s[off])) {
      acc = acc * 16 + parseInt(s[off], 16);
      off++;
      if (off > 4) throw new AddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new AddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new AddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new AddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      ip.set(parse4(s, input), i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (!s) break;
    if (s[0] !== ':') throw new AddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new AddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new AddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (!s) break;
    }
  }
  if (s) throw new AddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new AddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw new AddrError(input, 'the :: must expand to at least one field of zeros');
  return new CelIP(ip, zone);
}

/** Go's netip.ParseAddr. */
export function parseAddr(s: string): CelIP {
  for (const c of s) {
    if (c === '.') return new CelIP(parse4(s));
    if (c === ':') return parse6(s);
    if (c === '%') throw new AddrError(s, 'missing IPv6 address');
  }
  throw new AddrError(s, 'unable to parse IP');
}

/** Kubernetes' parseIPAddr: no zones, no IPv4-mapped IPv6. */
export function parseK8sIP(raw: string): CelIP {
  let addr: CelIP;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    throw new CelRuntimeError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone) throw new CelRuntimeError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (addr.is4In6) throw new CelRuntimeError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

/** Go's netip.ParsePrefix plus Kubernetes' checks, with Kubernetes' (doubled) error prefix. */
export function parseK8sCIDR(raw: string): CelCIDR {
  const fail = (msg: string): never => {
    throw new CelRuntimeError(`network address parse error during conversion from string: network address parse error during conversion from string: ${msg}`);
  };
  const q = JSON.stringify(raw);
  const slash = raw.lastIndexOf('/');
  if (slash < 0) fail(`netip.ParsePrefix(${q}): no '/'`);
  let ip: CelIP | undefined;
  try {
    ip = parseAddr(raw.slice(0, slash));
  } catch (e) {
    fail(`netip.ParsePrefix(${q}): ${(e as Error).message}`);
  }
  if (ip!.zone) fail(`netip.ParsePrefix(${q}): IPv6 zones cannot be present in a prefix`);
  const bitsStr = raw.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsStr)) fail(`netip.ParsePrefix(${q}): bad bits after slash: ${JSON.stringify(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits > ip!.bytes.length * 8) fail(`netip.ParsePrefix(${q}): prefix length out of range`);
  if (ip!.is4In6) throw new CelRuntimeError(`network address parse error during conversion from string: IPv4-mapped IPv6 address ${q} is not allowed`);
  return new CelCIDR(ip!, bits);
}

const succeeds = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

function isLoopback(a: CelIP): boolean {
  return a.is4 ? a.bytes[0] === 127 : a.bytes.slice(0, 15).every((x) => x === 0) && a.bytes[15] === 1;
}
const isUnspecified = (a: CelIP): boolean => a.bytes.every((x) => x === 0);
const isLinkLocalUnicast = (a: CelIP): boolean => (a.is4 ? a.bytes[0] === 169 && a.bytes[1] === 254 : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80);
const isLinkLocalMulticast = (a: CelIP): boolean =>
  a.is4 ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02;
const isMulticast = (a: CelIP): boolean => (a.is4 ? (a.bytes[0] & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
function isGlobalUnicast(a: CelIP): boolean {
  if (a.is4 && a.bytes.every((x) => x === 255)) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

const sameBytes = (a: CelIP, b: CelIP): boolean => a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]);

export function registerNet(reg: LibraryRegistrar): void {
  reg.type('net.IP', CelIP, ((a: CelIP, b: CelIP) => sameBytes(a, b)) as never);
  reg.type('net.CIDR', CelCIDR, ((a: CelCIDR, b: CelCIDR) => a.bits === b.bits && sameBytes(a.ip, b.ip)) as never);
  class IPNamespace {}
  reg.type('k1s.IPNamespace', IPNamespace);
  reg.constant('ip', 'k1s.IPNamespace', new IPNamespace());
  reg.fn('ip(string): net.IP', parseK8sIP);
  reg.fn('isIP(string): bool', (s: string) => succeeds(() => parseK8sIP(s)));
  reg.fn('k1s.IPNamespace.isCanonical(string): bool', (_n: unknown, s: string) => parseK8sIP(s).toString() === s);
  reg.fn('__k1s_string(net.IP): string', (a: CelIP) => a.toString());
  reg.fn('net.IP.family(): int', (a: CelIP) => (a.is4 ? 4n : 6n));
  reg.fn('net.IP.isUnspecified(): bool', isUnspecified);
  reg.fn('net.IP.isLoopback(): bool', isLoopback);
  reg.fn('net.IP.isLinkLocalMulticast(): bool', isLinkLocalMulticast);
  reg.fn('net.IP.isLinkLocalUnicast(): bool', isLinkLocalUnicast);
  reg.fn('net.IP.isGlobalUnicast(): bool', isGlobalUnicast);
  reg.fn('cidr(string): net.CIDR', parseK8sCIDR);
  reg.fn('isCIDR(string): bool', (s: string) => succeeds(() => parseK8sCIDR(s)));
  reg.fn('__k1s_string(net.CIDR): string', (c: CelCIDR) => c.toString());
  reg.fn('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) => c.containsBits(parseK8sIP(s), c.bits));
  reg.fn('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, a: CelIP) => c.containsBits(a, c.bits));
  reg.fn('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) => {
    const o = parseK8sCIDR(s);
    return c.containsBits(o.ip, o.bits) && c.bits <= o.bits;
  });
  reg.fn('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, o: CelCIDR) => c.containsBits(o.ip, o.bits) && c.bits <= o.bits);
  reg.fn('net.CIDR.ip(): net.IP', (c: CelCIDR) => c.ip);
  reg.fn('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.bits));
  reg.fn('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => c.masked());
}

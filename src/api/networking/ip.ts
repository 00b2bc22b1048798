// IP and CIDR parsing the way kube-apiserver's Go code sees them: netutils.ParseIPSloppy / ParseCIDRSloppy (Go 1.16
// net semantics: IPv4 octets may carry leading zeros), net.IP/IPNet String() and Contains(), and the warnings of
// apimachinery's GetWarningsForCIDR (k8s.io/apimachinery/pkg/util/validation/ip.go). StrictIPCIDRValidation is
// alpha (off) in 1.33, so only the sloppy forms are validated; the strict ones feed warnings.
import { goQuote } from '../../machinery/errors.js';

/** 4 bytes for an address written as IPv4, 16 for one written as IPv6 (IPv4-mapped ones included). */
export type IPBytes = number[];

function parseV4(s: string, strict: boolean): IPBytes | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p) || (strict && p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseV6(s: string, strict: boolean): IPBytes | undefined {
  if (s.includes('%')) return undefined;
  const dbl = s.indexOf('::');
  if (dbl >= 0 && s.indexOf('::', dbl + 1) >= 0) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseV4(f, strict);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(f)) out.push(parseInt(f, 16));
      else return undefined;
    }
    return out;
  };
  let words: number[];
  if (dbl >= 0) {
    const head = groups(s.slice(0, dbl));
    const tail = groups(s.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = groups(s);
    if (!all || all.length !== 8) return undefined;
    words = all;
  }
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/** netutils.ParseIPSloppy (strict=false) or netip.ParseAddr without zones (strict=true). */
export function parseIP(s: string, strict = false): IPBytes | undefined {
  return s.includes(':') ? parseV6(s, strict) : parseV4(s, strict);
}

/** net.IP.To4: the IPv4 bytes of a 4-byte or IPv4-mapped 16-byte address. */
export function to4(ip: IPBytes): IPBytes | undefined {
  if (ip.length === 4) return ip;
  if (ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff) return ip.slice(12);
  return undefined;
}

function ipEqual(a: IPBytes, b: IPBytes): boolean {
  const a4 = to4(a);
  const b4 = to4(b);
  if (a4 && b4) return a4.every((x, i) => x === b4[i]);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function v6String(ip: IPBytes): string {
  const w = Array.from({ length: 8 }, (_, i) => (ip[2 * i] << 8) | ip[2 * i + 1]);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
  return best < 0 ? hex(w) : `${hex(w.slice(0, best))}::${hex(w.slice(best + bestLen))}`;
}

/** net.IP.String(): dotted quad for IPv4 and IPv4-mapped addresses, RFC 5952 for the rest. */
export function ipString(ip: IPBytes): string {
  const v4 = to4(ip);
  return v4 ? v4.join('.') : v6String(ip);
}

export interface CIDR {
  /** the address as written */
  ip: IPBytes;
  /** the masked network address (4 bytes for IPv4-written CIDRs) */
  net: IPBytes;
  /** mask length in bytes: 4 or 16 */
  maskBytes: number;
  ones: number;
}

function maskOf(ones: number, bytes: number): number[] {
  return Array.from({ length: bytes }, (_, i) => {
    const bits = Math.max(0, Math.min(8, ones - 8 * i));
    return (0xff << (8 - bits)) & 0xff;
  });
}

/** netutils.ParseCIDRSloppy: undefined when Go would return an error. */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !/^[0-9]+$/.test(bits)) return undefined;
  const ones = Number(bits);
  if (ones > ip.length * 8) return undefined;
  const mask = maskOf(ones, ip.length);
  return { ip, net: ip.map((b, i) => b & mask[i]), maskBytes: ip.length, ones };
}

// IPNet.networkNumberAndMask: an IPv4(-mapped) network is compared and printed in 4-byte form.
function networkAndMask(c: CIDR): { nn: IPBytes; m: number[] } {
  const nn = to4(c.net) ?? c.net;
  let m = maskOf(c.ones, c.maskBytes);
  if (m.length === 16 && nn.length === 4) m = m.slice(12);
  return { nn, m };
}

function maskOnes(m: number[]): number {
  let n = 0;
  for (const b of m) for (let bit = 7; bit >= 0; bit--) if (b & (1 << bit)) n++;
  return n;
}

/** net.IPNet.String(). */
export function cidrString(c: CIDR): string {
  const { nn, m } = networkAndMask(c);
  return `${ipString(nn)}/${maskOnes(m)}`;
}

/** net.IPNet.Contains(ip). */
export function cidrContains(c: CIDR, ip: IPBytes): boolean {
  const { nn, m } = networkAndMask(c);
  const x = to4(ip) ?? ip;
  if (x.length !== nn.length) return false;
  return nn.every((b, i) => (b & m[i]) === (x[i] & m[i]));
}

/** netip.ParsePrefix: no leading zeros anywhere, no zones. */
function strictPrefix(s: string): { addr: IPBytes; bits: string } | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const bits = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bits)) return undefined;
  const addr = parseIP(s.slice(0, slash), true);
  if (!addr || Number(bits) > addr.length * 8) return undefined;
  return { addr, bits };
}

/** GetWarningsForCIDR: warnings for a value that passed the legacy (sloppy) CIDR validation. */
export function cidrWarnings(path: string, value: string): string[] {
  const c = parseCIDR(value);
  if (!c) return [];
  const q = goQuote;
  const warnings: string[] = [];
  if (!ipEqual(c.ip, c.net)) {
    warnings.push(
      `${path}: CIDR value ${q(value)} is ambiguous in this context (should be ${q(cidrString(c))} or ${q(`${ipString(c.ip)}/${c.maskBytes * 8}`)}?)`,
    );
  }
  const p = strictPrefix(value);
  const mapped = p !== undefined && p.addr.length === 16 && to4(p.addr) !== undefined;
  if (!p || mapped) {
    warnings.push(`${path}: non-standard CIDR value ${q(value)} will be considered invalid in a future Kubernetes release: use ${q(cidrString(c))}`);
  }
  if (!warnings.length && p && p.addr.length === 16) {
    const canonical = `${v6String(p.addr)}/${p.bits}`;
    if (canonical !== value) warnings.push(`${path}: IPv6 CIDR value ${q(value)} should be in RFC 5952 canonical format (${q(canonical)})`);
  }
  return warnings;
}

// IP and CIDR arithmetic for Services: parsing (netutils' sloppy rules: IPv4 octets may carry leading zeros),
// family detection, CIDR membership and the address ⇄ bigint conversions the ClusterIP allocator works with.
import { isIP } from 'node:net';
import { FieldError } from '../../../machinery/errors.js';
import { parseIPSloppy } from '../pod/validation-util.js';

export type IPFamily = 'IPv4' | 'IPv6';

export interface CIDR {
  family: IPFamily;
  /** network address */
  base: bigint;
  prefix: number;
  /** number of addresses in the block */
  size: bigint;
  text: string;
}

/** The family of an IP string, or undefined when it does not parse. */
export function familyOf(ip: string): IPFamily | undefined {
  const v = parseIPSloppy(ip);
  return v === 4 ? 'IPv4' : v === 6 ? 'IPv6' : undefined;
}

function v6ToBigInt(ip: string): bigint | undefined {
  let s = ip;
  // an embedded dotted IPv4 tail (::ffff:1.2.3.4) stands for the last two groups
  const dot = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dot) {
    const v4 = v4ToBigInt(dot[1]);
    if (v4 === undefined) return undefined;
    s = s.slice(0, dot.index) + `${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((g) => BigInt(parseInt(g, 16))));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  if (fill < 0) return undefined;
  const groups = [...head, ...Array<bigint>(fill).fill(0n), ...rest];
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

function v4ToBigInt(ip: string): bigint | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d+$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

export function ipToBigInt(ip: string): bigint | undefined {
  const fam = familyOf(ip);
  if (fam === 'IPv4') return v4ToBigInt(ip);
  if (fam === 'IPv6') return isIP(ip) === 6 ? v6ToBigInt(ip) : undefined;
  return undefined;
}

export function bigIntToIp(v: bigint, family: IPFamily): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  // RFC 5952: the longest run (of at least two) of zero groups becomes "::"
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** netutils.ParseCIDRSloppy: the network of an address/prefix pair (host bits are masked off). */
export function parseCIDR(text: string): CIDR | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const family = familyOf(m[1]);
  const addr = ipToBigInt(m[1]);
  if (!family || addr === undefined) return undefined;
  const bits = family === 'IPv4' ? 32 : 128;
  const prefix = Number(m[2]);
  if (prefix > bits) return undefined;
  const size = 1n << BigInt(bits - prefix);
  const base = (addr / size) * size;
  return { family, base, prefix, size, text: `${bigIntToIp(base, family)}/${prefix}` };
}

export function cidrContains(cidr: CIDR, ip: string): boolean {
  const v = ipToBigInt(ip);
  return familyOf(ip) === cidr.family && v !== undefined && v >= cidr.base && v < cidr.base + cidr.size;
}

/** IsValidCIDR for legacy fields (sloppy parsing, as with StrictIPCIDRValidation off in 1.33). */
export function validCIDR(value: string, path: string): FieldError[] {
  return parseCIDR(value) ? [] : [FieldError.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** ValidateNonSpecialIP: no unspecified, loopback or link-local addresses (endpoints, external IPs). */
export function validateNonSpecialIP(ip: string, path: string): FieldError[] {
  const fam = familyOf(ip);
  const v = ipToBigInt(ip);
  if (!fam || v === undefined) return [FieldError.invalid(path, ip, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const in4 = (net: number, bits: number) => fam === 'IPv4' && v >> BigInt(32 - bits) === BigInt(net) >> BigInt(32 - bits);
  const in6 = (net: bigint, bits: number) => fam === 'IPv6' && v >> BigInt(128 - bits) === net >> BigInt(128 - bits);
  // an IPv4-mapped IPv6 address is judged by its IPv4 part, as Go's net.IP does
  const mapped = fam === 'IPv6' && v >> 32n === 0xffffn ? Number(v & 0xffffffffn) : undefined;
  const in4m = (net: number, bits: number) => in4(net, bits) || (mapped !== undefined && mapped >>> (32 - bits) === net >>> (32 - bits));
  if (v === 0n || (mapped === 0)) errs.push(FieldError.invalid(path, ip, `may not be unspecified (${ip})`));
  if (in4m(0x7f000000, 8) || (fam === 'IPv6' && v === 1n)) {
    errs.push(FieldError.invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if (in4m(0xa9fe0000, 16) || in6(0xfe80n << 112n, 10)) {
    errs.push(FieldError.invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (in4m(0xe0000000, 24) || in6(0xff02n << 112n, 16)) {
    errs.push(FieldError.invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

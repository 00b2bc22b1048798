// IPv4 CIDR arithmetic for NetworkPolicy ipBlocks: `cidr` minus its `except` list becomes a set of disjoint CIDRs,
// so each allowed range is one plain `-s`/`-d` match (no ipset on these machines, and iptables cannot negate a list).

export interface Cidr4 {
  /** network address as an unsigned 32-bit number */
  base: number;
  bits: number;
}

/** Parses `a.b.c.d/n` (or a bare address, /32); undefined for IPv6 or malformed input. Host bits are cleared. */
export function parseCidr4(text: string): Cidr4 | undefined {
  const [addr, lenText] = text.trim().split('/');
  const n = parseIPv4(addr ?? '');
  if (n === undefined) return undefined;
  const bits = lenText === undefined ? 32 : Number(lenText);
  if (!Number.isInteger(bits) || bits < 0 || bits > 32 || (lenText !== undefined && !/^\d+$/.test(lenText))) return undefined;
  return { base: (n & mask(bits)) >>> 0, bits };
}

export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n >>> 0;
}

function mask(bits: number): number {
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
}

export function formatCidr4(c: Cidr4): string {
  const b = c.base;
  return `${b >>> 24}.${(b >>> 16) & 255}.${(b >>> 8) & 255}.${b & 255}/${c.bits}`;
}

/** Whether `inner` lies entirely inside `outer`. */
export function cidrContains(outer: Cidr4, inner: Cidr4): boolean {
  return inner.bits >= outer.bits && ((inner.base & mask(outer.bits)) >>> 0) === outer.base;
}

export function ipInCidr(ip: string, cidr: Cidr4): boolean {
  const n = parseIPv4(ip);
  return n !== undefined && ((n & mask(cidr.bits)) >>> 0) === cidr.base;
}

/**
 * `cidr` without the `except` ranges, as the fewest disjoint CIDRs (sorted by address). Excepts outside the block are
 * ignored (validation rejects them anyway); an except covering the whole block leaves nothing.
 */
export function subtractCidrs(cidr: Cidr4, except: Cidr4[]): Cidr4[] {
  let parts: Cidr4[] = [cidr];
  for (const ex of except) {
    const next: Cidr4[] = [];
    for (const p of parts) {
      if (cidrContains(ex, p)) continue; // removed entirely
      if (!cidrContains(p, ex)) {
        next.push(p); // disjoint (CIDRs either nest or do not overlap)
        continue;
      }
      // split p down to ex: at each level keep the half that does not hold ex
      let cur = p;
      while (cur.bits < ex.bits) {
        const bits = cur.bits + 1;
        const low: Cidr4 = { base: cur.base, bits };
        const high: Cidr4 = { base: (cur.base | (1 << (32 - bits))) >>> 0, bits };
        if (cidrContains(low, ex)) {
          next.push(high);
          cur = low;
        } else {
          next.push(low);
          cur = high;
        }
      }
    }
    parts = next;
  }
  return parts.sort((a, b) => a.base - b.base || a.bits - b.bits);
}

/** An ipBlock's allowed ranges as CIDR strings; undefined when the block is not IPv4 (pods here are IPv4-only). */
export function ipBlockRanges(block: { cidr?: string; except?: string[] | null }): string[] | undefined {
  const cidr = parseCidr4(block.cidr ?? '');
  if (!cidr) return undefined;
  const except = (block.except ?? []).map(parseCidr4).filter((c): c is Cidr4 => c !== undefined);
  return subtractCidrs(cidr, except).map(formatCidr4);
}

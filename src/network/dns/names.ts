// Name and address helpers of the cluster DNS: reverse names (in-addr.arpa / ip6.arpa) to addresses, the
// dash-encoded addresses of pod and endpoint names, and one canonical spelling of IPv6 so that an address written
// compressed in an API object matches the same address spelled out in a reverse query.
import { isIP } from 'node:net';

/** Lower-cased, without the trailing dot: the form every lookup compares. */
export function normalizeName(name: string): string {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  return n.toLowerCase();
}

export function isReverseName(lname: string): boolean {
  return lname.endsWith('.in-addr.arpa') || lname.endsWith('.ip6.arpa') || lname === 'in-addr.arpa' || lname === 'ip6.arpa';
}

/** The address a full reverse name stands for (canonical form), or undefined for a partial or malformed one. */
export function addressFromReverse(lname: string): string | undefined {
  if (lname.endsWith('.in-addr.arpa')) {
    const labels = lname.slice(0, -'.in-addr.arpa'.length).split('.');
    if (labels.length !== 4 || !labels.every((l) => /^\d{1,3}$/.test(l) && Number(l) <= 255)) return undefined;
    return labels.reverse().map(Number).join('.');
  }
  if (lname.endsWith('.ip6.arpa')) {
    const nibbles = lname.slice(0, -'.ip6.arpa'.length).split('.');
    if (nibbles.length !== 32 || !nibbles.every((n) => /^[0-9a-f]$/.test(n))) return undefined;
    const hex = nibbles.reverse().join('');
    const groups: string[] = [];
    for (let i = 0; i < 32; i += 4) groups.push(hex.slice(i, i + 4));
    return canonicalIP(groups.join(':'));
  }
  return undefined;
}

/** One spelling per address: IPv4 as is, IPv6 as eight 4-digit lower-case groups. Not an address → undefined. */
export function canonicalIP(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 4) return ip;
  if (family !== 6) return undefined;
  let s = ip.toLowerCase();
  // an embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    s = s.slice(0, v4.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => g.padStart(4, '0')).join(':');
}

/** The IP a pod name stands for (`10-42-0-5`, `fd00--5`), as CoreDNS decodes it, or undefined. */
export function podNameToIP(label: string): string | undefined {
  const dashes = label.split('-').length - 1;
  const ip = dashes === 3 && !label.includes('--') ? label.replace(/-/g, '.') : label.replace(/-/g, ':');
  return isIP(ip) ? ip : undefined;
}

/** The label an endpoint without a hostname is known by: its address with dashes. */
export function addressLabel(ip: string): string {
  return ip.includes('.') ? ip.replace(/\./g, '-') : ip.replace(/:/g, '-');
}

/** A SRV/endpoint label `_http` → `http` (CoreDNS strips one leading underscore). */
export function stripUnderscore(label: string): string {
  return label.startsWith('_') ? label.slice(1) : label;
}

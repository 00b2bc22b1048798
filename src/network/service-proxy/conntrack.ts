// Stale UDP conntrack entries (kube-proxy's conntrack.CleanStaleEntries, pkg/proxy/conntrack/cleanup.go, 1.33): a UDP
// "connection" lives in conntrack for as long as packets keep coming, so after an endpoint goes away (or before any
// existed, when the packets were not DNATed at all) a client keeps sending into the void until the entry is removed.
// After each sync that changed the UDP frontends, entries whose original destination is a UDP service IP:port (or
// NodePort) and whose reply source is not a serving endpoint are deleted. Entries to a UDP cluster IP that is no
// longer served at all (the Service was deleted or re-created with another IP) are deleted too, as kube-proxy
// before 1.31 did for deleted UDP cluster IPs.
import { execa } from 'execa';
import { cidrContains } from '../cni-config.js';
import type { ServicePortInfo } from './model.js';

/** One conntrack entry: the original and the reply direction's addresses and ports. */
export interface ConntrackEntry {
  protocol: string;
  origSrc: string;
  origDst: string;
  origDstPort: number;
  replySrc: string;
}

/** What the cleanup compares entries with: UDP frontends and the serving endpoint IPs behind them. */
export interface UdpFrontends {
  /** `ip:port` (cluster IP, external IPs) → serving endpoint IPs (only frontends with at least one) */
  byAddress: Map<string, Set<string>>;
  /** NodePort → serving endpoint IPs */
  byNodePort: Map<number, Set<string>>;
  /** every UDP cluster IP programmed (with or without endpoints) */
  clusterIPs: Set<string>;
}

/** A `conntrack -D` filter (the netlink filter kube-proxy builds): every given field must match. */
export interface ConntrackFilter {
  origDst?: string;
  origDstPort?: number;
  replySrc?: string;
}

export function udpFrontends(ports: ServicePortInfo[]): UdpFrontends {
  const out: UdpFrontends = { byAddress: new Map(), byNodePort: new Map(), clusterIPs: new Set() };
  for (const sp of ports) {
    if (sp.protocol !== 'UDP') continue;
    out.clusterIPs.add(sp.clusterIP);
    // traffic policies, topology and terminating state are ignored on purpose (kube-proxy: changes of the Service
    // must not cut existing flows), only serving matters
    const ips = new Set(sp.endpoints.filter((e) => e.serving).map((e) => e.ip));
    if (ips.size === 0) continue; // nothing to send to: leave the entries alone
    for (const ip of [sp.clusterIP, ...sp.externalIPs]) out.byAddress.set(`${ip}:${sp.port}`, ips);
    if (sp.nodePort !== undefined) out.byNodePort.set(sp.nodePort, ips);
  }
  return out;
}

/** A stable text of the frontends, to tell whether a sync changed anything the cleanup looks at. */
export function frontendsKey(f: UdpFrontends): string {
  const set = (s: Set<string>) => [...s].sort().join(',');
  const a = [...f.byAddress].map(([k, v]) => `${k}=${set(v)}`).sort();
  const n = [...f.byNodePort].map(([k, v]) => `${k}=${set(v)}`).sort();
  return `${a.join(' ')}|${n.join(' ')}|${set(f.clusterIPs)}`;
}

export interface StaleOptions {
  /** the previous sync's frontends: cluster IPs served then but not now get their entries removed */
  previous?: UdpFrontends;
  /**
   * Only entries with an original source or reply source inside one of these CIDRs are touched: several k1s
   * clusters on one machine may use the same Service IPs, and one must not cut another's flows. Empty: all.
   */
  scope?: string[];
}

/** The filters to delete with, one per stale entry shape (duplicates removed). */
export function staleFilters(entries: ConntrackEntry[], now: UdpFrontends, opts: StaleOptions = {}): ConntrackFilter[] {
  const scope = opts.scope ?? [];
  const inScope = (e: ConntrackEntry) => scope.length === 0 || scope.some((c) => cidrContains(c, e.origSrc) || cidrContains(c, e.replySrc));
  const gone = new Set([...(opts.previous?.clusterIPs ?? [])].filter((ip) => !now.clusterIPs.has(ip)));
  const out = new Map<string, ConntrackFilter>();
  const add = (f: ConntrackFilter) => out.set(`${f.origDst ?? ''}|${f.origDstPort ?? ''}|${f.replySrc ?? ''}`, f);
  for (const e of entries) {
    if (e.protocol !== 'udp' || !inScope(e)) continue;
    const eps = now.byAddress.get(`${e.origDst}:${e.origDstPort}`);
    if (eps && !eps.has(e.replySrc)) add({ origDst: e.origDst, origDstPort: e.origDstPort, replySrc: e.replySrc });
    const nodePortEps = now.byNodePort.get(e.origDstPort);
    if (nodePortEps && !nodePortEps.has(e.replySrc)) add({ origDstPort: e.origDstPort, replySrc: e.replySrc });
    if (gone.has(e.origDst)) add({ origDst: e.origDst });
  }
  return [...out.values()];
}

/**
 * Parses `conntrack -L -p udp` output: `udp 17 29 src=A dst=B sport=1 dport=2 [UNREPLIED] src=C dst=D sport=3
 * dport=4 mark=0 use=1`; the first src/dst/dport are the original direction, the second src the reply's.
 */
export function parseConntrackList(text: string): ConntrackEntry[] {
  const out: ConntrackEntry[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    const protocol = words[0];
    if (!protocol || !/^[a-z]+$/.test(protocol)) continue;
    const src: string[] = [];
    const dst: string[] = [];
    const dport: string[] = [];
    for (const w of words) {
      if (w.startsWith('src=')) src.push(w.slice(4));
      else if (w.startsWith('dst=')) dst.push(w.slice(4));
      else if (w.startsWith('dport=')) dport.push(w.slice(6));
    }
    if (src.length < 2 || dst.length < 1 || dport.length < 1) continue;
    out.push({ protocol, origSrc: src[0]!, origDst: dst[0]!, origDstPort: Number(dport[0]), replySrc: src[1]! });
  }
  return out;
}

/** `conntrack -D` arguments for one filter. */
export function deleteArgs(f: ConntrackFilter): string[] {
  const args = ['-D', '-f', 'ipv4', '-p', 'udp'];
  if (f.origDst) args.push('--orig-dst', f.origDst);
  if (f.origDstPort !== undefined) args.push('--orig-port-dst', String(f.origDstPort));
  if (f.replySrc) args.push('--reply-src', f.replySrc);
  return args;
}

/** The conntrack table through the `conntrack` tool (Debian package conntrack). */
export class ConntrackCleaner {
  private previous?: UdpFrontends;
  private lastKey?: string;
  private missing = false;

  constructor(private readonly opts: { scope?: string[]; log?: (line: string) => void; binary?: string } = {}) {}

  /** Removes stale entries when the UDP frontends changed since the last call; returns the filters applied. */
  async cleanup(ports: ServicePortInfo[]): Promise<ConntrackFilter[]> {
    const now = udpFrontends(ports);
    const key = frontendsKey(now);
    // unchanged frontends: every entry made since the last cleanup already follows the current rules
    if (key === this.lastKey || this.missing) return [];
    const bin = this.opts.binary ?? 'conntrack';
    const list = await execa(bin, ['-L', '-f', 'ipv4', '-p', 'udp'], { reject: false });
    if (list.exitCode !== 0) {
      if ((list as { code?: string }).code === 'ENOENT' || /ENOENT/.test(String(list.stderr) + String(list.message ?? ''))) {
        this.missing = true;
        this.opts.log?.('k1s: service proxy: the conntrack tool is not installed; stale UDP flows to removed endpoints are not flushed (apt-get install conntrack)');
        return [];
      }
      throw new Error(`conntrack -L: ${String(list.stderr).trim() || `exit ${list.exitCode}`}`);
    }
    const filters = staleFilters(parseConntrackList(String(list.stdout)), now, { previous: this.previous, scope: this.opts.scope });
    // exit 1 from -D means "nothing matched" (the flow ended meanwhile): not an error
    await Promise.all(filters.map((f) => execa(bin, deleteArgs(f), { reject: false })));
    this.previous = now;
    this.lastKey = key;
    return filters;
  }
}

// The iptables rules of kube-proxy's iptables mode (pkg/proxy/iptables/proxier.go, 1.33), in k1s' own chains: a
// prefix (default K1S) replaces KUBE so a real kube-proxy on the same host is never touched. Pure: the output is the
// rule lines per table; iptables.ts turns them into one `iptables-restore --noflush` transaction.
import { createHash } from 'node:crypto';
import { categorizeEndpoints, type ProxyEndpoint, type ServicePortInfo } from './model.js';

export interface RuleOptions {
  /** chain prefix (≤ 10 characters so `<prefix>-SVC-<16>` fits iptables' 28) */
  prefix: string;
  /** the pod network; traffic from outside it to a cluster IP is masqueraded (kube-proxy's --cluster-cidr) */
  clusterCIDR?: string;
  /** masquerade every cluster IP connection (kube-proxy's --masquerade-all) */
  masqueradeAll?: boolean;
  /** the fwmark bit marking connections to SNAT (kube-proxy: 1<<14) */
  masqueradeMark?: string;
}

export interface TableRules {
  /** every chain k1s owns in the table (declared, so flushed, by the transaction) */
  chains: string[];
  /** `-A …` lines */
  rules: string[];
}

export interface ProxyRules {
  nat: TableRules;
  filter: TableRules;
}

/** A jump from a built-in chain into k1s' chains (ensured once, prepended as kube-proxy does). */
export interface JumpRule {
  table: 'nat' | 'filter';
  chain: string;
  args: string;
  target: string;
}

export const DEFAULT_MASQUERADE_MARK = '0x4000';

export function chainNames(prefix: string) {
  return {
    services: `${prefix}-SERVICES`,
    externalServices: `${prefix}-EXTERNAL-SERVICES`,
    nodePorts: `${prefix}-NODEPORTS`,
    postrouting: `${prefix}-POSTROUTING`,
    markMasq: `${prefix}-MARK-MASQ`,
    forward: `${prefix}-FORWARD`,
    firewall: `${prefix}-FIREWALL`,
  };
}

export function jumpRules(prefix: string): JumpRule[] {
  const c = chainNames(prefix);
  const portals = `-m comment --comment "k1s service portals"`;
  const externally = `-m conntrack --ctstate NEW -m comment --comment "k1s externally-visible service portals"`;
  return [
    { table: 'nat', chain: 'PREROUTING', args: portals, target: c.services },
    { table: 'nat', chain: 'OUTPUT', args: portals, target: c.services },
    { table: 'nat', chain: 'POSTROUTING', args: `-m comment --comment "k1s postrouting rules"`, target: c.postrouting },
    { table: 'filter', chain: 'INPUT', args: externally, target: c.externalServices },
    { table: 'filter', chain: 'INPUT', args: '', target: c.firewall },
    { table: 'filter', chain: 'FORWARD', args: `-m comment --comment "k1s forwarding rules"`, target: c.forward },
    { table: 'filter', chain: 'FORWARD', args: `-m conntrack --ctstate NEW ${portals}`, target: c.services },
    { table: 'filter', chain: 'FORWARD', args: externally, target: c.externalServices },
    { table: 'filter', chain: 'OUTPUT', args: `-m conntrack --ctstate NEW ${portals}`, target: c.services },
    { table: 'filter', chain: 'OUTPUT', args: '', target: c.firewall },
  ];
}

/** kube-proxy's portProtoHash: the first 16 characters of base32(sha256(servicePortName + protocol)). */
export function chainHash(...parts: string[]): string {
  return base32(createHash('sha256').update(parts.join('')).digest()).slice(0, 16);
}

function base32(buf: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A quoted --comment value, as iptables-restore reads it. */
function comment(text: string): string {
  return /^[A-Za-z0-9_./:-]+$/.test(text) ? `-m comment --comment ${text}` : `-m comment --comment "${text.replace(/(["\\])/g, '\\$1')}"`;
}

function proto(p: string): string {
  const l = p.toLowerCase();
  return `-m ${l} -p ${l}`;
}

export function serviceChains(prefix: string, sp: ServicePortInfo) {
  const h = chainHash(sp.name, sp.protocol.toLowerCase());
  return { svc: `${prefix}-SVC-${h}`, svl: `${prefix}-SVL-${h}`, ext: `${prefix}-EXT-${h}` };
}

export function endpointChain(prefix: string, sp: ServicePortInfo, ep: ProxyEndpoint): string {
  return `${prefix}-SEP-${chainHash(sp.name, sp.protocol.toLowerCase(), `${ep.ip}:${ep.port}`)}`;
}

/** All rules for the given service ports. */
export function buildProxyRules(ports: ServicePortInfo[], opts: RuleOptions): ProxyRules {
  const c = chainNames(opts.prefix);
  const mark = opts.masqueradeMark ?? DEFAULT_MASQUERADE_MARK;
  const nat: TableRules = { chains: [c.services, c.nodePorts, c.postrouting, c.markMasq], rules: [] };
  const filter: TableRules = { chains: [c.services, c.externalServices, c.forward, c.firewall], rules: [] };

  nat.rules.push(
    `-A ${c.postrouting} -m mark ! --mark ${mark}/${mark} -j RETURN`,
    // clear the bit so a packet re-traversing the host (hairpin) is not masqueraded twice
    `-A ${c.postrouting} -j MARK --xor-mark ${mark}`,
    `-A ${c.postrouting} ${comment('kubernetes service traffic requiring SNAT')} -j MASQUERADE --random-fully`,
    `-A ${c.markMasq} -j MARK --or-mark ${mark}`,
  );
  filter.rules.push(
    `-A ${c.forward} -m conntrack --ctstate INVALID -j DROP`,
    `-A ${c.forward} ${comment('kubernetes forwarding rules')} -m mark --mark ${mark}/${mark} -j ACCEPT`,
    `-A ${c.forward} ${comment('kubernetes forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
    // route_localnet (for NodePorts on 127.0.0.1) must not expose the host's loopback services to the network
    `-A ${c.firewall} ${comment('block incoming localnet connections')} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
  );

  const nodePortRules: string[] = [];
  const serviceChainBlocks: string[] = [];
  for (const sp of ports) writeServicePort(sp, opts, { nat, filter, nodePortRules, serviceChainBlocks });
  nat.rules.push(
    `-A ${c.services} ${comment('kubernetes service nodeports; NOTE: this must be the last rule in this chain')} -m addrtype --dst-type LOCAL -j ${c.nodePorts}`,
    ...nodePortRules,
    ...serviceChainBlocks,
  );
  return { nat, filter };
}

interface Sink {
  nat: TableRules;
  filter: TableRules;
  nodePortRules: string[];
  serviceChainBlocks: string[];
}

function writeServicePort(sp: ServicePortInfo, opts: RuleOptions, out: Sink): void {
  const c = chainNames(opts.prefix);
  const { svc, svl, ext } = serviceChains(opts.prefix, sp);
  const eps = categorizeEndpoints(sp);
  const name = sp.name;
  const p = proto(sp.protocol);
  const hasEndpoints = eps.cluster.length > 0;
  const hasExternalDestinations = sp.nodePort !== undefined || sp.externalIPs.length > 0;
  const internalChain = sp.internalLocal ? svl : svc;

  // filter: reject (no endpoints at all: "connection refused") or drop (no local ones) what nat will not DNAT
  if (eps.internal.length === 0) {
    const [why, verdict] = hasEndpoints ? ['has no local endpoints', 'DROP'] : ['has no endpoints', 'REJECT'];
    out.filter.rules.push(`-A ${c.services} ${comment(`${name} ${why}`)} ${p} -d ${sp.clusterIP} --dport ${sp.port} -j ${verdict}`);
  }
  if (hasExternalDestinations && eps.external.length === 0) {
    const [why, verdict] = hasEndpoints ? ['has no local endpoints', 'DROP'] : ['has no endpoints', 'REJECT'];
    for (const ip of sp.externalIPs)
      out.filter.rules.push(`-A ${c.externalServices} ${comment(`${name} ${why}`)} ${p} -d ${ip} --dport ${sp.port} -j ${verdict}`);
    if (sp.nodePort !== undefined)
      out.filter.rules.push(`-A ${c.externalServices} ${comment(`${name} ${why}`)} -m addrtype --dst-type LOCAL ${p} --dport ${sp.nodePort} -j ${verdict}`);
  }

  if (eps.internal.length > 0)
    out.nat.rules.push(`-A ${c.services} ${comment(`${name} cluster IP`)} ${p} -d ${sp.clusterIP} --dport ${sp.port} -j ${internalChain}`);
  if (hasExternalDestinations && eps.external.length > 0) {
    for (const ip of sp.externalIPs)
      out.nat.rules.push(`-A ${c.services} ${comment(`${name} external IP`)} ${p} -d ${ip} --dport ${sp.port} -j ${ext}`);
    if (sp.nodePort !== undefined) out.nodePortRules.push(`-A ${c.nodePorts} ${comment(name)} ${p} --dport ${sp.nodePort} -j ${ext}`);
    out.nat.chains.push(ext);
    const b = out.serviceChainBlocks;
    if (sp.externalLocal) {
      // pods and the node itself may use any endpoint; traffic from elsewhere keeps its source and stays local
      if (opts.clusterCIDR) b.push(`-A ${ext} ${comment(`pod traffic for ${name} external destinations`)} -s ${opts.clusterCIDR} -j ${svc}`);
      b.push(`-A ${ext} ${comment(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${c.markMasq}`);
      b.push(`-A ${ext} ${comment(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${svc}`);
      b.push(`-A ${ext} -j ${svl}`);
    } else {
      b.push(`-A ${ext} ${comment(`masquerade traffic for ${name} external destinations`)} -j ${c.markMasq}`);
      b.push(`-A ${ext} -j ${svc}`);
    }
  }

  const sepChains = new Map<string, ProxyEndpoint>();
  if (hasEndpoints) {
    out.nat.chains.push(svc);
    const b = out.serviceChainBlocks;
    if (opts.masqueradeAll) b.push(`-A ${svc} ${comment(`${name} cluster IP`)} ${p} -d ${sp.clusterIP} --dport ${sp.port} -j ${c.markMasq}`);
    else if (opts.clusterCIDR)
      b.push(`-A ${svc} ${comment(`${name} cluster IP`)} ${p} -d ${sp.clusterIP} --dport ${sp.port} ! -s ${opts.clusterCIDR} -j ${c.markMasq}`);
    writeEndpointJumps(svc, sp, eps.cluster, opts.prefix, b, sepChains);
  }
  if ((sp.internalLocal || sp.externalLocal) && eps.local.length > 0) {
    out.nat.chains.push(svl);
    writeEndpointJumps(svl, sp, eps.local, opts.prefix, out.serviceChainBlocks, sepChains);
  }
  for (const [sep, ep] of sepChains) {
    out.nat.chains.push(sep);
    const affinity = sp.affinitySeconds !== undefined ? ` -m recent --name ${sep} --set` : '';
    out.serviceChainBlocks.push(
      `-A ${sep} ${comment(name)} -s ${ep.ip} -j ${c.markMasq}`,
      `-A ${sep} ${comment(name)} ${p}${affinity} -j DNAT --to-destination ${ep.ip}:${ep.port}`,
    );
  }
}

function writeEndpointJumps(chain: string, sp: ServicePortInfo, eps: ProxyEndpoint[], prefix: string, out: string[], seps: Map<string, ProxyEndpoint>): void {
  const named = eps.map((ep) => ({ ep, sep: endpointChain(prefix, sp, ep), label: `${sp.name} -> ${ep.ip}:${ep.port}` }));
  for (const { ep, sep } of named) seps.set(sep, ep);
  if (sp.affinitySeconds !== undefined)
    for (const { sep, label } of named)
      out.push(`-A ${chain} ${comment(label)} -m recent --name ${sep} --rcheck --seconds ${sp.affinitySeconds} --reap -j ${sep}`);
  named.forEach(({ sep, label }, i) => {
    const left = named.length - i;
    const stat = left > 1 ? ` -m statistic --mode random --probability ${(1 / left).toFixed(10)}` : '';
    out.push(`-A ${chain} ${comment(label)}${stat} -j ${sep}`);
  });
}

/** Each chain's rules, joined: what a partial sync compares with what it wrote last time. */
export type ChainContents = Map<string, string>;

export function chainContents(t: TableRules): ChainContents {
  const out: ChainContents = new Map(t.chains.map((ch) => [ch, '']));
  for (const line of t.rules) {
    const ch = line.split(' ', 2)[1]!;
    out.set(ch, `${out.get(ch) ?? ''}${line}\n`);
  }
  return out;
}

export interface RestoreOptions {
  /** chains of the prefix that may exist and are not wanted any more */
  stale: { nat: string[]; filter: string[] };
  missingJumps: JumpRule[];
  /**
   * what the last successful sync wrote: chains whose rules are unchanged are left alone (kube-proxy's partial
   * sync), so an endpoint change rewrites one service's chains instead of every chain. Omit for a full sync.
   */
  previous?: { nat: ChainContents; filter: ChainContents };
}

/** The `iptables-restore --noflush` input: declares (so flushes) changed chains, adds missing jumps, deletes stale chains. */
export function restoreText(rules: ProxyRules, opts: RestoreOptions): string {
  const lines: string[] = [];
  for (const table of ['filter', 'nat'] as const) {
    const t = rules[table];
    const stale = opts.stale[table].filter((ch) => !t.chains.includes(ch));
    const contents = chainContents(t);
    const prev = opts.previous?.[table];
    const write = new Set(t.chains.filter((ch) => prev?.get(ch) !== contents.get(ch)));
    const jumps = opts.missingJumps.filter((j) => j.table === table);
    if (write.size === 0 && stale.length === 0 && jumps.length === 0) continue;
    lines.push(`*${table}`);
    for (const ch of [...write, ...stale]) lines.push(`:${ch} - [0:0]`);
    for (const j of jumps) lines.push(`-I ${j.chain} 1 ${j.args ? `${j.args} ` : ''}-j ${j.target}`);
    for (const line of t.rules) if (write.has(line.split(' ', 2)[1]!)) lines.push(line);
    for (const ch of stale) lines.push(`-X ${ch}`);
    lines.push('COMMIT');
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}

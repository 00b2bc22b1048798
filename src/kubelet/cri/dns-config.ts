// The pod's CRI DNSConfig (pkg/kubelet/network/dns/dns.go GetPodDNS) and hostname/domain
// (GeneratePodHostNameAndDomain): dnsPolicy, the pod's dnsConfig merged in, then trimmed to the resolver limits.
import type { Pod } from '../../api/core/pod/types.js';
import type { DNSConfig } from '../../runtime/cri-types.js';

export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const MAX_SEARCH_DOMAIN_LENGTH = 253; // DNS1123SubdomainMaxLength
const DEFAULT_DNS_OPTIONS = ['ndots:5'];

export interface HostResolvConf {
  servers: string[];
  searches: string[];
  options: string[];
}

/** dns.parseResolvConf: nameserver lines, the last search line (trailing dots dropped), the last options line. */
export function parseResolvConf(text: string): HostResolvConf {
  const out: HostResolvConf = { servers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '');
    const fields = line.trim().split(/\s+/).filter(Boolean);
    if (fields.length === 0) continue;
    if (fields[0] === 'nameserver' && fields.length >= 2) out.servers.push(fields[1]);
    else if (fields[0] === 'search') out.searches = fields.slice(1).map((s) => (s === '.' ? s : s.replace(/\.$/, '')));
    else if (fields[0] === 'options') out.options = fields.slice(1);
  }
  return out;
}

export interface DNSSettings {
  /** the cluster DNS service IPs (kubelet --cluster-dns); empty when the cluster has no DNS */
  clusterDNS: string[];
  /** kubelet --cluster-domain, e.g. cluster.local */
  clusterDomain: string;
  /** the node's resolv.conf as parsed; undefined when the kubelet's --resolv-conf is "" */
  hostResolvConf?: HostResolvConf;
  /** node IPs, for the localhost nameserver used when there is no host resolv.conf */
  nodeIPs?: string[];
}

export interface PodDNSResult {
  config: DNSConfig;
  /** Warning events the kubelet records: [reason, message] */
  events: { reason: string; message: string }[];
}

const unique = (xs: string[]): string[] => [...new Set(xs)];

type DNSType = 'None' | 'Cluster' | 'Host';
function podDNSType(pod: Pod): DNSType {
  switch (pod.spec?.dnsPolicy ?? 'ClusterFirst') {
    case 'None':
      return 'None';
    case 'ClusterFirstWithHostNet':
      return 'Cluster';
    case 'ClusterFirst':
      return pod.spec?.hostNetwork ? 'Host' : 'Cluster';
    case 'Default':
      return 'Host';
  }
  return 'Cluster';
}

/** mergeDNSOptions: the pod's options replace same-named ones; the order is that of first appearance. */
function mergeOptions(existing: string[], pod: { name?: string; value?: string }[]): string[] {
  const m = new Map<string, string>();
  for (const op of existing) {
    const i = op.indexOf(':');
    if (i >= 0) m.set(op.slice(0, i), op.slice(i + 1));
    else m.set(op, '');
  }
  for (const op of pod) m.set(op.name ?? '', op.value ?? '');
  return [...m].map(([k, v]) => (v !== '' ? `${k}:${v}` : k));
}

function fitSearches(searches: string[], events: PodDNSResult['events']): string[] {
  let exceeded = false;
  let s = searches;
  if (s.length > MAX_DNS_SEARCH_PATHS) {
    s = s.slice(0, MAX_DNS_SEARCH_PATHS);
    exceeded = true;
  }
  const kept = s.filter((d) => d.length <= MAX_SEARCH_DOMAIN_LENGTH);
  if (kept.length !== s.length) exceeded = true;
  s = kept;
  const lineLen = s.join(' ').length;
  if (lineLen > MAX_DNS_SEARCH_LIST_CHARS) {
    let cut = 0;
    let cutLen = 0;
    for (let i = s.length - 1; i >= 0; i--) {
      cutLen += s[i].length + 1;
      cut++;
      if (lineLen - cutLen <= MAX_DNS_SEARCH_LIST_CHARS) break;
    }
    s = s.slice(0, s.length - cut);
    exceeded = true;
  }
  if (exceeded) {
    events.push({
      reason: 'DNSConfigForming',
      message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${s.join(' ')}`,
    });
  }
  return s;
}

function fitServers(servers: string[], events: PodDNSResult['events']): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return servers;
  const s = servers.slice(0, MAX_DNS_NAMESERVERS);
  events.push({
    reason: 'DNSConfigForming',
    message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${s.join(' ')}`,
  });
  return s;
}

/** GetPodDNS. */
export function podDNSConfig(pod: Pod, dns: DNSSettings): PodDNSResult {
  const events: PodDNSResult['events'] = [];
  const host = dns.hostResolvConf;
  let cfg: Required<DNSConfig> = { servers: [...(host?.servers ?? [])], searches: [...(host?.searches ?? [])], options: [...(host?.options ?? [])] };
  const type = podDNSType(pod);
  const useHost = (): void => {
    if (host) return;
    // no resolv.conf for the kubelet: point at the local machine, effectively disabling lookups
    const ips = dns.nodeIPs ?? [];
    cfg.servers = ips.map((ip) => (ip.includes(':') ? '::1' : '127.0.0.1'));
    if (cfg.servers.length === 0) cfg.servers = ['127.0.0.1'];
    cfg.searches = ['.'];
  };
  if (type === 'None') {
    cfg = { servers: [], searches: [], options: [] };
  } else if (type === 'Cluster' && dns.clusterDNS.length > 0) {
    cfg.servers = [...dns.clusterDNS];
    if (dns.clusterDomain) {
      const ns = pod.metadata?.namespace ?? 'default';
      const d = dns.clusterDomain;
      cfg.searches = unique([`${ns}.svc.${d}`, `svc.${d}`, d, ...cfg.searches]);
    }
    cfg.options = [...DEFAULT_DNS_OPTIONS];
  } else if (type === 'Cluster') {
    events.push({
      reason: 'MissingClusterDNS',
      message: `pod: "${podDesc(pod)}". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`,
    });
    useHost();
  } else {
    useHost();
  }
  const pc = pod.spec?.dnsConfig;
  if (pc) {
    cfg.servers = unique([...cfg.servers, ...(pc.nameservers ?? [])]);
    cfg.searches = unique([...cfg.searches, ...(pc.searches ?? [])]);
    cfg.options = mergeOptions(cfg.options, pc.options ?? []);
  }
  cfg.servers = fitServers(cfg.servers, events);
  cfg.searches = fitSearches(cfg.searches, events);
  return { config: cfg, events };
}

/** format.Pod: name_namespace(uid). */
export function podDesc(pod: Pod): string {
  return `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;
}

/** GeneratePodHostNameAndDomain (the 63-character cap and the trailing '-'/'.' trim included). */
export function podHostnameAndDomain(pod: Pod, clusterDomain: string): { hostname: string; hostDomain: string } {
  let hostname = pod.spec?.hostname || pod.metadata?.name || '';
  if (hostname.length > 63) hostname = hostname.slice(0, 63).replace(/[-.]+$/, '');
  const sub = pod.spec?.subdomain;
  const hostDomain = sub ? `${sub}.${pod.metadata?.namespace ?? 'default'}.svc.${clusterDomain}` : '';
  return { hostname, hostDomain };
}

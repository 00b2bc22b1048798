// The records of the cluster zone, answered from informer caches the way CoreDNS' kubernetes plugin answers them
// (DNS schema 1.1.0, https://github.com/kubernetes/dns/blob/master/docs/specification.md):
//   <svc>.<ns>.svc.<zone>                 ClusterIP(s), or the ready endpoints of a headless Service
//   <host>.<svc>.<ns>.svc.<zone>          one endpoint (hostname, else its address with dashes)
//   _<port>._<proto>.<svc>.<ns>.svc.<zone> SRV of named ports
//   <svc>.<ns>.svc.<zone> (ExternalName)   CNAME
//   a-b-c-d.<ns>.pod.<zone>               pods ("pods insecure" as kubeadm configures CoreDNS, or "verified")
//   reverse names                          PTR of ClusterIPs and endpoint addresses; misses fall through (forward)
// Every lookup is a few map reads, so answers are synchronous; a miss is NXDOMAIN for a name that does not exist
// and NOERROR with the SOA in authority (NODATA) for a name that exists without records of the asked type.
import type { Answer, RecordType } from 'dns-packet';
import type { IndexFunc, InformerHandler } from '../../client/informer.js';
import type { KObject } from '../../api/types.js';
import { addressFromReverse, addressLabel, canonicalIP, isReverseName, normalizeName, podNameToIP, stripUnderscore } from './names.js';
import { isIP } from 'node:net';
import { SERVICE_NAME_LABEL, type ServiceSpec, type Slice } from './view.js';

export const DNS_SCHEMA_VERSION = '1.1.0';
const IDX_CLUSTER_IP = 'dns:clusterIP';
const IDX_SLICE_SERVICE = 'dns:service';
const IDX_SLICE_IP = 'dns:address';
const IDX_POD_IP = 'dns:podIP';

/** What the records use of an informer: a real one, or the DNS worker's mirror of one (mirror.ts). */
export interface DnsSource {
  addHandler(h: InformerHandler): void;
  addIndex(name: string, fn: IndexFunc): void;
  get(namespace: string, name: string): KObject | undefined;
  byIndex(index: string, value: string): KObject[];
  hasSynced(): boolean;
}

export interface ClusterDnsSources {
  services: DnsSource;
  endpointSlices: DnsSource;
  namespaces: DnsSource;
  /** needed for `podMode: 'verified'` only */
  pods?: DnsSource;
}

export type DnsSourceKind = keyof ClusterDnsSources;

export type PodMode = 'insecure' | 'verified' | 'disabled';

export interface ClusterDnsRecordsOptions {
  clusterDomain: string;
  /** TTL of every record (CoreDNS' kubernetes plugin default: 5) */
  ttl?: number;
  podMode?: PodMode;
  /** the addresses `ns.dns.<zone>` resolves to (the kube-dns Service IP) */
  nameserverIPs?: string[];
}

export type Rcode = 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED';

export interface Resolution {
  rcode: Rcode;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
  /** a CNAME the answer ends in, for the server to follow (ExternalName targets) */
  chase?: { target: string; type: 'A' | 'AAAA' };
}

/** One thing a name stands for: an address or (ExternalName) a host name, with the name SRV targets use. */
interface Entry {
  host: string;
  port: number;
  target: string;
}

type Lookup = { entries: Entry[] } | { nxdomain: true };

export class ClusterDnsRecords {
  readonly zone: string;
  private readonly ttl: number;
  private readonly podMode: PodMode;
  private modified = Math.floor(Date.now() / 1000);
  private gen = 0;

  constructor(
    private readonly src: ClusterDnsSources,
    private readonly opts: ClusterDnsRecordsOptions,
  ) {
    this.zone = normalizeName(opts.clusterDomain);
    this.ttl = opts.ttl ?? 5;
    this.podMode = opts.podMode ?? 'insecure';
    if (this.podMode === 'verified' && !src.pods) throw new Error('cluster DNS: podMode "verified" needs a Pods informer');
    src.services.addIndex(IDX_CLUSTER_IP, (o) => serviceIPs(o).map((ip) => canonicalIP(ip) ?? ip));
    src.endpointSlices.addIndex(IDX_SLICE_SERVICE, (o) => {
      const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
      return svc ? [`${o.metadata.namespace}/${svc}`] : [];
    });
    src.endpointSlices.addIndex(IDX_SLICE_IP, (o) =>
      ((o as Slice).endpoints ?? []).flatMap((e) => (e.addresses ?? []).map((a) => canonicalIP(a) ?? a)),
    );
    src.pods?.addIndex(IDX_POD_IP, (o) => podIPs(o).map((ip) => canonicalIP(ip) ?? ip));
    // the SOA serial is the time of the last change seen, as CoreDNS' dnsController.Modified()
    const touch = { add: () => this.touch(), update: () => this.touch(), delete: () => this.touch() };
    for (const inf of [src.services, src.endpointSlices, src.namespaces, src.pods]) inf?.addHandler(touch);
  }

  /** Changes with every informer event: an answer computed at one generation stays right until it changes. */
  get generation(): number {
    return this.gen;
  }

  hasSynced(): boolean {
    const { services, endpointSlices, namespaces, pods } = this.src;
    return services.hasSynced() && endpointSlices.hasSynced() && namespaces.hasSynced() && (this.podMode !== 'verified' || !!pods?.hasSynced());
  }

  /** Whether this server is authoritative for the name (the cluster zone); reverse names are answered when known. */
  inZone(lname: string): boolean {
    return lname === this.zone || lname.endsWith('.' + this.zone);
  }

  /** The answer for one question, or undefined when the name is not ours to answer (forward it). */
  resolve(qname: string, qtype: RecordType): Resolution | undefined {
    const lname = normalizeName(qname);
    if (isReverseName(lname)) return qtype === 'PTR' ? this.reverse(qname, lname) : undefined;
    if (!this.inZone(lname)) return undefined;
    // before the caches are filled, every name would look missing: fail instead of denying (CoreDNS does the same)
    if (!this.hasSynced()) return { rcode: 'SERVFAIL', answers: [], authorities: [], additionals: [] };
    const name = qname.replace(/\.$/, '');
    if (qtype === 'AXFR' || qtype === 'IXFR') return { rcode: 'REFUSED', answers: [], authorities: [], additionals: [] };
    if (qtype === 'SOA') return lname === this.zone ? this.ok([this.soa()]) : this.empty('NOERROR');
    if (qtype === 'NS' && lname === this.zone) {
      const target = `ns.dns.${this.zone}`;
      return this.ok([{ name, type: 'NS', ttl: this.ttl, class: 'IN', data: target }], this.addressRecords(target, this.nameservers()));
    }
    if (qtype === 'TXT' && lname === `dns-version.${this.zone}`) {
      return this.ok([{ name, type: 'TXT', ttl: 28800, class: 'IN', data: DNS_SCHEMA_VERSION }]);
    }
    if (lname === `ns.dns.${this.zone}`) {
      const ips = this.nameservers().filter((ip) => (qtype === 'A' ? isIP(ip) === 4 : qtype === 'AAAA' && isIP(ip) === 6));
      return ips.length ? this.ok(this.addressRecords(name, ips)) : this.empty('NOERROR');
    }
    const found = this.lookup(lname);
    if ('nxdomain' in found) return this.empty('NXDOMAIN');
    const { entries } = found;
    switch (qtype) {
      case 'A':
      case 'AAAA':
        return this.addressAnswer(name, qtype, entries);
      case 'CNAME': {
        const names = entries.filter((e) => !isIP(e.host));
        return this.ok(names.map((e) => ({ name, type: 'CNAME', ttl: this.ttl, class: 'IN', data: e.host })));
      }
      case 'SRV':
        return this.srvAnswer(name, entries.filter((e) => isIP(e.host) && e.port > 0));
      default:
        return this.empty('NOERROR');
    }
  }

  /** Parses a name of the zone and finds what it stands for (CoreDNS parseRequest + findServices/findPods). */
  private lookup(lname: string): Lookup {
    const base = lname === this.zone ? '' : lname.slice(0, -(this.zone.length + 1));
    if (base === '' || base === 'svc' || base === 'pod') return { entries: [] };
    const segs = base.split('.');
    const kind = segs.pop()!;
    if (kind !== 'svc' && kind !== 'pod') return { nxdomain: true };
    const namespace = segs.pop()!;
    if (!this.src.namespaces.get('', namespace)) return { nxdomain: true };
    const service = segs.pop();
    if (service === undefined) return { entries: [] };
    let endpoint: string | undefined;
    let port = '';
    let protocol = '';
    if (segs.length === 1) endpoint = segs[0];
    else if (segs.length === 2) [port, protocol] = segs.map(stripUnderscore);
    else if (segs.length > 2) return { nxdomain: true };
    if (kind === 'pod') return this.findPod(service, namespace);
    return this.findService({ namespace, service, endpoint, port, protocol });
  }

  private findPod(label: string, namespace: string): Lookup {
    if (this.podMode === 'disabled') return { nxdomain: true };
    const ip = podNameToIP(label);
    if (!ip) return { nxdomain: true };
    const target = `${label}.${namespace}.pod.${this.zone}`;
    if (this.podMode === 'verified') {
      const pods = this.src.pods!.byIndex(IDX_POD_IP, canonicalIP(ip)!).filter((p) => p.metadata.namespace === namespace);
      if (!pods.length) return { nxdomain: true };
    }
    return { entries: [{ host: ip, port: 0, target }] };
  }

  private findService(r: { namespace: string; service: string; endpoint?: string; port: string; protocol: string }): Lookup {
    const svc = this.src.services.get(r.namespace, r.service);
    if (!svc) return { nxdomain: true };
    const spec = (svc.spec ?? {}) as ServiceSpec;
    const svcDomain = `${r.service}.${r.namespace}.svc.${this.zone}`;
    const entries: Entry[] = [];
    let matched = false;
    if (spec.type === 'ExternalName') {
      // an ExternalName has no endpoints; its name is a CNAME (an IP written there makes no record)
      if (r.endpoint !== undefined || !spec.externalName || isIP(spec.externalName)) return { nxdomain: true };
      return { entries: [{ host: normalizeName(spec.externalName), port: 0, target: svcDomain }] };
    }
    if (spec.clusterIP === 'None' || r.endpoint !== undefined) {
      for (const slice of this.src.endpointSlices.byIndex(IDX_SLICE_SERVICE, `${r.namespace}/${r.service}`) as Slice[]) {
        if (slice.addressType === 'FQDN') continue;
        // no ports: one sentinel port, so the addresses still answer A/AAAA
        const ports = slice.ports?.length ? slice.ports : [{ name: '', port: -1, protocol: '' }];
        for (const ep of slice.endpoints ?? []) {
          if (ep.conditions?.ready === false && !spec.publishNotReadyAddresses) continue;
          for (const addr of ep.addresses ?? []) {
            const host = ep.hostname || addressLabel(addr);
            if (r.endpoint !== undefined && r.endpoint !== host.toLowerCase()) continue;
            for (const p of ports) {
              if (!portMatches(r, p.name ?? '', p.protocol ?? 'TCP')) continue;
              matched = true;
              entries.push({ host: addr, port: p.port ?? -1, target: `${host}.${svcDomain}` });
            }
          }
        }
      }
    } else {
      for (const p of spec.ports ?? []) {
        if (!portMatches(r, p.name ?? '', p.protocol ?? 'TCP')) continue;
        matched = true;
        for (const ip of serviceIPs(svc)) entries.push({ host: ip, port: p.port, target: svcDomain });
      }
    }
    // CoreDNS: a Service matching nothing (a headless one without ready endpoints, a port that is not there) is NXDOMAIN
    return matched ? { entries } : { nxdomain: true };
  }

  private addressAnswer(name: string, qtype: 'A' | 'AAAA', entries: Entry[]): Resolution {
    const family = qtype === 'A' ? 4 : 6;
    const answers: Answer[] = [];
    const seen = new Set<string>();
    let chase: Resolution['chase'];
    for (const e of entries) {
      const f = isIP(e.host);
      if (f === 0) {
        answers.push({ name, type: 'CNAME', ttl: this.ttl, class: 'IN', data: e.host });
        chase ??= { target: e.host, type: qtype };
        continue;
      }
      if (f !== family || seen.has(e.host)) continue;
      seen.add(e.host);
      answers.push({ name, type: qtype, ttl: this.ttl, class: 'IN', data: e.host });
    }
    return { ...this.ok(answers), chase };
  }

  private srvAnswer(name: string, entries: Entry[]): Resolution {
    // CoreDNS gives every record of one priority a share of 100: floor(100 / count)
    const weight = Math.floor(100 / Math.max(1, entries.length));
    const answers: Answer[] = [];
    const extra: Answer[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      const k = `${e.target}|${e.port}`;
      if (!seen.has(k)) {
        seen.add(k);
        answers.push({ name, type: 'SRV', ttl: this.ttl, class: 'IN', data: { priority: 0, weight, port: e.port, target: e.target } });
      }
      const ak = `${e.target}|${e.host}`;
      if (!seen.has(ak)) {
        seen.add(ak);
        extra.push(...this.addressRecords(e.target, [e.host]));
      }
    }
    return this.ok(answers, extra);
  }

  private reverse(qname: string, lname: string): Resolution | undefined {
    const ip = addressFromReverse(lname);
    if (!ip || !this.hasSynced()) return undefined;
    const name = qname.replace(/\.$/, '');
    const ptr = (target: string): Answer => ({ name, type: 'PTR', ttl: this.ttl, class: 'IN', data: target });
    for (const svc of this.src.services.byIndex(IDX_CLUSTER_IP, ip)) {
      return this.ok([ptr(`${svc.metadata.name}.${svc.metadata.namespace}.svc.${this.zone}`)]);
    }
    const answers: Answer[] = [];
    for (const slice of this.src.endpointSlices.byIndex(IDX_SLICE_IP, ip) as Slice[]) {
      const svcName = slice.metadata.labels?.[SERVICE_NAME_LABEL];
      if (!svcName) continue;
      const svc = this.src.services.get(slice.metadata.namespace!, svcName);
      const pnra = !!(svc?.spec as ServiceSpec | undefined)?.publishNotReadyAddresses;
      for (const ep of slice.endpoints ?? []) {
        if (ep.conditions?.ready === false && !pnra) continue;
        for (const addr of ep.addresses ?? []) {
          if (canonicalIP(addr) !== ip) continue;
          answers.push(ptr(`${ep.hostname || addressLabel(addr)}.${svcName}.${slice.metadata.namespace}.svc.${this.zone}`));
        }
      }
    }
    // nothing known: fall through to the upstream resolvers, as kubeadm's `fallthrough in-addr.arpa ip6.arpa`
    return answers.length ? this.ok(answers) : undefined;
  }

  soa(): Answer {
    return {
      name: this.zone,
      type: 'SOA',
      ttl: Math.min(this.ttl, 300),
      class: 'IN',
      data: {
        mname: `ns.dns.${this.zone}`,
        rname: `hostmaster.${this.zone}`,
        serial: this.modified >>> 0,
        refresh: 7200,
        retry: 1800,
        expire: 86400,
        minimum: this.ttl,
      },
    };
  }

  private nameservers(): string[] {
    return this.opts.nameserverIPs ?? [];
  }

  private addressRecords(name: string, ips: string[]): Answer[] {
    return ips.map((ip) => ({ name, type: isIP(ip) === 6 ? 'AAAA' : 'A', ttl: this.ttl, class: 'IN', data: ip }) as Answer);
  }

  private ok(answers: Answer[], additionals: Answer[] = []): Resolution {
    if (!answers.length) return this.empty('NOERROR');
    return { rcode: 'NOERROR', answers, authorities: [], additionals };
  }

  /** NXDOMAIN, or NODATA (NOERROR, no answer): both carry the zone's SOA for negative caching (RFC 2308). */
  private empty(rcode: Rcode): Resolution {
    return { rcode, answers: [], authorities: [this.soa()], additionals: [] };
  }

  private touch(): void {
    this.gen++;
    this.modified = Math.floor(Date.now() / 1000);
  }
}

function portMatches(r: { port: string; protocol: string }, name: string, protocol: string): boolean {
  return (r.port === '' || r.port === name.toLowerCase()) && (r.protocol === '' || r.protocol === protocol.toLowerCase());
}

function serviceIPs(svc: KObject): string[] {
  const spec = (svc.spec ?? {}) as ServiceSpec;
  if (spec.type === 'ExternalName' || !spec.clusterIP || spec.clusterIP === 'None') return [];
  return spec.clusterIPs?.length ? spec.clusterIPs : [spec.clusterIP];
}

function podIPs(pod: KObject): string[] {
  const st = (pod.status ?? {}) as { podIP?: string; podIPs?: { ip: string }[] };
  const ips = new Set<string>();
  if (st.podIP) ips.add(st.podIP);
  for (const p of st.podIPs ?? []) ips.add(p.ip);
  return [...ips];
}

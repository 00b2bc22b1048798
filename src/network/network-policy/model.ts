// The pure NetworkPolicy compiler: policies + pods + namespaces → for each pod of this node, whether it is isolated
// for ingress and/or egress and the union of what its policies allow, as (peer ranges × ports) pairs. Semantics as
// documented for networking.k8s.io/v1 (concepts/services-networking/network-policies): a pod is isolated in a direction
// when any policy selecting it has that policyType; allowed traffic is the union of all those policies' rules; an empty
// rule list allows nothing, an empty rule (`{}`) allows everything; peers and ports of one rule must both match.
import type { Pod } from '../../api/core/pod/types.js';
import type { KObject } from '../../api/types.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicyRule } from '../../api/networking/networkpolicy/validation.js';
import { fromLabelSelector } from '../../machinery/labels.js';
import { ipBlockRanges, ipInCidr, parseCidr4 } from './cidr.js';

export type PolicyProtocol = 'TCP' | 'UDP' | 'SCTP';

/** One destination port (range) of one protocol; no port = every port of the protocol. */
export interface PortMatch {
  protocol: PolicyProtocol;
  port?: number;
  /** inclusive end of a range starting at `port` */
  endPort?: number;
}

/** Traffic allowed when its peer address is in `cidrs` (undefined: any) and it matches one of `ports` (undefined: any). */
export interface Allow {
  cidrs?: string[];
  ports?: PortMatch[];
}

export interface PodPolicy {
  uid: string;
  namespace: string;
  name: string;
  ip: string;
  /** set when the pod is isolated for ingress: what may reach it ([] = nothing) */
  ingress?: Allow[];
  /** set when the pod is isolated for egress: where it may connect ([] = nowhere) */
  egress?: Allow[];
  /** `namespace/name` of the policies selecting the pod */
  policies: string[];
}

export interface CompileInput {
  policies: NetworkPolicy[];
  pods: Pod[];
  namespaces: KObject[];
  /** only pods bound to this node get rules (peers are taken from every node) */
  nodeName: string;
}

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** policyTypes as SetDefaults_NetworkPolicy fills them when unset: Ingress, plus Egress when egress rules exist. */
export function effectivePolicyTypes(spec: NetworkPolicy['spec']): { ingress: boolean; egress: boolean } {
  const types = spec?.policyTypes ?? [];
  if (types.length === 0) return { ingress: true, egress: (spec?.egress ?? []).length > 0 };
  return { ingress: types.includes('Ingress'), egress: types.includes('Egress') };
}

/** The pod's IPv4 address when the pod takes part in pod networking (not hostNetwork, not finished, has an IP). */
export function podNetworkIP(pod: Pod): string | undefined {
  if (pod.spec?.hostNetwork) return undefined;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return undefined;
  const ips = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)];
  return ips.find((ip): ip is string => !!ip && parseCidr4(ip) !== undefined && !ip.includes('/'));
}

interface NetPod {
  pod: Pod;
  ip: string;
}

/** A peer resolved: the pods it names, or the ranges of an ipBlock. */
type ResolvedPeer = { kind: 'pods'; pods: NetPod[] } | { kind: 'block'; ranges: string[] };

class Compiler {
  private readonly netPods: NetPod[];
  private readonly nsLabels = new Map<string, Record<string, string>>();

  constructor(private readonly input: CompileInput) {
    this.netPods = input.pods.flatMap((pod) => {
      const ip = podNetworkIP(pod);
      return ip ? [{ pod, ip }] : [];
    });
    for (const ns of input.namespaces) {
      const name = ns.metadata.name ?? '';
      // the API server sets this label on every namespace; a cache without it must still match it
      this.nsLabels.set(name, { [NAMESPACE_NAME_LABEL]: name, ...(ns.metadata.labels ?? {}) });
    }
  }

  compile(): PodPolicy[] {
    const out: PodPolicy[] = [];
    const policies = [...this.input.policies].sort((a, b) => key(a).localeCompare(key(b)));
    for (const { pod, ip } of this.netPods) {
      if (pod.spec?.nodeName !== this.input.nodeName) continue;
      const ns = pod.metadata.namespace ?? 'default';
      const selecting = policies.filter(
        (p) => (p.metadata.namespace ?? 'default') === ns && fromLabelSelector(p.spec?.podSelector ?? {}).matches(pod.metadata.labels ?? {}),
      );
      if (selecting.length === 0) continue;
      const result: PodPolicy = { uid: pod.metadata.uid ?? `${ns}/${pod.metadata.name}`, namespace: ns, name: pod.metadata.name ?? '', ip, policies: selecting.map(key) };
      for (const policy of selecting) {
        const types = effectivePolicyTypes(policy.spec);
        if (types.ingress) {
          result.ingress ??= [];
          for (const rule of policy.spec?.ingress ?? []) result.ingress.push(...this.ingressRule(policy, rule, pod));
        }
        if (types.egress) {
          result.egress ??= [];
          for (const rule of policy.spec?.egress ?? []) result.egress.push(...this.egressRule(policy, rule));
        }
      }
      out.push(result);
    }
    return out;
  }

  /** Ingress: peers are sources; named ports are the protected pod's own container ports. */
  private ingressRule(policy: NetworkPolicy, rule: NetworkPolicyRule, target: Pod): Allow[] {
    const ports = this.portsOn(rule.ports, target);
    if (ports && ports.length === 0) return []; // only unresolvable named ports: matches nothing
    const peers = rule.from ?? [];
    if (peers.length === 0) return [{ ports }];
    const cidrs = peers.flatMap((peer) => peerCidrs(this.resolvePeer(policy, peer)));
    return cidrs.length ? [{ cidrs: dedupe(cidrs), ports }] : [];
  }

  /** Egress: peers are destinations; a named port is resolved on each destination pod separately. */
  private egressRule(policy: NetworkPolicy, rule: NetworkPolicyRule): Allow[] {
    const peers = rule.to ?? [];
    const resolved = peers.map((peer) => this.resolvePeer(policy, peer));
    const named = (rule.ports ?? []).some((p) => typeof p.port === 'string');
    if (!named) {
      const ports = numericPorts(rule.ports);
      if (peers.length === 0) return [{ ports }];
      const cidrs = resolved.flatMap(peerCidrs);
      return cidrs.length ? [{ cidrs: dedupe(cidrs), ports }] : [];
    }
    // numeric ports apply to every peer; named ones only where the destination pod defines the name
    const out: Allow[] = [];
    const numeric = numericPorts((rule.ports ?? []).filter((p) => typeof p.port !== 'string'));
    if (numeric && numeric.length) {
      const cidrs = resolved.flatMap(peerCidrs);
      if (peers.length === 0) out.push({ ports: numeric });
      else if (cidrs.length) out.push({ cidrs: dedupe(cidrs), ports: numeric });
    }
    const namedPorts = (rule.ports ?? []).filter((p) => typeof p.port === 'string');
    const candidates = peers.length === 0 ? this.netPods : dedupePods(resolved.flatMap((r) => this.podsOfPeer(r)));
    for (const dest of candidates) {
      const ports = resolveNamed(namedPorts, dest.pod);
      if (ports.length) out.push({ cidrs: [`${dest.ip}/32`], ports });
    }
    return out;
  }

  private resolvePeer(policy: NetworkPolicy, peer: NetworkPolicyPeer): ResolvedPeer {
    if (peer.ipBlock) return { kind: 'block', ranges: ipBlockRanges(peer.ipBlock) ?? [] };
    const policyNs = policy.metadata.namespace ?? 'default';
    const podSel = peer.podSelector ? fromLabelSelector(peer.podSelector) : undefined;
    const nsSel = peer.namespaceSelector ? fromLabelSelector(peer.namespaceSelector) : undefined;
    if (!podSel && !nsSel) return { kind: 'pods', pods: [] };
    const pods = this.netPods.filter(({ pod }) => {
      const ns = pod.metadata.namespace ?? 'default';
      // podSelector alone: the policy's namespace; namespaceSelector (alone or with podSelector): matching namespaces
      if (nsSel ? !nsSel.matches(this.nsLabels.get(ns) ?? { [NAMESPACE_NAME_LABEL]: ns }) : ns !== policyNs) return false;
      return podSel ? podSel.matches(pod.metadata.labels ?? {}) : true;
    });
    return { kind: 'pods', pods };
  }

  /** The pods a resolved peer covers (an ipBlock covers the known pods whose IP lies in its ranges). */
  private podsOfPeer(peer: ResolvedPeer): NetPod[] {
    if (peer.kind === 'pods') return peer.pods;
    const ranges = peer.ranges.map((r) => parseCidr4(r)!);
    return this.netPods.filter((p) => ranges.some((r) => ipInCidr(p.ip, r)));
  }

  /** A rule's ports against one pod: undefined = every port; named ports resolve on `pod`'s containers. */
  private portsOn(ports: NetworkPolicyPort[] | null | undefined, pod: Pod): PortMatch[] | undefined {
    if (!ports || ports.length === 0) return undefined;
    const out: PortMatch[] = [];
    for (const p of ports) {
      if (typeof p.port === 'string') out.push(...resolveNamed([p], pod));
      else out.push(portMatch(p));
    }
    return out;
  }
}

function key(p: KObject): string {
  return `${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`;
}

function protocolOf(p: NetworkPolicyPort): PolicyProtocol {
  const proto = (p.protocol ?? 'TCP').toUpperCase();
  return proto === 'UDP' || proto === 'SCTP' ? proto : 'TCP';
}

function portMatch(p: NetworkPolicyPort): PortMatch {
  const m: PortMatch = { protocol: protocolOf(p) };
  if (typeof p.port === 'number') {
    m.port = p.port;
    if (typeof p.endPort === 'number' && p.endPort > p.port) m.endPort = p.endPort;
  }
  return m;
}

/** Numeric (or absent) ports of a rule; undefined when the rule lists none (every port). */
function numericPorts(ports: NetworkPolicyPort[] | null | undefined): PortMatch[] | undefined {
  if (!ports || ports.length === 0) return undefined;
  return ports.map(portMatch);
}

/** Named policy ports → the pod's container ports of that name and protocol. */
function resolveNamed(ports: NetworkPolicyPort[], pod: Pod): PortMatch[] {
  const out: PortMatch[] = [];
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const p of ports) {
    const protocol = protocolOf(p);
    for (const c of containers) {
      for (const cp of c.ports ?? []) {
        if (cp.name === p.port && (cp.protocol ?? 'TCP').toUpperCase() === protocol && cp.containerPort) out.push({ protocol, port: cp.containerPort });
      }
    }
  }
  return out;
}

function peerCidrs(peer: ResolvedPeer): string[] {
  return peer.kind === 'block' ? peer.ranges : peer.pods.map((p) => `${p.ip}/32`);
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

function dedupePods(list: NetPod[]): NetPod[] {
  const seen = new Set<NetPod>();
  return list.filter((p) => (seen.has(p) ? false : (seen.add(p), true)));
}

/** Per-pod isolation and allowed traffic for this node's pods that at least one policy selects. */
export function compileNetworkPolicies(input: CompileInput): PodPolicy[] {
  return new Compiler(input).compile();
}

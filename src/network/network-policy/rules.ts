// Compiled pod policies → filter-table chains (pure). One chain per isolated pod and direction; the top chains
// (jumped to first from FORWARD and INPUT) let replies pass, then send a pod's new outgoing traffic through its egress
// chain and new incoming traffic through its ingress chain. A chain RETURNs what it allows (so both ends' policies
// are checked, then the rest of FORWARD decides) and DROPs the rest. FORWARD sees Service traffic after DNAT (the
// pod's real IP and port) and, with br_netfilter, bridged pod-to-pod frames too. The node's own traffic to its pods
// (probes) leaves through OUTPUT and never meets these chains.
import { chainHash } from '../service-proxy/rules.js';
import type { Allow, PodPolicy, PortMatch } from './model.js';

/** K1NP for the default bridge (cni0); K1NP<4 hash characters> for another, so each pod network has its own chains. */
export function policyChainPrefix(bridge?: string): string {
  return !bridge || bridge === 'cni0' ? 'K1NP' : `K1NP${chainHash(bridge).slice(0, 4)}`;
}

export function topChains(prefix: string) {
  return { forward: `${prefix}-FORWARD`, input: `${prefix}-INPUT` };
}

/** The jumps from the built-in chains (inserted first so other accept rules cannot bypass the policies). */
export function policyJumps(prefix: string): Array<{ chain: 'FORWARD' | 'INPUT'; target: string; args: string }> {
  const top = topChains(prefix);
  const args = '-m comment --comment "k1s network policies"';
  return [
    { chain: 'FORWARD', target: top.forward, args },
    { chain: 'INPUT', target: top.input, args },
  ];
}

export function podChains(prefix: string, uid: string): { ingress: string; egress: string } {
  const h = chainHash(uid);
  return { ingress: `${prefix}-I-${h}`, egress: `${prefix}-E-${h}` };
}

/** chain name → its `-A` lines, in order */
export type PolicyChains = Map<string, string[]>;

function comment(text: string): string {
  return `-m comment --comment "${text.replace(/(["\\])/g, '\\$1')}"`;
}

function portArgs(p: PortMatch): string {
  const proto = p.protocol.toLowerCase();
  if (p.port === undefined) return `-p ${proto}`;
  const range = p.endPort !== undefined ? `${p.port}:${p.endPort}` : `${p.port}`;
  return `-p ${proto} -m ${proto} --dport ${range}`;
}

/** The allow lines of one direction: every (peer range × port) pair RETURNs; duplicates collapse. */
function allowLines(chain: string, allows: Allow[], peerFlag: '-s' | '-d'): string[] {
  const lines: string[] = [];
  for (const a of allows) {
    const peers = a.cidrs ? a.cidrs.map((c) => `${peerFlag} ${c} `) : [''];
    const ports = a.ports ? a.ports.map((p) => `${portArgs(p)} `) : [''];
    for (const peer of peers) for (const port of ports) lines.push(`-A ${chain} ${peer}${port}-j RETURN`);
  }
  return [...new Set(lines)];
}

/** Every chain the prefix needs for these pods on `bridge` (the top chains always exist, even with nothing isolated). */
export function buildPolicyChains(pods: PodPolicy[], opts: { prefix: string; bridge: string }): PolicyChains {
  const top = topChains(opts.prefix);
  const established = '-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN';
  const forward = [`-A ${top.forward} ${established}`];
  const input = [`-A ${top.input} ${established}`];
  const chains: PolicyChains = new Map([
    [top.forward, forward],
    [top.input, input],
  ]);
  const sorted = [...pods].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.uid.localeCompare(b.uid));
  for (const pod of sorted) {
    const names = podChains(opts.prefix, pod.uid);
    const who = comment(`${pod.namespace}/${pod.name}`);
    if (pod.egress) {
      // from the pod: to other pods and beyond (FORWARD) and to the node itself (INPUT)
      forward.push(`-A ${top.forward} -i ${opts.bridge} -s ${pod.ip}/32 ${who} -j ${names.egress}`);
      input.push(`-A ${top.input} -i ${opts.bridge} -s ${pod.ip}/32 ${who} -j ${names.egress}`);
      // a pod cannot block access to itself
      chains.set(names.egress, [`-A ${names.egress} -d ${pod.ip}/32 -j RETURN`, ...allowLines(names.egress, pod.egress, '-d'), `-A ${names.egress} -j DROP`]);
    }
    if (pod.ingress) {
      forward.push(`-A ${top.forward} -o ${opts.bridge} -d ${pod.ip}/32 ${who} -j ${names.ingress}`);
      chains.set(names.ingress, [`-A ${names.ingress} -s ${pod.ip}/32 -j RETURN`, ...allowLines(names.ingress, pod.ingress, '-s'), `-A ${names.ingress} -j DROP`]);
    }
  }
  return chains;
}

export interface RestorePlan {
  /** the iptables-restore input, or '' when the host already has all of it */
  text: string;
  /** chains rewritten (declared and refilled) */
  written: string[];
  /** chains deleted */
  removed: string[];
}

/**
 * One `iptables-restore --noflush` transaction for the filter table: rewrites only chains whose lines changed since
 * `previous` (all of them when previous is undefined), deletes `stale` chains that are no longer wanted, and adds
 * `missingJumps` in front of the built-in chains.
 */
export function restorePlan(
  desired: PolicyChains,
  opts: { previous?: PolicyChains; stale?: Iterable<string>; missingJumps?: ReturnType<typeof policyJumps> },
): RestorePlan {
  const written = [...desired.keys()].filter((name) => {
    const before = opts.previous?.get(name);
    const now = desired.get(name)!;
    return !before || before.length !== now.length || before.some((l, i) => l !== now[i]);
  });
  const removed = [...new Set(opts.stale ?? [])].filter((name) => !desired.has(name)).sort();
  const jumps = opts.missingJumps ?? [];
  if (written.length === 0 && removed.length === 0 && jumps.length === 0) return { text: '', written, removed };
  const lines = ['*filter'];
  // declaring a chain flushes it: the top chains are refilled in this same transaction before stale chains go
  for (const name of [...written, ...removed]) lines.push(`:${name} - [0:0]`);
  for (const name of written) lines.push(...desired.get(name)!);
  for (const j of jumps) lines.push(`-I ${j.chain} 1 ${j.args} -j ${j.target}`);
  for (const name of removed) lines.push(`-X ${name}`);
  lines.push('COMMIT');
  return { text: lines.join('\n') + '\n', written, removed };
}

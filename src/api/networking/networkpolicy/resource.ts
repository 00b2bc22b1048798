// networking.k8s.io/v1 NetworkPolicy: schema (staging/src/k8s.io/api/networking/v1/types.go; no status since 1.28),
// SetDefaults_NetworkPolicy(Port) in pkg/apis/networking/v1/defaults.go, pkg/registry/networking/networkpolicy/
// strategy.go (generation, CIDR warnings) and printNetworkPolicy.
import type { MetaLabelSelector } from '../../../machinery/labels.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import { ageColumn, formatLabelSelector, nameColumn } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { NET } from '../ingress/schema.js';
import {
  networkPolicyUpdateOptions,
  networkPolicyWarnings,
  validateNetworkPolicySpec,
  type NetworkPolicy,
  type NetworkPolicyRule,
} from './validation.js';
import { isCreate, orEmpty } from '../util.js';
import { defineResource } from '../../types.js';

export type { NetworkPolicy } from './validation.js';

const item = (name: string) => s.ref(NET + name, undefined, { default: {} });
const PROTOCOL = (d: string) => s.enumOf(['SCTP', 'TCP', 'UDP'], d);

export const networkPolicyDefinitions: Definitions = {
  [`${NET}NetworkPolicy`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${NET}NetworkPolicySpec`, 'spec represents the specification of the desired behavior for this NetworkPolicy.', { default: {} }),
    },
    { description: 'NetworkPolicy describes what network traffic is allowed for a set of Pods' },
  ),
  [`${NET}NetworkPolicySpec`]: s.obj(
    {
      egress: s.arr(item('NetworkPolicyEgressRule'), {
        description:
          'egress lists the egress rules for the selected pods. Outgoing traffic is allowed if no policy selects the pod, or if it matches at least one egress rule of the policies that do. An empty list allows no outgoing traffic.',
      }),
      ingress: s.arr(item('NetworkPolicyIngressRule'), {
        description:
          "ingress lists the ingress rules for the selected pods. Traffic is allowed if no policy selects the pod, if it comes from the pod's own node, or if it matches at least one ingress rule of the policies that do. An empty list allows no traffic.",
      }),
      podSelector: s.ref(
        META.LabelSelector,
        "podSelector selects the pods this policy applies to; an empty selector selects all pods in the policy's namespace. Rules of several policies selecting the same pod are combined additively.",
        { default: {} },
      ),
      policyTypes: s.arr(s.enumOf(['Egress', 'Ingress']), {
        description:
          'policyTypes lists the rule types the policy relates to: ["Ingress"], ["Egress"] or both. When unset it defaults to Ingress, plus Egress if there are egress rules; an egress-only or deny-all-egress policy must say so explicitly.',
      }),
    },
    { description: 'NetworkPolicySpec provides the specification of a NetworkPolicy' },
  ),
  [`${NET}NetworkPolicyIngressRule`]: s.obj(
    {
      from: s.arr(item('NetworkPolicyPeer'), {
        description: 'from lists the sources allowed to reach the selected pods, ORed. Empty or missing matches all sources.',
      }),
      ports: s.arr(item('NetworkPolicyPort'), {
        description: 'ports lists the ports made reachable on the selected pods, ORed. Empty or missing matches all ports.',
      }),
    },
    {
      description:
        "NetworkPolicyIngressRule describes traffic allowed to the pods matched by a NetworkPolicySpec's podSelector; the traffic must match both ports and from.",
    },
  ),
  [`${NET}NetworkPolicyEgressRule`]: s.obj(
    {
      ports: s.arr(item('NetworkPolicyPort'), {
        description: 'ports lists the destination ports allowed for outgoing traffic, ORed. Empty or missing matches all ports.',
      }),
      to: s.arr(item('NetworkPolicyPeer'), {
        description: 'to lists the destinations allowed for outgoing traffic, ORed. Empty or missing matches all destinations.',
      }),
    },
    {
      description:
        "NetworkPolicyEgressRule describes traffic allowed out of the pods matched by a NetworkPolicySpec's podSelector; the traffic must match both ports and to.",
    },
  ),
  [`${NET}NetworkPolicyPort`]: s.obj(
    {
      endPort: s.int32('endPort, if set, makes the rule cover the port range port..endPort inclusive. It needs a numeric port and must be at least port.'),
      port: s.intOrString('port is a numerical or named port on a pod. If not provided, all port names and numbers match.'),
      protocol: PROTOCOL('protocol is the protocol (TCP, UDP, or SCTP) which traffic must match. Defaults to TCP.'),
    },
    { description: 'NetworkPolicyPort describes a port to allow traffic on' },
  ),
  [`${NET}IPBlock`]: s.obj(
    {
      cidr: s.str('cidr is the IP range of the block, e.g. "192.168.1.0/24" or "2001:db8::/64".', { default: '' }),
      except: s.arr(s.str(undefined, { default: '' }), {
        description: 'except lists CIDRs excluded from the block; each must lie within cidr.',
      }),
    },
    {
      description:
        "IPBlock describes a CIDR (e.g. \"192.168.1.0/24\", \"2001:db8::/64\") allowed to or from the pods matched by a NetworkPolicySpec's podSelector, minus the except ranges.",
      required: ['cidr'],
    },
  ),
  [`${NET}NetworkPolicyPeer`]: s.obj(
    {
      ipBlock: s.ref(`${NET}IPBlock`, 'ipBlock selects an IP range. When set, neither selector may be.'),
      namespaceSelector: s.ref(
        META.LabelSelector,
        'namespaceSelector selects namespaces by label; empty selects all. With podSelector, the peer is the selected pods in the selected namespaces; alone, all pods of those namespaces.',
      ),
      podSelector: s.ref(
        META.LabelSelector,
        "podSelector selects pods by label; empty selects all. With namespaceSelector it applies in the selected namespaces, otherwise in the policy's own namespace.",
      ),
    },
    { description: 'NetworkPolicyPeer describes a peer to allow traffic to/from. Only certain combinations of fields are allowed' },
  ),
  [`${NET}NetworkPolicyList`]: listDefinition(`${NET}NetworkPolicy`, 'NetworkPolicyList is a list of NetworkPolicy objects.', 'items is a list of schema objects.'),
};

function dropEmpty(o: Record<string, unknown> | null | undefined, ...keys: string[]): void {
  if (!o) return;
  for (const k of keys) if (Array.isArray(o[k]) && (o[k] as unknown[]).length === 0) delete o[k];
}

function defaultRules(rules: NetworkPolicyRule[] | null | undefined, peers: 'from' | 'to'): void {
  for (const rule of orEmpty(rules)) {
    if (!rule || typeof rule !== 'object') continue;
    dropEmpty(rule as Record<string, unknown>, 'ports', peers);
    // SetDefaults_NetworkPolicyPort
    for (const p of orEmpty(rule.ports)) if (p && p.protocol == null) p.protocol = 'TCP';
    for (const peer of orEmpty(rule[peers])) dropEmpty(peer?.ipBlock as Record<string, unknown>, 'except');
  }
}

/** SetDefaults_NetworkPolicy and the port defaults; podSelector is a Go struct, always present. */
export function defaultNetworkPolicy(np: NetworkPolicy): void {
  const spec = (np.spec ??= {});
  spec.podSelector ??= {} as MetaLabelSelector;
  dropEmpty(spec as Record<string, unknown>, 'ingress', 'egress', 'policyTypes');
  defaultRules(spec.ingress, 'from');
  defaultRules(spec.egress, 'to');
  if (!orEmpty(spec.policyTypes).length) spec.policyTypes = orEmpty(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

export const networkPolicyResource = defineResource<NetworkPolicy>({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  singular: 'networkpolicy',
  shortNames: ['netpol'],
  namespaced: true,
  schemaRef: `${NET}NetworkPolicy`,
  definitions: networkPolicyDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    {
      name: 'Pod-Selector',
      type: 'string',
      description: networkPolicyDefinitions[`${NET}NetworkPolicySpec`].properties!.podSelector.description!,
      cell: (o) => formatLabelSelector(o.spec?.podSelector ?? {}),
    },
    ageColumn(),
  ],
  strategy: {
    defaults: defaultNetworkPolicy,
    // Updates tolerate invalid selectors and CIDRs already stored, so they validate entirely in validateUpdate.
    validate: (np) => (isCreate(np) ? validateNetworkPolicySpec(np.spec ?? {}) : []),
    validateUpdate: (np, old) => validateNetworkPolicySpec(np.spec ?? {}, networkPolicyUpdateOptions(old)),
    warnings: (np) => networkPolicyWarnings(np),
    allowCreateOnUpdate: false,
  },
});

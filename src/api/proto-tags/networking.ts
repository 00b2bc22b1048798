// Protobuf field numbers of networking.k8s.io/v1 types.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33.13.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const N = 'io.k8s.api.networking.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });
/** An embedded struct: a nested message on the wire, its fields inlined in JSON. */
const inl = (tag: number, name: string) => ({ tag, inline: N + name });

export const networkingProtoTags: ProtoTags = {
  [N + 'NetworkPolicy']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [N + 'NetworkPolicySpec']: { podSelector: 1, ingress: 2, egress: 3, policyTypes: 4 },
  [N + 'NetworkPolicyIngressRule']: { ports: 1, from: 2 },
  [N + 'NetworkPolicyEgressRule']: { ports: 1, to: 2 },
  [N + 'NetworkPolicyPort']: { protocol: k(1), port: 2, endPort: k(3) },
  [N + 'IPBlock']: { cidr: k(1), except: 2 },
  [N + 'NetworkPolicyPeer']: { podSelector: 1, namespaceSelector: 2, ipBlock: 3 },
  [N + 'NetworkPolicyList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [N + 'Ingress']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [N + 'IngressList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [N + 'IngressSpec']: { ingressClassName: k(4), defaultBackend: 1, tls: 2, rules: 3 },
  [N + 'IngressTLS']: { hosts: 1, secretName: 2 },
  [N + 'IngressStatus']: { loadBalancer: 1 },
  [N + 'IngressLoadBalancerStatus']: { ingress: 1 },
  [N + 'IngressLoadBalancerIngress']: { ip: 1, hostname: 2, ports: 4 },
  [N + 'IngressPortStatus']: { port: k(1), protocol: k(2), error: k(3) },
  [N + 'IngressRule']: { host: 1, '@ingressRuleValue': inl(2, 'IngressRuleValue') },
  [N + 'IngressRuleValue']: { http: 1 },
  [N + 'HTTPIngressRuleValue']: { paths: 1 },
  [N + 'HTTPIngressPath']: { path: 1, pathType: k(3), backend: 2 },
  [N + 'IngressBackend']: { service: 4, resource: 3 },
  [N + 'IngressServiceBackend']: { name: k(1), port: 2 },
  [N + 'ServiceBackendPort']: { name: 1, number: 2 },
  [N + 'IngressClass']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [N + 'IngressClassSpec']: { controller: 1, parameters: 2 },
  [N + 'IngressClassParametersReference']: { apiGroup: k(1), kind: k(2), name: k(3), scope: k(4), namespace: k(5) },
  [N + 'IngressClassList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [N + 'IPAddress']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [N + 'IPAddressSpec']: { parentRef: 1 },
  [N + 'ParentReference']: { group: 1, resource: 2, namespace: 3, name: 4 },
  [N + 'IPAddressList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [N + 'ServiceCIDR']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [N + 'ServiceCIDRSpec']: { cidrs: 1 },
  [N + 'ServiceCIDRStatus']: { conditions: 1 },
  [N + 'ServiceCIDRList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
};

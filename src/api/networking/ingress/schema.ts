// networking.k8s.io/v1 Ingress and IngressClass schemas: staging/src/k8s.io/api/networking/v1/types.go (list types
// and patch metadata from its markers). Descriptions paraphrase the API reference.
import { s, type Definitions } from '../../../machinery/schema.js';
import { CORE } from '../../core/common.js';
import { podVolumeDefinitions } from '../../core/pod/schema-volumes.js';
import { kindHeader, listDefinition } from '../../meta.js';
import type { KObject } from '../../types.js';

export const NET = 'io.k8s.api.networking.v1.';

export interface ServiceBackendPort {
  name?: string;
  number?: number;
}
export interface IngressBackend {
  service?: { name?: string; port?: ServiceBackendPort } | null;
  resource?: { apiGroup?: string | null; kind?: string; name?: string } | null;
}
export interface HTTPIngressPath {
  path?: string;
  pathType?: string | null;
  backend?: IngressBackend;
}
export interface IngressRule {
  host?: string;
  http?: { paths?: HTTPIngressPath[] | null } | null;
}
export interface IngressTLS {
  hosts?: string[];
  secretName?: string;
}
export interface IngressLoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ports?: Array<{ port?: number; protocol?: string; error?: string | null }>;
}
export interface IngressSpec {
  ingressClassName?: string | null;
  defaultBackend?: IngressBackend | null;
  tls?: IngressTLS[] | null;
  rules?: IngressRule[] | null;
}
export interface Ingress extends KObject {
  spec?: IngressSpec;
  status?: { loadBalancer?: { ingress?: IngressLoadBalancerIngress[] | null } };
}

export interface IngressClassParametersReference {
  apiGroup?: string | null;
  kind?: string;
  name?: string;
  scope?: string | null;
  namespace?: string | null;
}
export interface IngressClass extends KObject {
  spec?: { controller?: string; parameters?: IngressClassParametersReference | null };
}

const SPEC_STATUS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status';
const r = (name: string, description?: string) => s.ref(NET + name, description);
const item = (name: string) => s.ref(NET + name, undefined, { default: {} });
const reqStr = (d: string) => s.str(d, { default: '' });
const atomicStrings = (d: string) => s.arr(s.str(undefined, { default: '' }), { description: d });

export const ingressDefinitions: Definitions = {
  [`${NET}Ingress`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${NET}IngressSpec`, `spec is the desired state of the Ingress. More info: ${SPEC_STATUS}`, { default: {} }),
      status: s.ref(`${NET}IngressStatus`, `status is the current state of the Ingress. More info: ${SPEC_STATUS}`, { default: {} }),
    },
    {
      description:
        'Ingress is a collection of rules that let inbound connections reach the endpoints defined by a backend. It can give services externally reachable URLs, load balance traffic, terminate TLS and offer name-based virtual hosting.',
    },
  ),
  [`${NET}IngressSpec`]: s.obj(
    {
      defaultBackend: r('IngressBackend', 'defaultBackend handles requests that match no rule. Required when rules is empty; otherwise unmatched requests are handled as the controller decides.'),
      ingressClassName: s.str('ingressClassName names the IngressClass (a cluster resource) that should serve this Ingress. It replaces the deprecated `kubernetes.io/ingress.class` annotation, which controllers may still honor.'),
      rules: s.arr(item('IngressRule'), { description: 'rules map hosts and paths to backends. With no rules, or when no rule matches, traffic goes to the default backend.' }),
      tls: s.arr(item('IngressTLS'), { description: 'tls configures TLS termination on port 443. Entries with different hosts are multiplexed on that port by SNI, if the controller supports SNI.' }),
    },
    { description: 'IngressSpec describes the Ingress the user wishes to exist.' },
  ),
  [`${NET}IngressTLS`]: s.obj(
    {
      hosts: atomicStrings('hosts are the host names covered by the TLS certificate; they must match names in the secret. Defaults to the wildcard host of the load balancer controller.'),
      secretName: s.str('secretName is the Secret holding the certificate and key used to terminate TLS on port 443. Optional, to allow routing on the SNI host name alone.'),
    },
    { description: 'IngressTLS describes the transport layer security associated with an ingress.' },
  ),
  [`${NET}IngressStatus`]: s.obj(
    { loadBalancer: s.ref(`${NET}IngressLoadBalancerStatus`, 'loadBalancer contains the current status of the load-balancer.', { default: {} }) },
    { description: 'IngressStatus describes the current state of the Ingress.' },
  ),
  [`${NET}IngressLoadBalancerStatus`]: s.obj(
    { ingress: s.arr(item('IngressLoadBalancerIngress'), { description: 'ingress is a list containing ingress points for the load-balancer.' }) },
    { description: 'IngressLoadBalancerStatus represents the status of a load-balancer.' },
  ),
  [`${NET}IngressLoadBalancerIngress`]: s.obj(
    {
      hostname: s.str('hostname is set for load-balancer ingress points that are DNS based.'),
      ip: s.str('ip is set for load-balancer ingress points that are IP based.'),
      ports: s.arr(item('IngressPortStatus'), { description: 'ports provides information about the ports exposed by this LoadBalancer.' }),
    },
    { description: 'IngressLoadBalancerIngress represents the status of a load-balancer ingress point.' },
  ),
  [`${NET}IngressPortStatus`]: s.obj(
    {
      error: s.str('error records a problem with the service port: a CamelCase built-in value or a foo.example.com/CamelCase provider-specific one.'),
      port: s.int32('port is the port number of the ingress port.', { default: 0 }),
      protocol: { ...s.enumOf(['SCTP', 'TCP', 'UDP'], 'protocol is the protocol of the ingress port: "TCP", "UDP" or "SCTP".'), default: '' },
    },
    { description: 'IngressPortStatus represents the error condition of a service port', required: ['port', 'protocol'] },
  ),
  [`${NET}IngressRule`]: s.obj(
    {
      host: s.str(
        'host is the fully qualified domain name of a network host (RFC 3986), without IPs or ports. It is either precise ("foo.bar.com") or a wildcard with one leading "*" label ("*.foo.com"), which matches exactly one label. Requests are matched on host before the rule value; with no host, the rule applies to all traffic.',
      ),
      http: r('HTTPIngressRuleValue'),
    },
    {
      description:
        'IngressRule maps the paths under a host to backends. A request is matched on host first, then routed by the rule value (http, the only kind currently).',
    },
  ),
  [`${NET}HTTPIngressRuleValue`]: s.obj(
    { paths: s.arr(item('HTTPIngressPath'), { description: 'paths is a collection of paths that map requests to backends.' }) },
    { description: 'HTTPIngressRuleValue is a list of http selectors pointing to backends: the part of the URL after the host and before any query.', required: ['paths'] },
  ),
  [`${NET}HTTPIngressPath`]: s.obj(
    {
      backend: s.ref(`${NET}IngressBackend`, 'backend is the service or resource that receives matching traffic.', { default: {} }),
      path: s.str('path is matched against the path of an incoming request. It must begin with "/" and is required for the Exact and Prefix path types.'),
      pathType: s.enumOf(
        ['Exact', 'ImplementationSpecific', 'Prefix'],
        'pathType decides how path is matched: Exact (the whole URL path, case-sensitive), Prefix (element-wise prefix of the path split by "/"), or ImplementationSpecific (up to the IngressClass). Required.',
      ),
    },
    { description: 'HTTPIngressPath associates a path with a backend. Incoming urls matching the path are forwarded to the backend.', required: ['pathType', 'backend'] },
  ),
  [`${NET}IngressBackend`]: s.obj(
    {
      resource: s.ref(`${CORE}TypedLocalObjectReference`, 'resource references another object in the Ingress namespace as the backend. Mutually exclusive with service.'),
      service: r('IngressServiceBackend', 'service references a Service as the backend. Mutually exclusive with resource.'),
    },
    { description: 'IngressBackend describes all endpoints for a given service and port.' },
  ),
  [`${NET}IngressServiceBackend`]: s.obj(
    {
      name: reqStr('name of the referenced Service, which must be in the namespace of the Ingress.'),
      port: s.ref(`${NET}ServiceBackendPort`, 'port of the referenced service: a port name or number is required.', { default: {} }),
    },
    { description: 'IngressServiceBackend references a Kubernetes Service as a Backend.', required: ['name'] },
  ),
  [`${NET}ServiceBackendPort`]: s.obj(
    {
      name: s.str('name is the name of the port on the Service. Mutually exclusive with number.'),
      number: s.int32('number is the numerical port number (e.g. 80) on the Service. Mutually exclusive with name.'),
    },
    { description: 'ServiceBackendPort is the service port being referenced.', mapType: 'atomic' },
  ),
  [`${NET}IngressList`]: listDefinition(`${NET}Ingress`, 'IngressList is a collection of Ingress.', 'items is the list of Ingress.'),
  [`${NET}IngressClass`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${NET}IngressClassSpec`, `spec is the desired state of the IngressClass. More info: ${SPEC_STATUS}`, { default: {} }),
    },
    {
      description:
        'IngressClass represents the class of the Ingress, referenced by the Ingress Spec. The `ingressclass.kubernetes.io/is-default-class` annotation marks a class as default: when exactly one class has it set to true, new Ingresses without a class are given that class.',
    },
  ),
  [`${NET}IngressClassSpec`]: s.obj(
    {
      controller: s.str(
        'controller names the controller that handles this class, as a domain-prefixed path of at most 250 characters, e.g. "acme.io/ingress-controller". Several classes may share a controller with different parameters. This field is immutable.',
      ),
      parameters: r('IngressClassParametersReference', 'parameters links to a custom resource with additional configuration for the controller. Optional when the controller needs none.'),
    },
    { description: 'IngressClassSpec provides information about the class of an Ingress.' },
  ),
  [`${NET}IngressClassParametersReference`]: s.obj(
    {
      apiGroup: s.str('apiGroup is the group of the referenced resource. When unset, kind must be in the core API group; third-party types need it.'),
      kind: reqStr('kind is the type of resource being referenced.'),
      name: reqStr('name is the name of resource being referenced.'),
      namespace: s.str('namespace of the referenced resource: required when scope is "Namespace" and must be unset when scope is "Cluster".'),
      scope: s.str('scope says whether the reference is to a cluster-scoped ("Cluster", the default) or namespace-scoped ("Namespace") resource.'),
    },
    { description: 'IngressClassParametersReference identifies an API object. This can be used to specify a cluster or namespace-scoped resource.', required: ['kind', 'name'] },
  ),
  [`${NET}IngressClassList`]: listDefinition(`${NET}IngressClass`, 'IngressClassList is a collection of IngressClasses.', 'items is the list of IngressClasses.'),
  // Ingress backends reference core TypedLocalObjectReference; shared with the Pod schema.
  [`${CORE}TypedLocalObjectReference`]: podVolumeDefinitions[`${CORE}TypedLocalObjectReference`],
};

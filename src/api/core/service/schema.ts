// OpenAPI schema of core/v1 Service. Patch metadata and list types follow the Go struct tags and markers of
// k8s.io/api/core/v1/types.go (1.33); descriptions are short summaries for `kubectl explain`.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { META, kindHeader, listDefinition } from '../../meta.js';

const r = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(CORE + name, description, extra);
const strList = (description: string): Schema => s.arr(s.str(undefined, { default: '' }), { description });
const SVC_DOC = 'https://kubernetes.io/docs/concepts/services-networking/service/';

export const serviceDefinitions: Definitions = {
  [`${CORE}Service`]: s.obj(
    {
      ...kindHeader(),
      spec: r('ServiceSpec', 'Desired behaviour of the service: its ports, selector, type and addresses.', { default: {} }),
      status: r('ServiceStatus', 'Most recently observed status of the service, such as its load balancer. Read-only.', { default: {} }),
    },
    {
      description:
        'Service gives a set of pods (chosen by a label selector) one stable virtual address and name, and load-balances the ports it exposes across them.',
    },
  ),
  [`${CORE}ServiceSpec`]: s.obj(
    {
      ports: s.arr(r('ServicePort', undefined, { default: {} }), {
        mergeKey: 'port',
        mapKeys: ['port', 'protocol'],
        description: `Ports the service exposes. More info: ${SVC_DOC}#virtual-ips-and-service-proxies`,
      }),
      selector: {
        ...s.strMap(
          'Label selector of the pods that receive the traffic. Without one, endpoints are managed by someone else. Ignored for ExternalName services.',
        ),
        mapType: 'atomic',
      },
      clusterIP: s.str(
        'Virtual IP of the service, normally allocated at random. "None" makes a headless service. May be chosen on create if free and in range; cannot change afterwards (except when switching to or from ExternalName).',
      ),
      clusterIPs: strList(
        'The cluster IPs of the service, at most one per IP family; the first equals clusterIP. Cannot change after creation except to add or drop a secondary family.',
      ),
      type: s.enumOf(
        ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
        `How the service is exposed: ClusterIP (default; an in-cluster virtual IP), NodePort (also a port on every node), LoadBalancer (also an external load balancer, where supported) or ExternalName (a DNS alias of externalName). More info: ${SVC_DOC}#publishing-services-service-types`,
      ),
      externalIPs: strList('Extra IPs nodes accept traffic for on behalf of this service. Not managed by Kubernetes.'),
      sessionAffinity: s.enumOf(['ClientIP', 'None'], 'ClientIP keeps a client on the same endpoint; None (default) does not.'),
      loadBalancerIP: s.str('Deprecated: the address requested from the load balancer implementation, if it supports it.'),
      loadBalancerSourceRanges: strList('Client CIDRs a LoadBalancer service is restricted to, where the provider supports it.'),
      externalName: s.str('The DNS name an ExternalName service aliases (a CNAME record). Required for that type.'),
      externalTrafficPolicy: s.enumOf(
        ['Cluster', 'Local'],
        'For externally reachable services: Cluster (default) spreads traffic over all endpoints; Local uses only node-local endpoints and keeps the client source IP.',
      ),
      healthCheckNodePort: s.int32('Node port serving health checks of a LoadBalancer service with externalTrafficPolicy Local. Allocated when not given.'),
      publishNotReadyAddresses: s.bool('Publish endpoints of pods that are not ready (useful for peer discovery of stateful sets).'),
      sessionAffinityConfig: r('SessionAffinityConfig', 'Settings of session affinity.'),
      ipFamilies: s.arr(s.enumOf(['IPv4', 'IPv6']), {
        description: 'IP families of the service, in the order of clusterIPs. Defaulted from the cluster configuration and the clusterIPs given.',
      }),
      ipFamilyPolicy: s.enumOf(
        ['PreferDualStack', 'RequireDualStack', 'SingleStack'],
        'Dual-stack behaviour: SingleStack (default), PreferDualStack or RequireDualStack.',
      ),
      allocateLoadBalancerNodePorts: s.bool('Whether a LoadBalancer service gets node ports. Defaults to true.'),
      loadBalancerClass: s.str('The load balancer implementation that should handle this LoadBalancer service. Cannot change once set.'),
      internalTrafficPolicy: s.enumOf(['Cluster', 'Local'], 'Cluster (default) routes in-cluster traffic to all endpoints; Local only to node-local ones.'),
      trafficDistribution: s.str('Preference for how traffic reaches endpoints, e.g. "PreferClose" for topologically close ones.'),
    },
    { description: 'ServiceSpec describes the attributes a user creates on a service.' },
  ),
  [`${CORE}ServicePort`]: s.obj(
    {
      name: s.str('Name of the port, a DNS label unique within the service. Required when there is more than one port.'),
      protocol: { ...s.enumOf(['SCTP', 'TCP', 'UDP'], 'IP protocol: TCP (default), UDP or SCTP.'), default: 'TCP' },
      appProtocol: s.str('Application protocol of the port, a hint for implementations (e.g. "kubernetes.io/h2c").'),
      port: s.int32('Port the service exposes.', { default: 0 }),
      targetPort: s.intOrString('Number or name of the port on the pods that receives the traffic. Defaults to port.'),
      nodePort: s.int32('Port on every node for NodePort and LoadBalancer services. Allocated when not given.'),
    },
    { required: ['port'], description: 'A port a service exposes.' },
  ),
  [`${CORE}ServiceStatus`]: s.obj(
    {
      loadBalancer: r('LoadBalancerStatus', 'Status of the load balancer, if any.', { default: {} }),
      conditions: s.arr(s.ref(META.Condition, undefined, { default: {} }), { mergeKey: 'type', description: 'Current conditions of the service.' }),
    },
    { description: 'ServiceStatus represents the current status of a service.' },
  ),
  [`${CORE}LoadBalancerStatus`]: s.obj(
    { ingress: s.arr(r('LoadBalancerIngress', undefined, { default: {} }), { description: 'Ingress points of the load balancer.' }) },
    { description: 'Status of a load balancer.' },
  ),
  [`${CORE}LoadBalancerIngress`]: s.obj(
    {
      ip: s.str('IP of an IP-based ingress point.'),
      hostname: s.str('Hostname of a DNS-based ingress point.'),
      ipMode: s.str('How the load balancer IP behaves: VIP (traffic arrives with it as destination) or Proxy.'),
      ports: s.arr(r('PortStatus', undefined, { default: {} }), { description: 'Status of the ports of the service at this ingress point.' }),
    },
    { description: 'An ingress point of a load balancer.' },
  ),
  [`${CORE}PortStatus`]: s.obj(
    {
      port: s.int32('Port number of the service port.', { default: 0 }),
      protocol: s.str('Protocol of the service port.', { default: '' }),
      error: s.str('Problem with this port, as a CamelCase reason; empty when fine.'),
    },
    { required: ['port', 'protocol'], description: 'Status of a service port at a load balancer.' },
  ),
  [`${CORE}SessionAffinityConfig`]: s.obj(
    { clientIP: r('ClientIPConfig', 'Settings of ClientIP session affinity.') },
    { description: 'Configuration of session affinity.' },
  ),
  [`${CORE}ClientIPConfig`]: s.obj(
    { timeoutSeconds: s.int32('Seconds a ClientIP affinity sticks (1-86400). Defaults to 10800 (3 hours).') },
    { description: 'Configuration of ClientIP session affinity.' },
  ),
  [`${CORE}ServiceList`]: listDefinition(`${CORE}Service`, 'ServiceList holds a list of services.', 'List of services'),
};

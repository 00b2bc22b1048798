// The fields of Services, EndpointSlices, Namespaces and Pods that DNS answers depend on. The worker is sent only
// these (dnsView), so an update elsewhere in an object costs no message and no re-index.
import type { KObject } from '../../api/types.js';
import type { DnsSourceKind } from './records.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
}
export interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  externalName?: string;
  ports?: ServicePort[];
  publishNotReadyAddresses?: boolean;
}
export interface SliceEndpoint {
  addresses?: string[];
  hostname?: string;
  conditions?: { ready?: boolean };
}
export interface Slice extends KObject {
  addressType?: string;
  endpoints?: SliceEndpoint[];
  ports?: { name?: string; port?: number; protocol?: string }[];
}

/**
 * The part of an object the records read (what is copied to the DNS worker): a change outside it changes no answer.
 * Keep in step with what ClusterDnsRecords (records.ts) reads.
 */
export function dnsView(kind: DnsSourceKind, o: KObject): KObject {
  const metadata = { name: o.metadata.name, namespace: o.metadata.namespace };
  switch (kind) {
    case 'namespaces':
      return { metadata: { name: o.metadata.name } } as KObject;
    case 'services': {
      const s = (o.spec ?? {}) as ServiceSpec;
      const spec: ServiceSpec = {
        type: s.type,
        clusterIP: s.clusterIP,
        clusterIPs: s.clusterIPs,
        externalName: s.externalName,
        ports: s.ports?.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
        publishNotReadyAddresses: s.publishNotReadyAddresses,
      };
      return { metadata, spec } as unknown as KObject;
    }
    case 'endpointSlices': {
      const sl = o as Slice;
      const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
      return {
        metadata: { ...metadata, labels: svc === undefined ? undefined : { [SERVICE_NAME_LABEL]: svc } },
        addressType: sl.addressType,
        endpoints: sl.endpoints?.map((e) => ({ addresses: e.addresses, hostname: e.hostname, conditions: e.conditions && { ready: e.conditions.ready } })),
        ports: sl.ports?.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
      } as unknown as KObject;
    }
    case 'pods': {
      const st = (o.status ?? {}) as { podIP?: string; podIPs?: { ip: string }[] };
      return { metadata, status: { podIP: st.podIP, podIPs: st.podIPs?.map((p) => ({ ip: p.ip })) } } as unknown as KObject;
    }
  }
}

// Services and EndpointSlices for the service proxy's tests.
import type { KObject } from '../../../../src/api/types.js';

export function service(name: string, spec: Record<string, unknown>, namespace = 'ns1'): KObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { type: 'ClusterIP', ...spec } };
}

export interface EP {
  ip: string;
  node?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export function slice(serviceName: string, eps: EP[], ports: Array<{ name?: string; port: number; protocol?: string }>, opts: { namespace?: string; name?: string } = {}): KObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: opts.name ?? `${serviceName}-abc`, namespace: opts.namespace ?? 'ns1', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: eps.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
      ...(e.node ? { nodeName: e.node } : {}),
    })),
    ports: ports.map((p) => ({ protocol: 'TCP', ...p })),
  } as unknown as KObject;
}

// Where a webhook's `clientConfig.service` is reached: one ready endpoint of the Service's port, as kube-apiserver's
// endpoint routing resolves it (the API server need not reach ClusterIPs). TLS still names <name>.<namespace>.svc.
import type { KObject } from '../../../api/types.js';
import type { Registry } from '../../registry/registry.js';
import type { ServiceReference } from './types.js';

interface ServicePort { name?: string; port?: number; targetPort?: number | string }
interface EndpointSubset {
  addresses?: Array<{ ip?: string }> | null;
  ports?: Array<{ name?: string; port?: number }> | null;
}

export class ServiceResolutionError extends Error {}

export async function resolveServiceEndpoint(registry: Registry, ref: ServiceReference): Promise<{ host: string; port: number }> {
  const port = ref.port ?? 443;
  let svc: KObject;
  try {
    svc = await registry.mustLookup('', 'v1', 'services').get(ref.namespace, ref.name);
  } catch {
    throw new ServiceResolutionError(`service "${ref.name}" not found`);
  }
  const spec = (svc as { spec?: { type?: string; externalName?: string; ports?: ServicePort[] } }).spec ?? {};
  if (spec.type === 'ExternalName' && spec.externalName) return { host: spec.externalName, port };
  const sp = (spec.ports ?? []).find((p) => p.port === port);
  if (!sp) throw new ServiceResolutionError(`no service port ${port} found for service "${ref.name}"`);
  let eps: KObject | undefined;
  try {
    eps = await registry.mustLookup('', 'v1', 'endpoints').get(ref.namespace, ref.name);
  } catch {
    eps = undefined;
  }
  for (const ss of ((eps as { subsets?: EndpointSubset[] } | undefined)?.subsets ?? [])) {
    const ep = (ss.ports ?? []).find((p) => (sp.name ? p.name === sp.name : true));
    const addr = (ss.addresses ?? []).find((x) => x.ip);
    if (ep?.port && addr?.ip) return { host: addr.ip, port: ep.port };
  }
  throw new ServiceResolutionError(`no endpoints available for service "${ref.name}"`);
}

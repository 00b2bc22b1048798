// Where an APIService's Service is reached, with the availability controller's checks on the way
// (controllers/status/remote): the Service must exist and, unless ExternalName, have the port and a ready
// EndpointSlice endpoint for it. Like kube-apiserver with --enable-aggregator-routing, k1s sends requests to the
// endpoint (the API server need not reach ClusterIPs); an ExternalName Service is reached at its host name.
import { LABEL_SERVICE_NAME } from '../../api/discovery/index.js';
import type { ServiceReference } from '../../api/apiregistration/index.js';
import type { KObject } from '../../api/types.js';
import type { Registry } from '../registry/registry.js';

interface ServicePort { name?: string; port?: number }
interface Slice extends KObject {
  endpoints?: Array<{ addresses?: string[] | null; conditions?: { ready?: boolean | null } | null }> | null;
  ports?: Array<{ name?: string | null; port?: number | null }> | null;
}

export type Resolution =
  | { ok: true; host: string; port: number }
  | { ok: false; status: 'False' | 'Unknown'; reason: string; message: string };

export async function resolveService(registry: Registry, ref: ServiceReference): Promise<Resolution> {
  const name = ref.name ?? '';
  const ns = ref.namespace ?? '';
  const port = ref.port ?? 443;
  const svcText = `service/${name} in "${ns}"`;
  let svc: KObject;
  try {
    svc = await registry.mustLookup('', 'v1', 'services').get(ns, name);
  } catch (e) {
    if ((e as { code?: number }).code === 404) return { ok: false, status: 'False', reason: 'ServiceNotFound', message: `${svcText} is not present` };
    return { ok: false, status: 'Unknown', reason: 'ServiceAccessError', message: `${svcText} cannot be checked due to: ${(e as Error).message}` };
  }
  const spec = (svc as { spec?: { type?: string; externalName?: string; ports?: ServicePort[] } }).spec ?? {};
  if (spec.type === 'ExternalName') return { ok: true, host: spec.externalName ?? '', port };
  const sp = (spec.ports ?? []).find((p) => p.port === port);
  if (!sp) return { ok: false, status: 'False', reason: 'ServicePortError', message: `${svcText} is not listening on port ${port}` };
  const portName = sp.name ?? '';
  const rs = registry.mustLookup('discovery.k8s.io', 'v1', 'endpointslices');
  const listed = await registry.store.list(rs.prefix(ns));
  const slices = listed.kvs.map((kv) => rs.decode(kv) as Slice).filter((s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === name);
  if (slices.length === 0) return { ok: false, status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpointslices for ${svcText}` };
  for (const s of slices) {
    const p = (s.ports ?? []).find((x) => (x?.name ?? '') === portName && x?.port != null);
    const ep = (s.endpoints ?? []).find((e) => e?.conditions?.ready !== false && (e.addresses ?? []).length > 0);
    if (p && ep) return { ok: true, host: ep.addresses![0]!, port: p.port! };
  }
  return { ok: false, status: 'False', reason: 'MissingEndpoints', message: `endpointslices for ${svcText} have no addresses with port name "${portName}"` };
}

/** host:port as a URL authority (IPv6 in brackets). */
export const authority = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

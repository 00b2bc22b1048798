// Discovery documents built from the served ResourceDefinitions: the legacy /api, /apis, /api/v1, /apis/<g>/<v>
// forms and the aggregated APIGroupDiscoveryList (apidiscovery.k8s.io v2 and v2beta1) that kubectl 1.27+ asks for
// first. client-go decides which form it got from the response Content-Type alone (ContentTypeIsGVK), so the
// aggregated form must carry `application/json;g=apidiscovery.k8s.io;v=<v>;as=APIGroupDiscoveryList`.
import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../../api/types.js';
import { SCALE_GVK } from '../openapi/meta.js';

/** Group order of kube-apiserver's /apis (its APIService priorities); other groups follow alphabetically. */
export const GROUP_PRIORITY: readonly string[] = [
  '',
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
];

export function compareGroups(a: string, b: string): number {
  const ia = GROUP_PRIORITY.indexOf(a);
  const ib = GROUP_PRIORITY.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** apimachinery's CompareKubeAwareVersionStrings as a sort order: GA, then beta, then alpha, newest first. */
export function compareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const rank = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  if (rank(ma) !== rank(mb)) return rank(mb) - rank(ma);
  if (ma[1] !== mb[1]) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** Served groups, each with its versions, preferred version first. */
export function groupVersions(resources: readonly ResourceDefinition[]): { group: string; versions: string[] }[] {
  const by = new Map<string, Set<string>>();
  for (const r of resources) by.set(r.group, (by.get(r.group) ?? new Set()).add(r.version));
  return [...by.keys()].sort(compareGroups).map((group) => ({ group, versions: [...by.get(group)!].sort(compareVersions) }));
}

/** kube's StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the stored form. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];
const verbsOf = (r: ResourceDefinition) => [...(r.verbs ?? ALL_VERBS)].sort();
const byName = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** GET /api */
export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

const gvForDiscovery = (group: string, version: string) => ({ groupVersion: group ? `${group}/${version}` : version, version });

/** GET /apis: every named group (the core group is served at /api). */
export function apiGroupList(resources: readonly ResourceDefinition[]) {
  const groups = groupVersions(resources)
    .filter((g) => g.group !== '')
    .map((g) => ({
      name: g.group,
      versions: g.versions.map((v) => gvForDiscovery(g.group, v)),
      preferredVersion: gvForDiscovery(g.group, g.versions[0]),
    }));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** GET /apis/<group>, or undefined when the group is not served. */
export function apiGroup(resources: readonly ResourceDefinition[], group: string) {
  const g = apiGroupList(resources).groups.find((x) => x.name === group);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...g };
}

/** GET /api/v1 or /apis/<group>/<version>: resources and their subresources, sorted by name. */
export function apiResourceList(resources: readonly ResourceDefinition[], group: string, version: string) {
  const out: Record<string, unknown>[] = [];
  for (const r of resources) {
    if (r.group !== group || r.version !== version) continue;
    const main: Record<string, unknown> = { name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: verbsOf(r) };
    if (r.shortNames?.length) main.shortNames = [...r.shortNames];
    if (r.categories?.length) main.categories = [...r.categories];
    main.storageVersionHash = storageVersionHash(r.storedAs?.group ?? r.group, r.version, r.kind);
    out.push(main);
    // kube leaves singularName empty on subresources.
    if (r.subresources?.scale)
      out.push({ name: `${r.plural}/scale`, singularName: '', namespaced: r.namespaced, group: SCALE_GVK.group, version: SCALE_GVK.version, kind: SCALE_GVK.kind, verbs: SUBRESOURCE_VERBS });
    if (r.subresources?.status) out.push({ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: SUBRESOURCE_VERBS });
    for (const x of r.subresources?.extra ?? []) out.push({ name: `${r.plural}/${x}`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: SUBRESOURCE_VERBS });
    for (const a of r.subresources?.actions ?? []) {
      const e: Record<string, unknown> = { name: `${r.plural}/${a.name}`, singularName: '', namespaced: r.namespaced, kind: a.kind.kind, verbs: [...a.verbs] };
      if (a.kind.group !== r.group || a.kind.version !== r.version) Object.assign(e, { group: a.kind.group, version: a.kind.version });
      out.push(e);
    }
  }
  out.sort(byName((x) => x.name as string));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources: out };
}

export type AggregatedVersion = 'v2' | 'v2beta1';

export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * The aggregated form to serve for an Accept header, or undefined for the legacy form. Like kube's negotiation:
 * clauses by descending q; a clause naming a conversion (g/v/as) is taken only if it is one we serve, and one
 * without names the plain form. client-go sends v2, then v2beta1, then plain application/json.
 */
export function discoveryVariant(accept: string | undefined): { version: AggregatedVersion; contentType: string } | undefined {
  if (!accept) return undefined;
  const clauses = accept.split(',').map((c, i) => {
    const [type, ...rest] = c.split(';').map((x) => x.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    return { type: type.toLowerCase(), params, q: params.q === undefined ? 1 : Number(params.q), i };
  });
  clauses.sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { type, params, q } of clauses) {
    if (!(q > 0) || !['application/json', 'application/*', '*/*'].includes(type)) continue;
    if (params.g === undefined && params.v === undefined && params.as === undefined) return undefined;
    if (params.g === 'apidiscovery.k8s.io' && params.as === 'APIGroupDiscoveryList' && (params.v === 'v2' || params.v === 'v2beta1'))
      return { version: params.v, contentType: aggregatedContentType(params.v) };
  }
  return undefined;
}

function resourceDiscovery(r: ResourceDefinition) {
  const out: Record<string, unknown> = {
    resource: r.plural,
    responseKind: { group: r.group, kind: r.kind, version: r.version },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: verbsOf(r),
  };
  if (r.shortNames?.length) out.shortNames = [...r.shortNames];
  if (r.categories?.length) out.categories = [...r.categories];
  const subs: Record<string, unknown>[] = [];
  if (r.subresources?.scale) subs.push({ subresource: 'scale', responseKind: { ...SCALE_GVK }, verbs: SUBRESOURCE_VERBS });
  if (r.subresources?.status) subs.push({ subresource: 'status', responseKind: { group: r.group, kind: r.kind, version: r.version }, verbs: SUBRESOURCE_VERBS });
  for (const x of r.subresources?.extra ?? []) subs.push({ subresource: x, responseKind: { group: r.group, kind: r.kind, version: r.version }, verbs: SUBRESOURCE_VERBS });
  for (const a of r.subresources?.actions ?? []) subs.push({ subresource: a.name, responseKind: { ...a.kind }, verbs: [...a.verbs] });
  subs.sort(byName((x) => x.subresource as string));
  if (subs.length) out.subresources = subs;
  return out;
}

/** APIGroupDiscoveryList for /api (the core group) or /apis (every named group), groups and versions in preference order. */
export function aggregatedDiscovery(resources: readonly ResourceDefinition[], which: 'api' | 'apis', version: AggregatedVersion = 'v2') {
  const items = groupVersions(resources)
    .filter((g) => (which === 'api' ? g.group === '' : g.group !== ''))
    .map((g) => ({
      // The core group's name is "" and omitted, as Go's omitempty does.
      metadata: g.group ? { name: g.group, creationTimestamp: null } : { creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: resources
          .filter((r) => r.group === g.group && r.version === v)
          .sort(byName((r) => r.plural))
          .map(resourceDiscovery),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** ETag kube's aggregated discovery sets (quoted upper-case hex SHA-512 of the body); answer 304 on If-None-Match. */
export function discoveryETag(body: string): string {
  return `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
}

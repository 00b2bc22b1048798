// The groups of extension API servers (remote APIServices) in the discovery documents, merged with the local
// ones: /apis lists them by group priority, /apis/<group> answers for them, and aggregated discovery carries
// their resources as last fetched, a version whose server is unavailable marked Stale.
import { GROUP_PRIORITY } from './documents.js';

/** A resource of a legacy APIResourceList. */
export interface APIResource {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface RemoteVersion {
  version: string;
  versionPriority: number;
  /** the resources of the last successful fetch, if any */
  resources?: APIResource[];
  stale: boolean;
}

export interface RemoteGroup {
  name: string;
  /** the highest groupPriorityMinimum of its APIServices */
  priority: number;
  /** preferred first: versionPriority, then kube's version order */
  versions: RemoteVersion[];
}

/** The discovery of the remote group versions, and a generation bumped whenever it changes. */
export interface RemoteDiscoverySource {
  generation(): number;
  groups(): RemoteGroup[];
}

/** CRD groups' APIService priority: what local groups outside the built-in order weigh against remote ones. */
const LOCAL_PRIORITY = 1000;

/** kube's order: built-in groups first (their priorities), then by group priority, then by name. */
function sortGroups<T>(items: T[], name: (x: T) => string, priority: (x: T) => number): T[] {
  const rank = (x: T) => {
    const i = GROUP_PRIORITY.indexOf(name(x));
    return i >= 0 ? i : GROUP_PRIORITY.length;
  };
  return [...items].sort((a, b) => rank(a) - rank(b) || priority(b) - priority(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

const gv = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });

interface LegacyGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion: { groupVersion: string; version: string };
}

/** GET /apis with the remote groups added (a group served both here and remotely keeps the local entry). */
export function mergeGroupList<L extends { groups: LegacyGroup[] }>(local: L, remote: readonly RemoteGroup[]): L {
  const have = new Set(local.groups.map((g) => g.name));
  const extra: LegacyGroup[] = remote
    .filter((g) => !have.has(g.name) && g.versions.length)
    .map((g) => ({ name: g.name, versions: g.versions.map((v) => gv(g.name, v.version)), preferredVersion: gv(g.name, g.versions[0]!.version) }));
  if (!extra.length) return local;
  const prio = new Map(remote.map((g) => [g.name, g.priority]));
  return { ...local, groups: sortGroups([...local.groups, ...extra], (g) => g.name, (g) => prio.get(g.name) ?? LOCAL_PRIORITY) };
}

/** ConvertGroupVersionIntoToDiscovery: a legacy resource list as aggregated discovery's resources. */
export function toAggregatedResources(list: readonly APIResource[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const parents = new Map<string, Record<string, unknown>>();
  const kindOf = (r: APIResource) => ({ group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' });
  for (const r of list) {
    if (typeof r?.name !== 'string' || r.name.includes('/')) continue;
    const e: Record<string, unknown> = {
      resource: r.name,
      responseKind: kindOf(r),
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: r.verbs ?? [],
    };
    if (r.shortNames?.length) e.shortNames = r.shortNames;
    if (r.categories?.length) e.categories = r.categories;
    parents.set(r.name, e);
    out.push(e);
  }
  for (const r of list) {
    if (typeof r?.name !== 'string') continue;
    const [parent, sub] = r.name.split('/', 2) as [string, string | undefined];
    if (sub === undefined) continue;
    let p = parents.get(parent);
    if (!p) {
      p = { resource: parent, scope: r.namespaced ? 'Namespaced' : 'Cluster', verbs: [] };
      parents.set(parent, p);
      out.push(p);
    }
    const subs = (p.subresources as Record<string, unknown>[] | undefined) ?? [];
    p.subresources = subs;
    subs.push({ subresource: sub, responseKind: kindOf(r), verbs: r.verbs ?? [] });
  }
  return out;
}

interface AggregatedDoc {
  items: { metadata: { name?: string } }[];
}

/** An aggregated /apis document with the remote groups' entries added. */
export function mergeAggregated<D extends AggregatedDoc>(local: D, remote: readonly RemoteGroup[]): D {
  const have = new Set(local.items.map((i) => i.metadata.name ?? ''));
  const extra = remote
    .filter((g) => !have.has(g.name) && g.versions.length)
    .map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v.version,
        resources: toAggregatedResources(v.resources ?? []),
        freshness: v.stale ? 'Stale' : 'Current',
      })),
    }));
  if (!extra.length) return local;
  const prio = new Map(remote.map((g) => [g.name, g.priority]));
  const items = sortGroups([...local.items, ...extra] as D['items'], (i) => i.metadata.name ?? '', (i) => prio.get(i.metadata.name ?? '') ?? LOCAL_PRIORITY);
  return { ...local, items };
}

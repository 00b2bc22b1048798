// What the garbage collector asks of the API: the resources it follows, a live look-up of one owner reference
// (kube verifies with the API server, not its cache, before deleting a dependent), and read-modify-write with
// conflict retries for finalizer and ownerReference edits.
import type { KObject, OwnerReference, ResourceDefinition } from '../../api/types.js';
import type { Client, ResourceClient } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';

/** One resource the garbage collector (and namespace controller) follows; the lead builds these from the registry. */
export interface GCResource {
  apiVersion: string;
  /** the kind objects of this resource carry; learned from listed objects when omitted */
  kind?: string;
  plural: string;
  namespaced: boolean;
}

/** How an owner reference resolved: present (and whether it waits for its dependents), absent, or unknowable. */
export type OwnerState =
  | { state: 'solid'; ref: OwnerReference }
  | { state: 'waiting'; ref: OwnerReference }
  | { state: 'dangling'; ref: OwnerReference }
  | { state: 'unresolvable'; ref: OwnerReference; invalidNamespace?: boolean };

export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

export function hasFinalizer(obj: KObject, f: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(f);
}

/** Maps an owner reference's group + kind to the resource serving it, as a RESTMapper would (any version will do). */
export class KindMapper {
  private readonly byKind = new Map<string, GCResource>();

  constructor(resources: GCResource[]) {
    for (const r of resources) if (r.kind) this.byKind.set(groupKind(r.apiVersion, r.kind), r);
  }

  add(r: GCResource): void {
    if (r.kind) this.byKind.set(groupKind(r.apiVersion, r.kind), r);
  }

  learn(r: GCResource, obj: KObject): void {
    if (obj.kind && obj.apiVersion && !this.byKind.has(groupKind(obj.apiVersion, obj.kind))) this.byKind.set(groupKind(obj.apiVersion, obj.kind), r);
  }

  resolve(apiVersion: string, kind: string): GCResource | undefined {
    return this.byKind.get(groupKind(apiVersion, kind));
  }
}

const groupKind = (apiVersion: string, kind: string) => `${apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''}|${kind}`;

/**
 * The resources to follow from the registry's definitions: stored, listable, watchable and deletable ones, one
 * version per group and resource (the first defined), as kube's GC and namespace controller pick from discovery.
 */
export function gcResourcesFrom(definitions: readonly ResourceDefinition[]): GCResource[] {
  const seen = new Set<string>();
  const out: GCResource[] = [];
  for (const d of definitions) {
    if (d.virtual || d.storedAs) continue;
    const verbs = d.verbs ?? ['list', 'watch', 'delete'];
    if (!['list', 'watch', 'delete'].every((v) => verbs.includes(v))) continue;
    const k = `${d.group}/${d.plural}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ apiVersion: d.group ? `${d.group}/${d.version}` : d.version, kind: d.kind, plural: d.plural, namespaced: d.namespaced });
  }
  return out;
}

/** Resolves one owner reference of `dependent` with a live GET (uid must match; namespace rules as in kube 1.20+). */
export async function resolveOwner(client: Client, mapper: KindMapper, dependent: KObject, ref: OwnerReference): Promise<OwnerState> {
  const r = mapper.resolve(ref.apiVersion, ref.kind);
  if (!r) return { state: 'unresolvable', ref };
  const depNs = dependent.metadata.namespace ?? '';
  // a cluster-scoped dependent cannot name a namespaced owner: kube reports it and never collects the dependent
  if (r.namespaced && !depNs) return { state: 'unresolvable', ref, invalidNamespace: true };
  try {
    const owner = await client.resource(r.apiVersion, r.plural).get(r.namespaced ? depNs : '', ref.name);
    if (owner.metadata.uid !== ref.uid) return { state: 'dangling', ref };
    if (owner.metadata.deletionTimestamp && hasFinalizer(owner, FOREGROUND)) return { state: 'waiting', ref };
    return { state: 'solid', ref };
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return { state: 'dangling', ref };
    throw e;
  }
}

/**
 * GET, change, update; retried on conflicts. `change` returns false when nothing needs doing. Gives up quietly
 * when the object is gone or was replaced by another with the same name.
 */
export async function mutateLive(rc: ResourceClient, obj: KObject, change: (o: KObject) => boolean): Promise<void> {
  const ns = obj.metadata.namespace ?? '';
  for (let attempt = 0; ; attempt++) {
    let live: KObject;
    try {
      live = clone(await rc.get(ns, obj.metadata.name!));
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
    if (live.metadata.uid !== obj.metadata.uid) return;
    if (!change(live)) return;
    try {
      await rc.update(ns, live);
      return;
    } catch (e) {
      if (e instanceof StatusError && e.code === 409 && attempt < 5) continue;
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
  }
}

export function removeFinalizer(o: KObject, f: string): boolean {
  const fin = o.metadata.finalizers ?? [];
  if (!fin.includes(f)) return false;
  o.metadata.finalizers = fin.filter((x) => x !== f);
  return true;
}

/** Deletes with a uid precondition (so a re-created object of the same name is safe); a 404/409 is not an error. */
export async function deleteIfSame(rc: ResourceClient, obj: KObject, policy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
  try {
    await rc.delete(obj.metadata.namespace ?? '', obj.metadata.name!, { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } });
  } catch (e) {
    if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
    throw e;
  }
}

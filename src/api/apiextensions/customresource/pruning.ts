// Pruning of custom objects against their structural schema (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/
// pruning, Kubernetes 1.33), followed by what objectmeta.Coerce does to embedded resources: their metadata is
// decoded as ObjectMeta, so fields ObjectMeta lacks are dropped (and reported) too.
import { compareGoStrings } from '../../../machinery/validation.js';
import { isObj, type JSP } from '../structural.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** The schema of the value under a key that `properties` lacks; null: additionalProperties: true/false (no schema). */
function additional(s: JSP): JSP | null | undefined {
  const ap = s.additionalProperties;
  if (ap === undefined || ap === null) return undefined;
  return isObj(ap) ? ap : null;
}

function property(s: JSP, k: string): JSP | undefined {
  const p = isObj(s.properties) ? s.properties : undefined;
  if (!p || !Object.prototype.hasOwnProperty.call(p, k)) return undefined;
  return isObj(p[k]) ? (p[k] as JSP) : {};
}

const embedded = (s: JSP | null | undefined): boolean => !!s && s['x-kubernetes-embedded-resource'] === true;
const preserves = (s: JSP | null | undefined): boolean => !!s && s['x-kubernetes-preserve-unknown-fields'] === true;

/** UnknownFieldPathOptions: `a.b`, `a[0].b`, reported only when tracking. */
class Tracker {
  readonly paths: string[] = [];
  constructor(readonly track: boolean) {}
  key(parent: string, k: string): string {
    return this.track ? (parent ? `${parent}.${k}` : k) : '';
  }
  index(parent: string, i: number): string {
    return this.track ? `${parent}[${i}]` : '';
  }
  record(parent: string, k: string): void {
    if (this.track) this.paths.push(this.key(parent, k));
  }
}

function pruneValue(x: unknown, s: JSP | null | undefined, path: string, t: Tracker): void {
  if (preserves(s)) return skipPrune(x, s!, path, t);
  if (Array.isArray(x)) {
    const items = s && isObj(s.items) ? s.items : null;
    x.forEach((v, i) => pruneValue(v, items, t.index(path, i), t));
    return;
  }
  if (!isObj(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      t.record(path, k);
      delete x[k];
    }
    return;
  }
  pruneFields(x, s, path, t, false);
}

/** An object's fields under `s`: known ones pruned by their schema, unknown ones dropped unless `keepUnknown`. */
function pruneFields(x: Record<string, unknown>, s: JSP, path: string, t: Tracker, keepUnknown: boolean): void {
  for (const k of Object.keys(x)) {
    if (embedded(s) && META_FIELDS.has(k)) continue;
    const prop = property(s, k);
    const child = prop !== undefined ? prop : additional(s);
    if (child !== undefined) pruneValue(x[k], child, t.key(path, k), t);
    else if (!keepUnknown) {
      // apiVersion/kind/metadata at the top are never reported (they are restored by the caller in Kubernetes)
      if (!META_FIELDS.has(k) || path !== '') t.record(path, k);
      delete x[k];
    }
  }
}

/** Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are pruned by their schema. */
function skipPrune(x: unknown, s: JSP, path: string, t: Tracker): void {
  if (Array.isArray(x)) {
    const items = isObj(s.items) ? s.items : null;
    // Kubernetes keeps skipping (not pruning) inside the items, even if their schema does not preserve
    x.forEach((v, i) => items && skipPrune(v, items, t.index(path, i), t));
    return;
  }
  if (isObj(x)) pruneFields(x, s, path, t, true);
}

// ---- ObjectMeta of embedded resources ----

type FieldTable = Record<string, 'scalar' | 'map' | 'list' | 'ownerReferences' | 'managedFields' | 'raw'>;

const OBJECT_META: FieldTable = {
  annotations: 'map', creationTimestamp: 'scalar', deletionGracePeriodSeconds: 'scalar', deletionTimestamp: 'scalar',
  finalizers: 'list', generateName: 'scalar', generation: 'scalar', labels: 'map', managedFields: 'managedFields',
  name: 'scalar', namespace: 'scalar', ownerReferences: 'ownerReferences', resourceVersion: 'scalar', selfLink: 'scalar',
  uid: 'scalar',
};
const OWNER_REFERENCE: FieldTable = { apiVersion: 'scalar', blockOwnerDeletion: 'scalar', controller: 'scalar', kind: 'scalar', name: 'scalar', uid: 'scalar' };
const MANAGED_FIELDS_ENTRY: FieldTable = {
  apiVersion: 'scalar', fieldsType: 'scalar', fieldsV1: 'raw', manager: 'scalar', operation: 'scalar', subresource: 'scalar', time: 'scalar',
};

/** Drops what a strict decode into `table` reports as unknown ("ownerReferences[0].foo"), relative to `path`. */
function pruneStruct(o: Record<string, unknown>, table: FieldTable, path: string, out: string[]): void {
  for (const k of Object.keys(o)) {
    const kind = table[k];
    const at = path ? `${path}.${k}` : k;
    if (kind === undefined) {
      out.push(at);
      delete o[k];
    } else if ((kind === 'ownerReferences' || kind === 'managedFields') && Array.isArray(o[k])) {
      const sub = kind === 'ownerReferences' ? OWNER_REFERENCE : MANAGED_FIELDS_ENTRY;
      (o[k] as unknown[]).forEach((e, i) => isObj(e) && pruneStruct(e, sub, `${at}[${i}]`, out));
    }
  }
}

const GO_ZERO_TIME = '0001-01-01T00:00:00Z';
/** Pointer fields: only nil is omitted. */
const POINTERS = new Set(['deletionGracePeriodSeconds', 'deletionTimestamp']);
const isEmpty = (v: unknown): boolean =>
  v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);

/**
 * Metadata as ObjectMeta's JSON round trip leaves it: unknown fields dropped (their paths appended to `out`, after
 * `prefix` + "."), omitempty fields with empty values and a zero creationTimestamp removed. Values of the wrong type
 * are left alone (Kubernetes rejects them on a request and drops them when reading storage).
 */
export function pruneObjectMeta(meta: unknown, prefix: string, out: string[] = []): string[] {
  if (!isObj(meta)) return out;
  const unknown: string[] = [];
  pruneStruct(meta, OBJECT_META, '', unknown);
  for (const u of unknown) out.push(`${prefix}.${u}`);
  for (const k of Object.keys(meta)) {
    const v = meta[k];
    const drop = POINTERS.has(k) ? v === null : k === 'creationTimestamp' ? v === null || v === GO_ZERO_TIME : isEmpty(v);
    if (drop) delete meta[k];
  }
  return out;
}

/** objectmeta.Coerce's walk: the metadata of every embedded resource below the top, with field.Path prefixes. */
function coerceEmbedded(x: unknown, s: JSP | null | undefined, path: string, top: boolean, out: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = isObj(s.items) ? s.items : null;
    x.forEach((v, i) => coerceEmbedded(v, items, `${path}[${i}]`, false, out));
    return;
  }
  if (!isObj(x)) return;
  for (const k of Object.keys(x)) {
    if (k === 'metadata' && embedded(s) && !top) pruneObjectMeta(x.metadata, path ? `${path}.metadata` : 'metadata', out);
    const prop = property(s, k);
    if (prop !== undefined) coerceEmbedded(x[k], prop, path ? `${path}.${k}` : k, false, out);
    else {
      const ap = additional(s);
      if (ap !== undefined) coerceEmbedded(x[k], ap, `${path}[${k}]`, false, out);
    }
  }
}

/**
 * PruneWithOptions(ReturnPruned) then the ObjectMeta pruning of embedded resources: removes, in place, what the
 * structural schema does not specify. At the resource root apiVersion, kind and metadata are kept as they are (the
 * root's metadata is the caller's business). Returns the pruned paths as Kubernetes reports them for field
 * validation: the schema's ("spec.foo", "spec.items[0].bar") sorted, then the embedded metadata's sorted.
 */
export function prune(obj: unknown, schema: JSP, isResourceRoot: boolean): string[] {
  const t = new Tracker(true);
  const root = isResourceRoot && !embedded(schema) ? { ...schema, 'x-kubernetes-embedded-resource': true } : schema;
  pruneValue(obj, root, '', t);
  const meta: string[] = [];
  // The root's own schema decides whether its metadata is coerced here (only when it is itself embedded).
  coerceEmbedded(obj, schema, '', isResourceRoot, meta);
  return [...t.paths.sort(compareGoStrings), ...meta.sort(compareGoStrings)];
}

/** prune without reporting (defaults, stored objects). */
export function pruneQuietly(obj: unknown, schema: JSP, isResourceRoot: boolean): void {
  const root = isResourceRoot && !embedded(schema) ? { ...schema, 'x-kubernetes-embedded-resource': true } : schema;
  pruneValue(obj, root, '', new Tracker(false));
  coerceEmbedded(obj, schema, '', isResourceRoot, []);
}

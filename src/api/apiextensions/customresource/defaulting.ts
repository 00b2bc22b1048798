// Structural defaulting of custom objects (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting,
// Kubernetes 1.33): non-nullable nulls without a default are dropped, then defaults fill missing fields top-down
// (a default may itself receive nested defaults) and replace non-nullable nulls. Defaults are deep-copied, and pruned
// against their schema first as PruneDefaults does when the CRD is loaded.
import { clone } from '../../../machinery/object.js';
import { isObj, type JSP } from '../structural.js';
import { pruneObjectMeta, pruneQuietly } from './pruning.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** A schema's default; undefined when there is none (`default: null` is none, as in Go). */
const defaultOf = (s: JSP | null | undefined): unknown => (s && s.default !== null ? s.default : undefined);
const nullable = (s: JSP): boolean => s.nullable === true;

function property(s: JSP, k: string): JSP | undefined {
  const p = isObj(s.properties) ? s.properties : undefined;
  if (!p || !Object.prototype.hasOwnProperty.call(p, k)) return undefined;
  return isObj(p[k]) ? (p[k] as JSP) : {};
}

/** The schema of an undeclared key: additionalProperties' schema, null for additionalProperties: true/false. */
function additional(s: JSP): JSP | null | undefined {
  const ap = s.additionalProperties;
  if (ap === undefined || ap === null) return undefined;
  return isObj(ap) ? ap : null;
}

const pruned = new WeakMap<JSP, unknown>();
const prunedMeta = new WeakMap<JSP, unknown>();

/**
 * The default of `s` as PruneDefaults leaves it. `metaOf`: the key when `s` is apiVersion, kind or metadata of an
 * embedded resource (or of the root): those are not pruned by the schema, metadata is decoded as ObjectMeta.
 */
function prunedDefault(s: JSP, metaKey: string | undefined): unknown {
  const cache = metaKey ? prunedMeta : pruned;
  if (cache.has(s)) return cache.get(s);
  const v = clone(defaultOf(s));
  if (metaKey === 'metadata') pruneObjectMeta(v, 'metadata');
  else if (!metaKey) pruneQuietly(v, s, false);
  cache.set(s, v);
  return v;
}

const copyDefault = (s: JSP, metaKey?: string): unknown => clone(prunedDefault(s, metaKey));

/** Default: fills in defaults of `s` below `x`. `asResource`: `s` is the root or an embedded resource. */
function defaultValue(x: unknown, s: JSP | null | undefined, asResource: boolean): void {
  if (!s) return;
  const resource = asResource || s['x-kubernetes-embedded-resource'] === true;
  if (Array.isArray(x)) {
    const items = isObj(s.items) ? s.items : undefined;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (x[i] === null && !nullable(items)) x[i] = defaultOf(items) === undefined ? null : copyDefault(items);
      defaultValue(x[i], items, false);
    }
    return;
  }
  if (!isObj(x)) return;
  const props = isObj(s.properties) ? s.properties : {};
  for (const k of Object.keys(props)) {
    const prop = property(s, k)!;
    if (defaultOf(prop) === undefined) continue;
    if (!(k in x) || (x[k] === null && !nullable(prop))) x[k] = copyDefault(prop, resource && META_FIELDS.has(k) ? k : undefined);
  }
  for (const k of Object.keys(x)) {
    const prop = property(s, k);
    if (prop) {
      defaultValue(x[k], prop, false);
      continue;
    }
    const ap = additional(s);
    if (ap === undefined) continue;
    if (ap && x[k] === null && !nullable(ap)) x[k] = defaultOf(ap) === undefined ? null : copyDefault(ap);
    defaultValue(x[k], ap, false);
  }
}

/** Default (defaulting/algorithm.go) on its own: defaults for missing fields and non-nullable nulls. */
export function defaultValues(obj: unknown, schema: JSP): void {
  defaultValue(obj, schema, true);
}

/** PruneNonNullableNullsWithoutDefaults: drops null values of object fields that are neither nullable nor defaulted. */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: JSP | null | undefined): void {
  if (Array.isArray(x)) {
    const items = s && isObj(s.items) ? s.items : undefined;
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, items);
    return;
  }
  if (!isObj(x)) return;
  for (const k of Object.keys(x)) {
    const fs = s ? (property(s, k) ?? additional(s) ?? undefined) : undefined;
    if (x[k] === null && fs && !nullable(fs) && defaultOf(fs) === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], fs);
  }
}

/**
 * What a custom resource's decoding does after pruning: PruneNonNullableNullsWithoutDefaults, then Default. In
 * place; `schema` is the version's openAPIV3Schema (the resource root).
 */
export function applyDefaults(obj: unknown, schema: JSP): void {
  pruneNonNullableNullsWithoutDefaults(obj, schema);
  defaultValues(obj, schema);
}

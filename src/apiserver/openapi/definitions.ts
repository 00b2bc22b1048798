// The definitions an OpenAPI document carries for a set of resources: each kind's schema and everything it
// references, a `<Kind>List` per kind, the generic request/response bodies, and the group-version-kinds that
// clients key on (kubectl finds a resource's schema by `x-kubernetes-group-version-kind`, never by name).
import type { ResourceDefinition } from '../../api/types.js';
import type { Schema, SchemaSet } from '../../machinery/schema.js';
import { DEF, META_FALLBACKS, SCALE_GVK, typeMetaProps } from './meta.js';

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

export interface CollectedDefs {
  /** Definition name → schema, sorted by name. */
  defs: Map<string, Schema>;
  /** Definition name → the kinds it is the schema of. */
  gvks: Map<string, GVK[]>;
}

export function listDefName(r: ResourceDefinition): string {
  return `${r.schemaRef}List`;
}

/** Key order kube uses for the extension (group, kind, version); kubectl compares these maps for equality. */
export function gvkExt(g: GVK): { group: string; kind: string; version: string } {
  return { group: g.group, kind: g.kind, version: g.version };
}

function generatedList(r: ResourceDefinition): Schema {
  return {
    type: 'object',
    description: `${r.kind}List is a list of ${r.kind}.`,
    required: ['items'],
    properties: {
      ...typeMetaProps(),
      items: { type: 'array', description: `List of ${r.plural}.`, items: { ref: r.schemaRef, default: {} } },
      metadata: { ref: DEF.listMeta, description: 'Standard list metadata.', default: {} },
    },
  };
}

/** Every definition name a schema refers to, directly. */
export function refsOf(sc: Schema, out: string[] = []): string[] {
  if (sc.ref) out.push(sc.ref);
  for (const p of Object.values(sc.properties ?? {})) refsOf(p, out);
  if (sc.items) refsOf(sc.items, out);
  if (sc.additionalProperties) refsOf(sc.additionalProperties, out);
  return out;
}

/**
 * Definitions for `resources`, closed under references. Lookup order: the cluster's SchemaSet, the resource's own
 * definitions, then the apimachinery stand-ins. Names found nowhere are left out of `defs`, and toOpenAPISchema
 * drops refs to them.
 */
export function collectDefinitions(resources: readonly ResourceDefinition[], set: SchemaSet): CollectedDefs {
  const own = new Map<string, Schema>();
  for (const r of resources) for (const [n, sc] of Object.entries(r.definitions)) if (!own.has(n)) own.set(n, sc);
  const generated = new Map<string, Schema>();
  const gvks = new Map<string, GVK[]>();
  const addGvk = (name: string, g: GVK) => {
    const list = gvks.get(name) ?? [];
    if (!list.some((x) => x.group === g.group && x.version === g.version && x.kind === g.kind)) list.push(g);
    gvks.set(name, list);
  };
  const lookup = (n: string): Schema | undefined => set.get(n) ?? own.get(n) ?? generated.get(n) ?? META_FALLBACKS[n];

  const roots: string[] = [DEF.listMeta, DEF.status, DEF.deleteOptions, DEF.watchEvent, DEF.patch];
  for (const r of resources) {
    const listName = listDefName(r);
    if (!set.has(listName) && !own.has(listName)) generated.set(listName, generatedList(r));
    addGvk(r.schemaRef, { group: r.group, version: r.version, kind: r.kind });
    addGvk(listName, { group: r.group, version: r.version, kind: `${r.kind}List` });
    roots.push(r.schemaRef, listName);
    if (r.subresources?.scale) {
      roots.push(DEF.scale);
      addGvk(DEF.scale, { ...SCALE_GVK });
    }
  }

  const found = new Map<string, Schema>();
  const stack = [...roots];
  while (stack.length) {
    const name = stack.pop()!;
    if (found.has(name)) continue;
    const sc = lookup(name);
    if (!sc) continue;
    found.set(name, sc);
    stack.push(...refsOf(sc));
  }
  const defs = new Map([...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  for (const n of gvks.keys()) if (!defs.has(n)) gvks.delete(n);
  return { defs, gvks };
}

const EXTENSIONS: [keyof Schema, string][] = [
  ['intOrString', 'x-kubernetes-int-or-string'],
  ['preserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['embeddedResource', 'x-kubernetes-embedded-resource'],
  ['patchMergeKey', 'x-kubernetes-patch-merge-key'],
  ['patchStrategy', 'x-kubernetes-patch-strategy'],
  ['listType', 'x-kubernetes-list-type'],
  ['listMapKeys', 'x-kubernetes-list-map-keys'],
  ['mapType', 'x-kubernetes-map-type'],
];

type Json = Record<string, unknown>;

/**
 * One schema in OpenAPI form. v2 keeps description/default beside `$ref` (as kube's swagger.json does); v3 wraps
 * the ref in `allOf` when anything sits beside it (as kube's /openapi/v3 does). A ref to an unknown definition is
 * dropped, keeping its description.
 */
export function toOpenAPISchema(sc: Schema, v3: boolean, known: (name: string) => boolean): Json {
  const prefix = v3 ? '#/components/schemas/' : '#/definitions/';
  const out: Json = {};
  if (sc.description) out.description = sc.description;
  if (sc.default !== undefined) out.default = sc.default;
  for (const [k, ext] of EXTENSIONS) {
    const v = sc[k];
    if (v === undefined || v === false || (Array.isArray(v) && !v.length)) continue;
    out[ext] = Array.isArray(v) ? [...v] : v;
  }
  if (sc.ref && known(sc.ref)) {
    const ref = { $ref: prefix + sc.ref };
    if (!v3) return { ...ref, ...out };
    return Object.keys(out).length ? { allOf: [ref], ...out } : ref;
  }
  if (sc.type) out.type = sc.type;
  if (sc.format) out.format = sc.format;
  if (sc.enum) out.enum = [...sc.enum];
  if (sc.required?.length) out.required = [...sc.required];
  if (sc.properties) {
    const props: Json = {};
    for (const [k, p] of Object.entries(sc.properties)) props[k] = toOpenAPISchema(p, v3, known);
    out.properties = props;
  }
  if (sc.additionalProperties) out.additionalProperties = toOpenAPISchema(sc.additionalProperties, v3, known);
  if (sc.items) out.items = toOpenAPISchema(sc.items, v3, known);
  return out;
}

/** All definitions of `c` in OpenAPI form, with `x-kubernetes-group-version-kind` on the kinds. */
export function definitionsJson(c: CollectedDefs, v3: boolean): Json {
  const known = (n: string) => c.defs.has(n);
  const out: Json = {};
  for (const [name, sc] of c.defs) {
    const j = toOpenAPISchema(sc, v3, known);
    const g = c.gvks.get(name);
    if (g?.length) j['x-kubernetes-group-version-kind'] = g.map(gvkExt);
    out[name] = j;
  }
  return out;
}

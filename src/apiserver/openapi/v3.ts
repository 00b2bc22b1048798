// /openapi/v3: an index of group-versions, each linking to an OpenAPI 3.0 document with that group-version's paths
// and the schemas its kinds reach. kubectl 1.27+ `explain` and the fieldValidation check read these documents; the
// `?hash=` in each link lets clients cache a document for good (kube-openapi handler3).
import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../../api/types.js';
import { SchemaSet } from '../../machinery/schema.js';
import { collectDefinitions, definitionsJson, gvkExt } from './definitions.js';
import { allPaths, type Operation, type Param, type PathOptions } from './paths.js';
import { DEFAULT_INFO, type OpenAPIInfo } from './v2.js';

type Json = Record<string, unknown>;

export interface GroupVersion {
  group: string;
  version: string;
}

/** The index key of a group-version: "api/v1", "apis/apps/v1". */
export function openapiV3PathOf(gv: GroupVersion): string {
  return gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
}

/** Inverse of openapiV3PathOf for the part of a URL after "/openapi/v3/"; undefined for anything else. */
export function parseOpenapiV3Path(path: string): GroupVersion | undefined {
  const parts = path.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length === 2 && parts[0] === 'api') return { group: '', version: parts[1] };
  if (parts.length === 3 && parts[0] === 'apis') return { group: parts[1], version: parts[2] };
  return undefined;
}

/** Hash of a document as kube-openapi computes it: upper-case hex SHA-512 of its JSON. Also its ETag (quoted). */
export function openapiV3Hash(doc: unknown): string {
  return createHash('sha512').update(typeof doc === 'string' ? doc : JSON.stringify(doc)).digest('hex').toUpperCase();
}

function groupVersionsOf(resources: readonly ResourceDefinition[]): GroupVersion[] {
  const seen = new Map<string, GroupVersion>();
  for (const r of resources) seen.set(openapiV3PathOf(r), { group: r.group, version: r.version });
  return [...seen.values()];
}

/**
 * `{paths: {"api/v1": {serverRelativeURL: "/openapi/v3/api/v1?hash=…"}, …}}`. `hashOf` gets the index key; given
 * the SchemaSet instead, each hash is that of the group-version document (default info and options).
 */
export function openapiV3Index(
  resources: readonly ResourceDefinition[],
  hashOf: ((gvPath: string) => string) | SchemaSet,
): { paths: Record<string, { serverRelativeURL: string }> } {
  const set = hashOf instanceof SchemaSet ? hashOf : undefined;
  const hash = set ? (k: string) => openapiV3Hash(openapiV3GroupVersion(resources, set, k) ?? '') : (hashOf as (gvPath: string) => string);
  const keys = groupVersionsOf(resources).map(openapiV3PathOf).sort();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const k of keys) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=${encodeURIComponent(hash(k))}` };
  return { paths };
}

const RESPONSE_TYPES = ['application/json', 'application/yaml'];
const STREAM = 'application/json;stream=watch';
const schemaRef = (name: string) => ({ schema: { $ref: `#/components/schemas/${name}` } });

function v3Param(p: Param): Json {
  const j: Json = { name: p.name, in: p.in, description: p.description };
  if (p.required) j.required = true;
  j.schema = { type: p.type, uniqueItems: true };
  return j;
}

function v3Operation(o: Operation): Json {
  const j: Json = { tags: [o.tag], description: o.description, operationId: o.operationId };
  if (o.params.length) j.parameters = o.params.map(v3Param);
  if (o.body) {
    const content: Json = {};
    for (const t of o.consumes) content[t] = schemaRef(o.body.ref);
    j.requestBody = o.body.required ? { content, required: true } : { content };
  }
  const responses: Json = {};
  for (const r of o.responses) {
    const content: Json = {};
    for (const t of o.streams ? [...RESPONSE_TYPES, STREAM] : RESPONSE_TYPES) content[t] = schemaRef(r.ref);
    responses[r.code] = { description: r.description, content };
  }
  responses['401'] = { description: 'Unauthorized' };
  j.responses = responses;
  j['x-kubernetes-action'] = o.action;
  j['x-kubernetes-group-version-kind'] = gvkExt(o.gvk);
  return j;
}

/** The OpenAPI 3.0 document of one group-version ({group, version} or "apis/apps/v1"), or undefined when none is served. */
export function openapiV3GroupVersion(
  resources: readonly ResourceDefinition[],
  set: SchemaSet,
  gvOrPath: GroupVersion | string,
  info: OpenAPIInfo = DEFAULT_INFO,
  opts: PathOptions = {},
): Json | undefined {
  const gv = typeof gvOrPath === 'string' ? parseOpenapiV3Path(gvOrPath) : gvOrPath;
  if (!gv) return undefined;
  const mine = resources.filter((r) => r.group === gv.group && r.version === gv.version);
  if (!mine.length) return undefined;
  const paths: Json = {};
  for (const p of allPaths(mine, opts)) {
    const item: Json = {};
    for (const o of p.ops) item[o.method] = v3Operation(o);
    item.parameters = p.params.map(v3Param);
    paths[p.path] = item;
  }
  // Collected from this group-version's kinds only, so the document carries just the schemas they reach.
  const defs = collectDefinitions(mine, set);
  return {
    openapi: '3.0.0',
    info: { title: info.title ?? 'Kubernetes', version: info.version },
    paths,
    components: { schemas: definitionsJson(defs, true) },
  };
}

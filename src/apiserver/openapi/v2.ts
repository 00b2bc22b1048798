// /openapi/v2: one Swagger 2.0 document for every served resource. kubectl reads it (as protobuf, see
// protobuf.ts) for client-side validation, `explain --output=plaintext-openapiv2` and as the fallback source
// of strategic-merge metadata, and it refuses the whole document if any definition fails to parse.
import type { ResourceDefinition } from '../../api/types.js';
import type { SchemaSet } from '../../machinery/schema.js';
import { collectDefinitions, definitionsJson, gvkExt } from './definitions.js';
import { allPaths, type Operation, type Param, type PathOptions } from './paths.js';

export interface OpenAPIInfo {
  title?: string;
  /** Server version, e.g. "v1.33.0". */
  version: string;
}

type Json = Record<string, unknown>;

const PRODUCES = ['application/json', 'application/yaml'];
const STREAM = 'application/json;stream=watch';

export function v2Param(p: Param): Json {
  const j: Json = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) j.required = true;
  return j;
}

function v2Operation(o: Operation): Json {
  const params: Json[] = [];
  if (o.body) params.push({ name: 'body', in: 'body', ...(o.body.required ? { required: true } : {}), schema: { $ref: `#/definitions/${o.body.ref}` } });
  params.push(...o.params.map(v2Param));
  const responses: Json = {};
  for (const r of o.responses) responses[r.code] = { description: r.description, schema: { $ref: `#/definitions/${r.ref}` } };
  responses['401'] = { description: 'Unauthorized' };
  const j: Json = {
    description: o.description,
    consumes: o.consumes,
    produces: o.streams ? [...PRODUCES, STREAM] : PRODUCES,
    schemes: ['https'],
    tags: [o.tag],
    operationId: o.operationId,
  };
  if (params.length) j.parameters = params;
  j.responses = responses;
  j['x-kubernetes-action'] = o.action;
  j['x-kubernetes-group-version-kind'] = gvkExt(o.gvk);
  return j;
}

/** The Swagger 2.0 document for `resources`; definitions come from `set` (see collectDefinitions). */
export const DEFAULT_INFO: OpenAPIInfo = { title: 'Kubernetes', version: 'v1.33.0' };

export function openapiV2(resources: readonly ResourceDefinition[], set: SchemaSet, info: OpenAPIInfo = DEFAULT_INFO, opts: PathOptions = {}): Json {
  const paths: Json = {};
  for (const p of allPaths(resources, opts)) {
    const item: Json = {};
    for (const o of p.ops) item[o.method] = v2Operation(o);
    item.parameters = p.params.map(v2Param);
    paths[p.path] = item;
  }
  return {
    swagger: '2.0',
    info: { title: info.title ?? 'Kubernetes', version: info.version },
    paths,
    definitions: definitionsJson(collectDefinitions(resources, set), false),
  };
}

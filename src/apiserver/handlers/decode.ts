// Request bodies → objects, with the checks kube-apiserver's decoder makes: media type, syntax, apiVersion and
// kind for the URL, JSON types against the schema, unknown and duplicate fields per fieldValidation.
import { jsonDepth, yamlDepthBound } from '../../machinery/nesting.js';
import { goJsonSyntaxError } from '../../machinery/go-json.js';
import { YAML } from '../../machinery/yaml.js';
import type { KObject } from '../../api/types.js';
import { errors, StatusError } from '../../machinery/errors.js';
import { checkAgainstSchema, duplicateFields, type DecodeProblems } from '../../machinery/field-validation.js';
import type { Schema } from '../../machinery/schema.js';
import { isPlainObject } from '../../machinery/object.js';
import type { RequestContext } from '../context.js';
import type { ResourceStore } from '../registry/store.js';

export function mediaType(contentType: string | undefined): string {
  // asked several times per request, and clients send the same header again and again
  if (contentType === lastContentType) return lastMediaType;
  const mt = (contentType ?? '').split(';')[0].trim().toLowerCase();
  lastContentType = contentType;
  lastMediaType = mt;
  return mt;
}
let lastContentType: string | undefined = '';
let lastMediaType = '';

/**
 * Bodies nest at most this deep. Kubernetes' decoder allows 10,000 levels; k1s' validation, pruning and apply walk
 * objects recursively, so it refuses deeper bodies up front (real manifests and CRD schemas stay far below).
 */
export const MAX_DEPTH = 1000;
/**
 * YAML nests at most this deep (estimated on the text): the yaml parser recurses per level and runs out of stack
 * some hundreds of levels down, so the bound sits well below that.
 */
export const MAX_YAML_DEPTH = 200;

const tooDeep = () => errors.badRequest(`couldn't get version/kind; json parse error: exceeded max depth of ${MAX_DEPTH}`);

function valueDepth(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d > max) max = d;
    for (const c of Object.values(x as object)) stack.push([c, d + 1]);
  }
  return max;
}

/** Parses a JSON or YAML body; protobuf and unknown types are refused with 415 so clients fall back to JSON. */
export function parseBody(contentType: string | undefined, raw: string): unknown {
  const mt = mediaType(contentType);
  if (mt === 'application/yaml' || mt === 'application/apply-patch+yaml' || mt === 'text/yaml' || mt === 'application/x-yaml') {
    if (raw.length >= MAX_YAML_DEPTH && yamlDepthBound(raw) > MAX_YAML_DEPTH) {
      throw errors.badRequest(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_YAML_DEPTH}`);
    }
    try {
      const docs = YAML.parseAllDocuments(raw);
      if (docs.length > 1) throw errors.badRequest('yaml: multiple documents are not supported in one request');
      const d = docs[0];
      if (!d) return null;
      if (d.errors.length) throw new Error(d.errors[0].message);
      const v = d.toJS({ maxAliasCount: 100 });
      if (raw.length >= 2 * MAX_DEPTH && valueDepth(v) > MAX_DEPTH) throw tooDeep();
      return v;
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw errors.badRequest(`error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  if (mt === '' || mt === 'application/json' || mt.endsWith('+json') || mt === '*/*') {
    if (raw.length >= 2 * MAX_DEPTH && jsonDepth(raw) > MAX_DEPTH) throw tooDeep();
    try {
      return JSON.parse(raw);
    } catch (e) {
      throw errors.badRequest(`couldn't get version/kind; json parse error: ${goJsonSyntaxError(Buffer.from(raw)) ?? (e as Error).message}`);
    }
  }
  throw new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
  );
}

/** The body of a create or update must be an object of the URL's kind and version. */
export function checkTypeMeta(rs: ResourceStore, body: unknown): KObject {
  if (!isPlainObject(body)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${rs.def.kind}): couldn't get version/kind; json parse error: expected an object`);
  }
  const obj = body as KObject;
  const av = obj.apiVersion;
  const kind = obj.kind;
  if (av !== undefined && av !== rs.apiVersion) {
    throw errors.badRequest(`the API version in the data (${String(av)}) does not match the expected API version (${rs.apiVersion})`);
  }
  if (kind !== undefined && kind !== rs.def.kind) {
    throw errors.badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${rs.def.kind})`);
  }
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw cannotHandle(rs, `json: cannot unmarshal ${Array.isArray(obj.metadata) ? 'array' : typeof obj.metadata} into Go struct field ${rs.def.kind}.metadata of type v1.ObjectMeta`);
  }
  obj.metadata ??= {};
  return obj;
}

function cannotHandle(rs: ResourceStore, why: string): StatusError {
  return errors.badRequest(`${rs.def.kind} in version "${rs.def.version}" cannot be handled as a ${rs.def.kind}: ${why}`);
}

const objectMeta: Schema = { type: 'object', properties: { metadata: { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } }, preserveUnknownFields: true };

function customProblems(rs: ResourceStore, obj: unknown): DecodeProblems {
  const meta = checkAgainstSchema(obj, objectMeta, rs.deps.schemas);
  return { typeErrors: meta.typeErrors, unknownFields: isPlainObject(obj) ? rs.def.custom!.prune(obj as KObject) : [] };
}

/**
 * Type errors are always fatal; unknown/duplicate fields follow fieldValidation.
 * `raw` is the JSON text when duplicates can be detected.
 */
export function schemaCheck(
  rs: ResourceStore,
  ctx: RequestContext,
  obj: unknown,
  opts: { raw?: string; patch?: boolean; checked?: ReadonlyMap<object, string> },
): void {
  // a custom object's body is not typed: what its schema lacks is pruned, and type errors are validation errors (422)
  const custom = rs.def.custom;
  const problems = custom ? customProblems(rs, obj) : checkAgainstSchema(obj, rs.schema, rs.deps.schemas, opts.checked);
  if (problems.typeErrors.length) {
    const msg = problems.typeErrors[0];
    throw opts.patch ? errors.badRequest(msg) : cannotHandle(rs, msg);
  }
  if (ctx.fieldValidation === 'Ignore') return;
  const found: string[] = problems.unknownFields.map((f) => `unknown field "${f}"`);
  if (opts.raw && opts.raw.length < 4 * 1024 * 1024) {
    for (const d of duplicateFields(opts.raw)) found.push(`duplicate field "${d}"`);
  }
  if (!found.length) return;
  if (ctx.fieldValidation === 'Warn') {
    ctx.warnings.push(...found);
    return;
  }
  const msg = `strict decoding error: ${found.join(', ')}`;
  throw opts.patch ? errors.badRequest(msg) : cannotHandle(rs, msg);
}

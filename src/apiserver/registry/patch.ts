// PATCH: the four patch types applied to the current object inside the store's read-modify-write loop.
import { jsonDepth, yamlDepthBound } from '../../machinery/nesting.js';
import { MAX_DEPTH, MAX_YAML_DEPTH } from '../handlers/decode.js';
import { YAML } from '../../machinery/yaml.js';
import type { KObject } from '../../api/types.js';
import { errors, StatusError } from '../../machinery/errors.js';
import { applyJsonPatch } from '../../machinery/patch/json-patch.js';
import { copyAlong } from '../../machinery/patch/common.js';
import { applyMergePatch } from '../../machinery/patch/merge-patch.js';
import { applyStrategicMergePatch } from '../../machinery/patch/strategic.js';
import { isPlainObject } from '../../machinery/object.js';
import type { PatchType, RequestContext } from '../context.js';
import { schemaCheck } from '../handlers/decode.js';
import type { ResourceStore } from './store.js';
import { serverSideApply } from './apply.js';

export interface PatchRequest {
  type: PatchType;
  raw: string;
  subresource: string;
  force: boolean;
  /** the caller only serialises the object returned */
  readOnlyResult?: boolean;
}

function parsePatchBody(req: PatchRequest): unknown {
  const yaml = req.type === 'apply';
  if (req.raw.length >= 2 * MAX_YAML_DEPTH && (yaml ? yamlDepthBound(req.raw) > MAX_YAML_DEPTH : jsonDepth(req.raw) > MAX_DEPTH)) {
    throw errors.badRequest(`error decoding patch: exceeded max depth of ${yaml ? MAX_YAML_DEPTH : MAX_DEPTH}`);
  }
  try {
    if (req.type === 'apply') return YAML.parse(req.raw);
    return JSON.parse(req.raw);
  } catch (e) {
    throw errors.badRequest(`error decoding patch: ${(e as Error).message.split('\n')[0]}`);
  }
}

export async function patchObject(
  rs: ResourceStore,
  ctx: RequestContext,
  namespace: string,
  name: string,
  req: PatchRequest,
): Promise<{ object: KObject; created: boolean }> {
  const patch = parsePatchBody(req);
  if (req.type === 'apply' && !isPlainObject(patch)) {
    throw errors.badRequest('error decoding YAML: the apply configuration is not an object');
  }
  if (req.type === 'apply') {
    if (req.force === undefined) throw errors.badRequest('force must be set');
    return serverSideApply(rs, ctx, namespace, name, patch as KObject, { force: req.force, subresource: req.subresource });
  }
  if (req.force) throw errors.badRequest('force: Invalid value: true: may not be specified for non-apply patch');
  return rs.guaranteedUpdate(
    ctx,
    namespace,
    name,
    (current) => {
      if (!current) throw errors.notFound(rs.gr, name);
      // A status patch of a kind whose status update takes only status and annotations from the object (statusOnly)
      // copies what the patch reaches, the status and metadata's top level (system fields are set on it); the rest
      // (a pod's spec, managedFields) is shared with the stored revision, read-only, instead of copied whole.
      const owned = req.subresource === 'status' && rs.def.strategy.statusOnly !== undefined && req.type !== 'json' && isPlainObject(patch);
      const cur = owned ? statusPatchBase(current, patch) : { ...current };
      let result: unknown;
      try {
        if (req.type === 'json') result = applyJsonPatch(cur, patch, { fieldValidation: ctx.fieldValidation });
        else if (req.type === 'merge') result = applyMergePatch(cur, patch, { fieldValidation: ctx.fieldValidation, originalOwned: owned });
        else result = applyStrategicMergePatch(cur, patch, rs.schema, rs.deps.schemas, { originalOwned: owned });
      } catch (e) {
        if (e instanceof StatusError) throw e;
        throw errors.internal((e as Error).message);
      }
      if (!isPlainObject(result)) throw errors.badRequest('the patch produced something that is not an object');
      const obj = result as KObject;
      if (obj.apiVersion !== undefined && obj.apiVersion !== rs.apiVersion) {
        throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${rs.apiVersion})`);
      }
      if (obj.kind !== undefined && obj.kind !== rs.def.kind) {
        throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${rs.def.kind})`);
      }
      // what the result shares with the stored object (all the patch left alone) was checked when it was written
      schemaCheck(rs, ctx, obj, { patch: true, checked: storedValues(current) });
      // a patch that names a resourceVersion pins it (optimistic concurrency); otherwise it retries on conflict
      obj.metadata ??= {};
      if (!patchPinsResourceVersion(req.type, patch)) delete obj.metadata.resourceVersion;
      return obj;
    },
    // the patch functions copy what they patch (the result is new), so they are given the stored object itself
    { subresource: req.subresource, currentReadOnly: true, freshDesired: true, readOnlyResult: req.readOnlyResult },
  );
}

/** The objects among a stored object's top-level and metadata values, by path (schemaCheck's `checked`). */
function storedValues(current: KObject): Map<object, string> {
  const out = new Map<object, string>();
  const add = (o: object, prefix: string) => {
    for (const k in o) {
      const v = (o as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(o, k)) out.set(v, prefix + k);
    }
  };
  add(current, '');
  if (typeof current.metadata === 'object' && current.metadata !== null) add(current.metadata, 'metadata.');
  return out;
}

function statusPatchBase(current: KObject, patch: Record<string, unknown>): KObject {
  const base = copyAlong(current as unknown as Record<string, unknown>, patch, ['status']) as unknown as KObject;
  if (base.metadata === current.metadata) base.metadata = { ...current.metadata };
  return base;
}

function patchPinsResourceVersion(type: PatchType, patch: unknown): boolean {
  if (type === 'json') {
    return Array.isArray(patch) && patch.some((op) => isPlainObject(op) && op.path === '/metadata/resourceVersion');
  }
  if (!isPlainObject(patch)) return false;
  const md = patch.metadata;
  return isPlainObject(md) && typeof md.resourceVersion === 'string' && md.resourceVersion !== '';
}

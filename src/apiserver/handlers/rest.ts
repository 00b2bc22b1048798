// Generic REST handlers: one dispatch for every resource, derived from its definition.
import { goOrderedList } from '../registry/wire-order.js';
import { queryBool, queryInt64 } from './query-params.js';
import type { KObject } from '../../api/types.js';
import { errors, StatusError } from '../../machinery/errors.js';
import { clone, isPlainObject } from '../../machinery/object.js';
import type { DeleteOptions, FieldValidation, ListParams, RequestContext, UserInfo, WatchParams } from '../context.js';
import { patchContentTypes } from '../context.js';
import { negotiate, type Output } from './content.js';
import { checkTypeMeta, mediaType, parseBody, schemaCheck } from './decode.js';
import type { Registry } from '../registry/registry.js';
import type { RequestInfo } from './request-info.js';
import { listObjects } from '../registry/list.js';
import { patchObject } from '../registry/patch.js';
import type { ResourceStore } from '../registry/store.js';
import { partialMetadata, toTable } from './table.js';
import { getScale, updateScale } from '../registry/scale.js';
import { applyJsonPatch } from '../../machinery/patch/json-patch.js';
import { applyMergePatch } from '../../machinery/patch/merge-patch.js';
import { decodeProtobufBody, protobufMediaType } from './protobuf-body.js';

export interface ApiRequest {
  info: RequestInfo;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string | undefined;
  /** the undecoded bytes, for binary media types (protobuf) */
  rawBody?: Buffer;
  /**
   * The body as the in-process client hands it over, in place of `body`: each decoding is a copy of it with JSON's
   * semantics (what serialising and parsing it gave), so the caller's object is never changed or kept.
   */
  value?: unknown;
  user: UserInfo;
  /**
   * the caller only reads the response body (the HTTPS front serialises it; an in-process writer may promise so), so
   * the store may share the objects it returns
   */
  serializesResponse?: boolean;
  /** the response body is written as JSON text (jsonOf): only then is a written object's stored text kept for it */
  respondsWithJson?: boolean;
  /** sees the decoded body (and DeleteOptions) before anything changes it: the audit log's request object */
  onDecoded?: (obj: unknown) => void;
}

export interface ApiResponse {
  code: number;
  body: unknown;
  /** YAML requested */
  output: Output;
  warnings: string[];
  /** the body in the member order kube writes it (over HTTP; in-process callers take the body as it is) */
  wire?: (body: unknown) => unknown;
}

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** Resolves the store for a resource request, checking scope, subresource and verb. */
export function resolveStore(registry: Registry, info: RequestInfo): ResourceStore {
  const rs = registry.lookup(info.group, info.version, info.resource);
  if (!rs) throw notFoundPath();
  const def = rs.def;
  if (info.namespace && !def.namespaced) throw notFoundPath();
  const sub = info.subresource;
  if (sub) {
    const ok =
      (sub === 'status' && def.subresources?.status) ||
      (sub === 'scale' && def.subresources?.scale) ||
      def.subresources?.extra?.includes(sub) ||
      isAction(registry, rs, sub) ||
      (sub === 'finalize' && def.strategy.prepareForFinalize);
    if (!ok || !info.name || info.rest.length) throw notFoundPath();
    const action = def.subresources?.actions?.find((a) => a.name === sub);
    if (action) {
      if (!action.verbs.includes(info.verb)) throw errors.methodNotSupported(rs.gr, info.verb);
      return rs;
    }
    if (!['get', 'update', 'patch'].includes(info.verb)) throw errors.methodNotSupported(rs.gr, info.verb);
    if (sub === 'finalize' && info.verb !== 'update') throw errors.methodNotSupported(rs.gr, info.verb);
    return rs;
  }
  if (info.rest.length) throw notFoundPath();
  if (def.namespaced && !info.namespace && ['create', 'get', 'update', 'patch', 'delete'].includes(info.verb)) throw notFoundPath();
  const verbs = def.verbs ?? allVerbs;
  if (!verbs.includes(info.verb)) throw errors.methodNotSupported(rs.gr, info.verb);
  return rs;
}

function isAction(registry: Registry, rs: ResourceStore, sub: string): boolean {
  return !!rs.def.subresources?.actions?.some((a) => a.name === sub) && !!registry.action(rs.def.group, rs.def.plural, sub);
}

function header(req: ApiRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function contextFor(req: ApiRequest): RequestContext {
  const q = req.query;
  const dry = q.getAll('dryRun');
  for (const d of dry) {
    if (d !== 'All') throw errors.badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
  }
  const fv = q.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(fv)) {
    throw errors.badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
  }
  const ua = header(req, 'user-agent') ?? '';
  const fieldManager = q.get('fieldManager') ?? (ua.split('/')[0].slice(0, 128) || 'unknown');
  return {
    user: req.user,
    dryRun: dry.length > 0,
    fieldManager,
    fieldValidation: fv as FieldValidation,
    warnings: [],
    respondsWithJson: req.respondsWithJson,
  };
}

export function listParams(q: URLSearchParams): ListParams {
  const limit = queryInt64(q, 'limit');
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit,
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  };
}

export function watchParams(q: URLSearchParams): WatchParams {
  return {
    ...listParams(q),
    allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: queryBool(q, 'sendInitialEvents'),
    timeoutSeconds: queryInt64(q, 'timeoutSeconds'),
  };
}

function deleteOptions(rs: ResourceStore, req: ApiRequest): DeleteOptions {
  let opts: DeleteOptions = {};
  const ct = header(req, 'content-type');
  if (mediaType(ct) === protobufMediaType && req.rawBody?.length) {
    opts = decodeProtobufBody(rs.deps.schemas, req.rawBody, rs.deps.kindSchema) as DeleteOptions;
  } else if (req.body && req.body.trim()) {
    const b = parseBody(ct, req.body);
    if (b !== null && !isPlainObject(b)) throw errors.badRequest('DeleteOptions must be an object');
    opts = (b ?? {}) as DeleteOptions;
  }
  const q = req.query;
  const g = queryInt64(q, 'gracePeriodSeconds');
  if (g !== undefined) opts.gracePeriodSeconds = g;
  const pp = q.get('propagationPolicy');
  if (pp !== null) opts.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
  const od = queryBool(q, 'orphanDependents');
  if (od !== undefined) opts.orphanDependents = od;
  if (opts.propagationPolicy && !['Orphan', 'Background', 'Foreground'].includes(opts.propagationPolicy)) {
    throw errors.badRequest(`propagationPolicy: Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  if (opts.gracePeriodSeconds !== undefined && (!Number.isInteger(opts.gracePeriodSeconds) || opts.gracePeriodSeconds < 0)) {
    if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) opts.gracePeriodSeconds = 1;
    else throw errors.badRequest(`invalid gracePeriodSeconds`);
  }
  req.onDecoded?.(opts);
  return opts;
}

function listObject(rs: ResourceStore, out: { items: KObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number }): KObject {
  const metadata: Record<string, unknown> = { resourceVersion: out.resourceVersion };
  if (out.continue) metadata.continue = out.continue;
  if (out.remainingItemCount !== undefined) metadata.remainingItemCount = out.remainingItemCount;
  return { kind: `${rs.def.kind}List`, apiVersion: rs.apiVersion, metadata, items: out.items } as unknown as KObject;
}

/** Shapes an object or list for the negotiated output (Table, PartialObjectMetadata or as-is). */
export function render(rs: ResourceStore, output: Output, q: URLSearchParams, value: KObject, isList: boolean): unknown {
  if (output.kind === 'table') {
    const include = (q.get('includeObject') ?? 'Metadata') as 'None' | 'Metadata' | 'Object';
    if (isList) {
      const l = value as unknown as { items: KObject[]; metadata: Record<string, unknown> };
      return toTable(rs.def, l.items, l.metadata, { apiVersion: output.apiVersion, includeObject: include });
    }
    return toTable(rs.def, [value], { resourceVersion: value.metadata.resourceVersion }, { apiVersion: output.apiVersion, includeObject: include });
  }
  if (output.kind === 'partial') {
    if (isList) {
      const l = value as unknown as { items: KObject[]; metadata: Record<string, unknown> };
      return { kind: 'PartialObjectMetadataList', apiVersion: output.apiVersion, metadata: l.metadata, items: l.items.map((i) => partialMetadata(i, output.apiVersion)) };
    }
    return partialMetadata(value, output.apiVersion);
  }
  return value;
}

/** Everything but watch: returns the status code and body. */
export async function handleResource(registry: Registry, req: ApiRequest): Promise<ApiResponse> {
  const { info, query: q } = req;
  const rs = resolveStore(registry, info);
  const isList = info.verb === 'list' || info.verb === 'deletecollection';
  const output = negotiate(header(req, 'accept'), { list: isList, watch: false });
  const ctx = contextFor(req);
  if (rs.def.deprecationWarning) ctx.warnings.push(rs.def.deprecationWarning);
  const ns = info.namespace;
  const done = (code: number, value: KObject, list = false): ApiResponse => ({
    code,
    body: render(rs, output, q, value, list),
    output,
    warnings: ctx.warnings,
    wire: output.kind === 'json' || output.kind === 'yaml' ? (list ? (b) => goOrderedList(rs, registry.order, b as never) : (b) => rs.goOrdered(b)) : undefined,
  });
  if (info.subresource === 'scale') return handleScale(rs, req, ctx, output);
  const action = info.subresource ? registry.action(rs.def.group, rs.def.plural, info.subresource) : undefined;
  if (action) {
    const body = parseRequestBody(rs, req);
    if (!isPlainObject(body)) throw errors.badRequest(`the body of a ${info.subresource} request must be an object`);
    const object = body as KObject;
    object.metadata ??= {};
    await registry.actionAdmission.admit({ ctx, store: rs, operation: 'CREATE', object, namespace: ns, name: info.name, subresource: info.subresource });
    const res = await action({ ctx, store: rs, registry, namespace: ns, name: info.name, body: body as KObject });
    return { code: res.code, body: res.object, output: output.kind === 'yaml' ? output : { kind: 'json' }, warnings: ctx.warnings };
  }
  if (rs.def.virtual) {
    if (info.verb !== 'create') throw errors.methodNotSupported(rs.gr, info.verb);
    const obj = checkTypeMeta(rs, parseRequestBody(rs, req));
    schemaCheck(rs, ctx, obj, {});
    obj.apiVersion = rs.apiVersion;
    obj.kind = rs.def.kind;
    rs.def.strategy.defaults?.(obj);
    const errs = rs.def.strategy.validate?.(obj) ?? [];
    if (errs.length) throw rs.invalid(obj.metadata.name ?? '', errs);
    return done(201, await rs.def.virtual.create(obj, { user: req.user, namespace: ns, authorizer: registry.authorizer }));
  }
  switch (info.verb) {
    case 'get':
      return done(200, await rs.get(ns, info.name));
    case 'list':
      return done(200, listObject(rs, await listObjects(rs, ns, listParams(q))), true);
    case 'create': {
      const raw = req.body ?? '';
      const obj = checkTypeMeta(rs, parseRequestBody(rs, req));
      schemaCheck(rs, ctx, obj, { raw: isJson(req) ? raw : undefined });
      if (info.name) throw errors.methodNotSupported(rs.gr, 'create');
      if (obj.metadata.namespace && rs.def.namespaced && obj.metadata.namespace !== ns) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      // a JSON body was parsed for this request alone (plain JSON data): the store may build the new object in it
      return done(201, await rs.create(ctx, ns, obj, { owned: isJson(req), readOnlyResult: req.serializesResponse }));
    }
    case 'update': {
      const raw = req.body ?? '';
      const obj = checkTypeMeta(rs, parseRequestBody(rs, req));
      schemaCheck(rs, ctx, obj, { raw: isJson(req) ? raw : undefined });
      if (obj.metadata.namespace && rs.def.namespaced && obj.metadata.namespace !== ns) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      // a JSON body is plain data of this request alone: the store builds the new object in it (a retry after a
      // conflict decodes the body again)
      const reparse = isJson(req) ? () => checkTypeMeta(rs, parseRequestBody(rs, req)) : undefined;
      const res = await rs.update(ctx, ns, info.name, obj, info.subresource, { reparse, readOnlyResult: req.serializesResponse });
      return done(res.created ? 201 : 200, res.object);
    }
    case 'patch': {
      const type = patchContentTypes[mediaType(header(req, 'content-type'))];
      if (type === 'strategic' && rs.def.custom) {
        throw new StatusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        );
      }
      if (!type) {
        throw new StatusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
        );
      }
      const force = q.get('force');
      if (type === 'apply' && !q.get('fieldManager')) {
        throw errors.badRequest('PATCH requests of type apply require fieldManager to be set');
      }
      const res = await patchObject(rs, ctx, ns, info.name, {
        type,
        raw: req.body ?? '',
        subresource: info.subresource,
        force: force === 'true',
        readOnlyResult: req.serializesResponse,
      });
      return done(res.created ? 201 : 200, res.object);
    }
    case 'delete': {
      const res = await rs.delete(ctx, ns, info.name, deleteOptions(rs, req));
      if (!res.deleted) return done(202, res.object);
      if (rs.def.strategy.returnDeletedObject) return done(200, res.object);
      const details: Record<string, unknown> = { name: info.name, kind: rs.def.plural, uid: res.object.metadata.uid };
      if (rs.def.group) details.group = rs.def.group;
      return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, output: { kind: output.kind === 'yaml' ? 'yaml' : 'json' }, warnings: ctx.warnings };
    }
    case 'deletecollection': {
      const opts = deleteOptions(rs, req);
      const listed = await listObjects(rs, ns, { ...listParams(q), limit: undefined, continue: undefined });
      const deleted: KObject[] = [];
      for (const item of listed.items) {
        try {
          const r = await rs.delete(ctx, item.metadata.namespace ?? '', item.metadata.name!, opts);
          deleted.push(r.object);
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
      return done(200, listObject(rs, { items: deleted, resourceVersion: String(registry.store.currentRevision()) }), true);
    }
    default:
      throw errors.methodNotSupported(rs.gr, info.verb);
  }
}

/** JSON, YAML or Kubernetes protobuf, by Content-Type. */
export function parseRequestBody(rs: ResourceStore, req: ApiRequest): unknown {
  if (req.value !== undefined) return clone(req.value);
  const ct = header(req, 'content-type');
  if (mediaType(ct) === protobufMediaType && rs.def.custom) {
    throw new StatusError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  }
  const obj = mediaType(ct) === protobufMediaType ? decodeProtobufBody(rs.deps.schemas, req.rawBody ?? Buffer.alloc(0), rs.deps.kindSchema) : parseBody(ct, req.body ?? '');
  req.onDecoded?.(obj);
  return obj;
}

async function handleScale(rs: ResourceStore, req: ApiRequest, ctx: RequestContext, output: Output): Promise<ApiResponse> {
  const { info } = req;
  const ns = info.namespace;
  const done = (code: number, body: unknown): ApiResponse => ({ code, body, output: output.kind === 'yaml' ? output : { kind: 'json' }, warnings: ctx.warnings });
  if (info.verb === 'get') return done(200, await getScale(rs, ns, info.name));
  if (info.verb === 'update') {
    const body = parseRequestBody(rs, req);
    if (!isPlainObject(body)) throw errors.badRequest('the body of a Scale update must be an object');
    return done(200, await updateScale(rs, ctx, ns, info.name, () => body as KObject));
  }
  const type = patchContentTypes[mediaType(header(req, 'content-type'))];
  if (!type || type === 'apply') {
    throw new StatusError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json');
  }
  let patch: unknown;
  try {
    patch = JSON.parse(req.body ?? '');
  } catch (e) {
    throw errors.badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  return done(
    200,
    await updateScale(rs, ctx, ns, info.name, (cur) => (type === 'json' ? applyJsonPatch(cur, patch) : applyMergePatch(cur, patch)) as KObject),
  );
}

function isJson(req: ApiRequest): boolean {
  const mt = mediaType(header(req, 'content-type'));
  return mt === '' || mt === 'application/json';
}

// The REST operations of a resource, in a format-neutral form that the v2 and v3 writers render. Paths, operation
// ids, actions and parameters follow kube-apiserver's installer, because clients read them: kubectl's
// QueryParamVerifier looks for `fieldValidation` among the parameters of the PATCH operation carrying the kind's
// `x-kubernetes-group-version-kind` (it stops at the first such PATCH, so every PATCH carries it), kubectl apply
// looks for application/strategic-merge-patch+json in that PATCH's request body, and `kubectl explain` finds a
// resource's kind through the GVK of the operations on its collection and item paths.
import type { ResourceDefinition } from '../../api/types.js';
import { DEF, SCALE_GVK } from './meta.js';
import { listDefName, type GVK } from './definitions.js';

export type ParamType = 'string' | 'integer' | 'boolean';

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: ParamType;
  description: string;
  required?: boolean;
}

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  action: Action;
  gvk: GVK;
  tag: string;
  params: Param[];
  /** Request body definition; `patch` bodies are sent in one of `consumes`. */
  body?: { ref: string; required: boolean };
  consumes: string[];
  responses: { code: '200' | '201' | '202'; description: string; ref: string }[];
  /** list and watch operations also answer in streaming form */
  streams: boolean;
}

export interface PathItem {
  path: string;
  params: Param[];
  ops: Operation[];
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
/** Custom resources do not take strategic merge patches. */
export const PATCH_TYPES_NO_SMP = PATCH_TYPES.filter((t) => !t.includes('strategic'));

const q = (name: string, type: ParamType, description: string): Param => ({ name, in: 'query', type, description });
const P = {
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: q('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
  ),
  force: q('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted. The value zero indicates delete immediately.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  propagationPolicy: q('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  continue: q('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  fieldSelector: q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  labelSelector: q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: q('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  resourceVersion: q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true` to start the watch with synthetic events for the current state.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
};
const LIST_PARAMS = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];
const DELETECOLLECTION_PARAMS = [P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.labelSelector, P.limit, P.orphanDependents, P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds];

const pathParam = (name: string, description: string): Param => ({ name, in: 'path', type: 'string', description, required: true });

const cap = (x: string) => x.charAt(0).toUpperCase() + x.slice(1);

/** "Core", "Apps", "RbacAuthorization", "StableExampleCom": the group part of kube's operation ids. */
export function groupIdPart(group: string): string {
  if (!group) return 'Core';
  return group.replace(/\.k8s\.io$/, '').split(/[.-]/).map(cap).join('');
}

/** "core_v1", "apps_v1", "rbacAuthorization_v1": kube's operation tags. */
export function tagOf(group: string, version: string): string {
  const g = groupIdPart(group);
  return `${g.charAt(0).toLowerCase()}${g.slice(1)}_${version}`;
}

/** URL prefix of a group-version: /api/v1 or /apis/<group>/<version>. */
export function gvPrefix(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

export interface PathOptions {
  /** Patch content types the resource accepts; default PATCH_TYPES (built-ins take strategic merge patches). */
  patchTypes?: (r: ResourceDefinition) => string[];
}

export function resourcePaths(r: ResourceDefinition, opts: PathOptions = {}): PathItem[] {
  const verbs = new Set(r.verbs ?? ALL_VERBS);
  const gvk: GVK = { group: r.group, version: r.version, kind: r.kind };
  const tag = tagOf(r.group, r.version);
  const idBase = `${groupIdPart(r.group)}${cap(r.version)}`;
  const ns = r.namespaced ? 'Namespaced' : '';
  const prefix = gvPrefix(r.group, r.version);
  const coll = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
  const watchColl = r.namespaced ? `${prefix}/watch/namespaces/{namespace}/${r.plural}` : `${prefix}/watch/${r.plural}`;
  const nsParam = r.namespaced ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')] : [];
  const nameParam = (what: string) => pathParam('name', `name of the ${what}`);
  // custom resources take no strategic merge patch, and say so: kubectl apply then sends a merge patch
  const patchTypes = opts.patchTypes?.(r) ?? (r.custom ? PATCH_TYPES_NO_SMP : PATCH_TYPES);
  const kindRef = r.schemaRef;
  const ok = (ref: string) => ({ code: '200' as const, description: 'OK', ref });
  const created = (ref: string) => ({ code: '201' as const, description: 'Created', ref });
  const accepted = (ref: string) => ({ code: '202' as const, description: 'Accepted', ref });
  const op = (o: Omit<Operation, 'gvk' | 'tag' | 'consumes' | 'streams'> & Partial<Pick<Operation, 'gvk' | 'consumes' | 'streams'>>): Operation => ({
    gvk,
    tag,
    consumes: ['*/*'],
    streams: false,
    ...o,
  });
  const out: PathItem[] = [];

  const collOps: Operation[] = [];
  if (verbs.has('list'))
    collOps.push(op({ method: 'get', operationId: `list${idBase}${ns}${r.kind}`, description: `list or watch objects of kind ${r.kind}`, action: 'list', params: LIST_PARAMS, responses: [ok(listDefName(r))], streams: true }));
  if (verbs.has('create'))
    collOps.push(op({ method: 'post', operationId: `create${idBase}${ns}${r.kind}`, description: `create a ${r.kind}`, action: 'post', params: WRITE_PARAMS, body: { ref: kindRef, required: true }, responses: [ok(kindRef), created(kindRef), accepted(kindRef)] }));
  if (verbs.has('deletecollection'))
    collOps.push(op({ method: 'delete', operationId: `delete${idBase}Collection${ns}${r.kind}`, description: `delete collection of ${r.kind}`, action: 'deletecollection', params: DELETECOLLECTION_PARAMS, body: { ref: DEF.deleteOptions, required: false }, responses: [ok(DEF.status)] }));
  if (collOps.length) out.push({ path: coll, params: [...nsParam, P.pretty], ops: collOps });

  const itemOps: Operation[] = [];
  if (verbs.has('get')) itemOps.push(op({ method: 'get', operationId: `read${idBase}${ns}${r.kind}`, description: `read the specified ${r.kind}`, action: 'get', params: [], responses: [ok(kindRef)] }));
  if (verbs.has('update'))
    itemOps.push(op({ method: 'put', operationId: `replace${idBase}${ns}${r.kind}`, description: `replace the specified ${r.kind}`, action: 'put', params: WRITE_PARAMS, body: { ref: kindRef, required: true }, responses: [ok(kindRef), created(kindRef)] }));
  if (verbs.has('patch'))
    itemOps.push(op({ method: 'patch', operationId: `patch${idBase}${ns}${r.kind}`, description: `partially update the specified ${r.kind}`, action: 'patch', params: [...WRITE_PARAMS, P.force], body: { ref: DEF.patch, required: true }, consumes: patchTypes, responses: [ok(kindRef), created(kindRef)] }));
  if (verbs.has('delete'))
    itemOps.push(op({ method: 'delete', operationId: `delete${idBase}${ns}${r.kind}`, description: `delete a ${r.kind}`, action: 'delete', params: DELETE_PARAMS, body: { ref: DEF.deleteOptions, required: false }, responses: [ok(DEF.status), accepted(DEF.status)] }));
  if (itemOps.length) out.push({ path: `${coll}/{name}`, params: [nameParam(r.kind), ...nsParam, P.pretty], ops: itemOps });

  // Subresources: get/put/patch regardless of the main resource's verbs, as kube serves them.
  const sub = (name: string, suffix: string, ref: string, g: GVK) => {
    const ops: Operation[] = [
      op({ method: 'get', operationId: `read${idBase}${ns}${r.kind}${suffix}`, description: `read ${name} of the specified ${r.kind}`, action: 'get', gvk: g, params: [], responses: [ok(ref)] }),
      op({ method: 'put', operationId: `replace${idBase}${ns}${r.kind}${suffix}`, description: `replace ${name} of the specified ${r.kind}`, action: 'put', gvk: g, params: WRITE_PARAMS, body: { ref, required: true }, responses: [ok(ref), created(ref)] }),
      op({ method: 'patch', operationId: `patch${idBase}${ns}${r.kind}${suffix}`, description: `partially update ${name} of the specified ${r.kind}`, action: 'patch', gvk: g, params: [...WRITE_PARAMS, P.force], body: { ref: DEF.patch, required: true }, consumes: patchTypes, responses: [ok(ref), created(ref)] }),
    ];
    const what = g.kind === r.kind ? r.kind : g.kind;
    out.push({ path: `${coll}/{name}/${name}`, params: [nameParam(what), ...nsParam, P.pretty], ops });
  };
  if (r.subresources?.scale) sub('scale', 'Scale', DEF.scale, { ...SCALE_GVK });
  if (r.subresources?.status) sub('status', 'Status', kindRef, gvk);

  if (r.namespaced && verbs.has('list'))
    out.push({
      path: `${prefix}/${r.plural}`,
      params: [P.pretty],
      ops: [op({ method: 'get', operationId: `list${idBase}${r.kind}ForAllNamespaces`, description: `list or watch objects of kind ${r.kind}`, action: 'list', params: LIST_PARAMS, responses: [ok(listDefName(r))], streams: true })],
    });
  if (verbs.has('watch')) {
    const watchOp = (operationId: string, action: Action, description: string) =>
      op({ method: 'get', operationId, description, action, params: LIST_PARAMS, responses: [ok(DEF.watchEvent)], streams: true });
    const listDesc = `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
    out.push({ path: watchColl, params: [...nsParam, P.pretty], ops: [watchOp(`watch${idBase}${ns}${r.kind}List`, 'watchlist', listDesc)] });
    out.push({
      path: `${watchColl}/{name}`,
      params: [nameParam(r.kind), ...nsParam, P.pretty],
      ops: [watchOp(`watch${idBase}${ns}${r.kind}`, 'watch', `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`)],
    });
    if (r.namespaced)
      out.push({ path: `${prefix}/watch/${r.plural}`, params: [P.pretty], ops: [watchOp(`watch${idBase}${r.kind}ListForAllNamespaces`, 'watchlist', listDesc)] });
  }
  return out;
}

/** Resources' paths merged and sorted by path (two resources never share one). */
export function allPaths(resources: readonly ResourceDefinition[], opts: PathOptions = {}): PathItem[] {
  return resources.flatMap((r) => resourcePaths(r, opts)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

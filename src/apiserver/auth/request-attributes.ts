// A request's authorization attributes (kube's RequestInfo → authorizer.Attributes): resource requests by
// group/resource/subresource/namespace/name and verb, everything else by path and the lower-cased HTTP method.
import { forbiddenStatus, type AccessDecider, type RequestAttributes } from '../../api/rbac/rules.js';
import type { RequestInfo } from '../handlers/request-info.js';
import type { UserInfo } from '../context.js';
import { parseFieldSelector } from '../../machinery/fields.js';
import { StatusError } from '../../machinery/errors.js';

// WebSocket upgrades of these are GETs, but they start a process or a stream: kube authorizes them as create
// (AuthorizePodWebsocketUpgradeCreatePermission, on by default since 1.31)
const streamSubresources = new Set(['exec', 'attach', 'portforward']);

/**
 * `query` is the request's: a list or watch carries its field selector, and one with an exact `metadata.name`
 * term is authorized as a request for that name (kube's RequestInfoFactory sets the name from it).
 */
export function requestAttributes(method: string, info: RequestInfo, query?: URLSearchParams): RequestAttributes {
  if (!info.isResourceRequest) {
    return { verb: method.toLowerCase(), resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: info.path };
  }
  let verb = info.verb;
  if (info.resource === 'pods' && streamSubresources.has(info.subresource) && verb === 'get') verb = 'create';
  // a namespace is its own namespace: a RoleBinding that grants "get namespaces" lets one read the namespace it is in
  const namespace = info.resource === 'namespaces' && info.name ? info.name : info.namespace;
  const fieldSelector = verb === 'list' || verb === 'watch' ? query?.get('fieldSelector') || undefined : undefined;
  let name = info.name;
  if (fieldSelector && !name) name = selectedName(fieldSelector);
  return {
    verb,
    resourceRequest: true,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace,
    name,
    path: info.path,
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}

/** the name an exact `metadata.name=` term selects, when it is a valid path segment; a bad selector selects none */
function selectedName(selector: string): string {
  try {
    const name = parseFieldSelector(selector).requiresExactMatch('metadata.name') ?? '';
    return name === '.' || name === '..' || /[/%]/.test(name) ? '' : name;
  } catch {
    return '';
  }
}

/** The 403 for a request the authorizer denies, or undefined when it is allowed. */
export function authorizeRequest(authorizer: AccessDecider, user: UserInfo, method: string, info: RequestInfo, query?: URLSearchParams): StatusError | undefined {
  const attrs = requestAttributes(method, info, query);
  const decision = authorizer.authorize(user, attrs);
  if (decision.allowed) return undefined;
  const { message, details } = forbiddenStatus(user.name, attrs, decision.reason);
  return new StatusError(403, 'Forbidden', message, details);
}

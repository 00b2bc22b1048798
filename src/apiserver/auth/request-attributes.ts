// A request's authorization attributes (kube's RequestInfo → authorizer.Attributes): resource requests by
// group/resource/subresource/namespace/name and verb, everything else by path and the lower-cased HTTP method.
import type { RequestAttributes } from '../../api/rbac/rules.js';
import type { RequestInfo } from '../handlers/request-info.js';

// WebSocket upgrades of these are GETs, but they start a process or a stream: kube authorizes them as create
// (AuthorizePodWebsocketUpgradeCreatePermission, on by default since 1.31)
const streamSubresources = new Set(['exec', 'attach', 'portforward']);

export function requestAttributes(method: string, info: RequestInfo): RequestAttributes {
  if (!info.isResourceRequest) {
    return { verb: method.toLowerCase(), resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: info.path };
  }
  let verb = info.verb;
  if (info.resource === 'pods' && streamSubresources.has(info.subresource) && verb === 'get') verb = 'create';
  // a namespace is its own namespace: a RoleBinding that grants "get namespaces" lets one read the namespace it is in
  const namespace = info.resource === 'namespaces' && info.name ? info.name : info.namespace;
  return {
    verb,
    resourceRequest: true,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace,
    name: info.name,
    path: info.path,
  };
}

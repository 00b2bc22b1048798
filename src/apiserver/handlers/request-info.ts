// Parses a request path into what kube-apiserver calls RequestInfo: group, version, namespace, resource, name,
// subresource and verb.
import { queryBool } from './query-params.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** remaining path segments after the subresource (e.g. proxy paths) */
  rest: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export function parseRequestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const path = rawPath;
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: (method || 'GET').toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    rest: [],
  };
  // decoded before it is split, as Go's URL.Path is: an escaped '/' in a name (a%2Fb) separates segments there too
  let parts = safeDecode(path).split('/').filter((p) => p !== '');
  if (parts[0] === 'api') {
    info.apiPrefix = 'api';
    parts = parts.slice(1);
  } else if (parts[0] === 'apis') {
    info.apiPrefix = 'apis';
    if (parts.length < 2) return info;
    info.group = parts[1];
    parts = parts.slice(2);
  } else return info;
  if (parts.length < 1) return info;
  info.version = parts[0];
  parts = parts.slice(1);
  if (parts.length === 0) return info;

  info.isResourceRequest = true;
  let verb = methodVerbs[method.toUpperCase()] ?? method.toLowerCase();
  // legacy /watch/ prefix
  if (parts[0] === 'watch') {
    verb = 'watch';
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces' && parts.length > 1) {
    if (parts.length === 2 || namespaceSubresources.has(parts[2])) {
      // /namespaces/{name}[/status|/finalize]: the namespace object itself
      info.resource = 'namespaces';
      info.name = parts[1];
      info.subresource = parts[2] ?? '';
      parts = [];
    } else {
      info.namespace = parts[1];
      parts = parts.slice(2);
    }
  }
  if (!info.resource) {
    info.resource = parts[0] ?? '';
    if (parts.length > 1) info.name = parts[1];
    if (parts.length > 2) info.subresource = parts[2];
    if (parts.length > 3) info.rest = parts.slice(3);
  }

  // a collection GET is a watch unless watch is absent, "false" or "0" (kube's bool parameters); a named GET is a get
  if (verb === 'get' && !info.name) verb = queryBool(query, 'watch') ? 'watch' : 'list';
  if (verb === 'delete' && !info.name) verb = 'deletecollection';
  info.verb = verb;
  return info;
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s; // nothing to decode (decodeURIComponent would return s as is)
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What parseRequestInfo gives for a request the in-process client makes (`/api[s]/<apiVersion>[/namespaces/<ns>]/
 * <plural>[/<name>[/<subresource>]]`, no watch query), built from the parts instead of formatting and parsing a
 * path. `path` is the request's path. The namespaces resource itself goes through the parser (its subresources are
 * told apart from a namespace's resources by name).
 */
export function resourceRequestInfo(method: string, path: string, apiVersion: string, plural: string, namespace: string, name: string, subresource: string): RequestInfo {
  const slash = apiVersion.indexOf('/');
  if (plural === 'namespaces' || plural === 'watch' || namespaceSubresources.has(plural) || !plural || !apiVersion || (subresource && !name) || slash === 0 || slash === apiVersion.length - 1 || apiVersion.indexOf('/', slash + 1) >= 0) {
    return parseRequestInfo(method, path, new URLSearchParams());
  }
  let verb = methodVerbs[method.toUpperCase()] ?? method.toLowerCase();
  if (verb === 'get' && !name) verb = 'list';
  if (verb === 'delete' && !name) verb = 'deletecollection';
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: slash > 0 ? 'apis' : 'api',
    group: slash > 0 ? apiVersion.slice(0, slash) : '',
    version: slash > 0 ? apiVersion.slice(slash + 1) : apiVersion,
    namespace,
    resource: plural,
    subresource,
    name,
    rest: [],
  };
}

// Parses a request path into what kube-apiserver calls RequestInfo: group, version, namespace, resource, name,
// subresource and verb.

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
  let parts = path.split('/').filter((p) => p !== '').map(safeDecode);
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

  if (verb === 'get' && !info.name) verb = query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
  if (verb === 'get' && (query.get('watch') === 'true' || query.get('watch') === '1')) verb = 'watch';
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

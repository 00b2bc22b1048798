// What kube-apiserver records of each request (endpoints/metrics.MonitorRequest): the reported verb, the cleaned
// dry-run value and scope, for the HTTPS front and the in-process client alike (in kube every component's requests
// reach the API server, so they are counted there too).
import type { ApiServerMetrics, RequestKind, RequestLabels } from '../metrics/apiserver.js';
import type { RequestInfo } from './handlers/request-info.js';

const readOnlyVerbs = new Set(['get', 'list', 'watch']);

/** kube's max-inflight filter: get, list and watch (and every GET/HEAD of a non-resource path) are read-only */
export function requestKind(method: string, info: RequestInfo): RequestKind {
  if (!info.isResourceRequest) return method === 'GET' || method === 'HEAD' ? 'readOnly' : 'mutating';
  return readOnlyVerbs.has(info.verb) ? 'readOnly' : 'mutating';
}

/** CleanScope: a named object (or a create) is "resource", then "namespace", "cluster"; non-resource paths none */
function scopeOf(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** cleanDryRun: the sorted, deduplicated ?dryRun values, comma-joined ('' without) */
function dryRunOf(query: URLSearchParams | undefined): string {
  const v = query?.getAll('dryRun');
  if (!v?.length) return '';
  return [...new Set(v)].sort().join(',');
}

/** The labels of a request: `contentType` tells an apply patch (reported as APPLY) from the others. */
export function requestLabels(method: string, info: RequestInfo, query: URLSearchParams | undefined, contentType: string | undefined): RequestLabels {
  if (!info.isResourceRequest) return [method, '', '', '', '', info.path, '', 'apiserver'];
  let verb = info.verb.toUpperCase();
  if (verb === 'PATCH' && contentType?.startsWith('application/apply-patch')) verb = 'APPLY';
  else if (verb === 'GET' && (info.subresource === 'exec' || info.subresource === 'attach' || info.subresource === 'portforward' || info.subresource === 'proxy')) verb = 'CONNECT';
  return [verb, dryRunOf(query), info.group, info.version, info.resource, info.subresource, scopeOf(info), 'apiserver'];
}

/** Records one finished request of `seconds` with HTTP status `code`. */
export function recordRequest(m: ApiServerMetrics, method: string, info: RequestInfo, query: URLSearchParams | undefined, contentType: string | undefined, code: number, seconds: number): void {
  m.record(requestLabels(method, info, query, contentType), code, seconds);
}

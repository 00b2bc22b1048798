// Request routing for the ingress controller as pure functions: a route table built from the Ingresses the controller
// owns, and matching of (host, path) against it following the Ingress documentation:
// - hosts: exact hosts first, then `*.suffix` wildcards (one DNS label: `*.foo.com` matches `a.foo.com`, not
//   `a.b.foo.com` nor `foo.com`), then rules without a host;
// - paths: longest match wins, Exact beats Prefix of the same length; Prefix matches element-wise on `/` boundaries
//   (`/foo` matches `/foo`, `/foo/`, `/foo/bar`, not `/foobar`; a trailing `/` in the rule is ignored);
//   ImplementationSpecific is treated as Prefix;
// - ties between Ingresses: the oldest Ingress wins (creationTimestamp, then namespace/name), as ingress-nginx does.
import type { HTTPIngressPath, Ingress, IngressBackend } from '../../api/networking/ingress/schema.js';

export interface Route {
  /** Exact or Prefix (ImplementationSpecific folded into Prefix) */
  pathType: 'Exact' | 'Prefix';
  path: string;
  /** Prefix paths without their trailing slash ('' for '/'): what matching and precedence use */
  norm: string;
  backend: IngressBackend;
  namespace: string;
  ingress: string;
}

export interface RouteTable {
  exact: Map<string, Route[]>;
  wildcard: Map<string, Route[]>;
  any: Route[];
  defaultBackend?: { backend: IngressBackend; namespace: string; ingress: string };
}

export interface RouteMatch {
  backend: IngressBackend;
  namespace: string;
  ingress: string;
}

function age(ing: Ingress): string {
  return `${ing.metadata.creationTimestamp ?? ''}\u0000${ing.metadata.namespace}/${ing.metadata.name}`;
}

function precedence(a: Route, b: Route): number {
  const la = a.pathType === 'Exact' ? a.path.length : a.norm.length;
  const lb = b.pathType === 'Exact' ? b.path.length : b.norm.length;
  if (la !== lb) return lb - la;
  if (a.pathType !== b.pathType) return a.pathType === 'Exact' ? -1 : 1;
  return 0; // stable sort keeps the older Ingress first
}

function toRoute(p: HTTPIngressPath, ing: Ingress): Route | undefined {
  if (!p.backend) return undefined;
  const pathType = p.pathType === 'Exact' ? 'Exact' : 'Prefix';
  const path = p.path || '/';
  return { pathType, path, norm: path.replace(/\/+$/, ''), backend: p.backend, namespace: ing.metadata.namespace!, ingress: ing.metadata.name! };
}

/** Builds the table from the Ingresses to serve (in any order). */
export function buildRouteTable(ingresses: readonly Ingress[]): RouteTable {
  const table: RouteTable = { exact: new Map(), wildcard: new Map(), any: [] };
  const sorted = [...ingresses].sort((a, b) => (age(a) < age(b) ? -1 : age(a) > age(b) ? 1 : 0));
  for (const ing of sorted) {
    const spec = ing.spec ?? {};
    if (spec.defaultBackend && !table.defaultBackend) {
      table.defaultBackend = { backend: spec.defaultBackend, namespace: ing.metadata.namespace!, ingress: ing.metadata.name! };
    }
    for (const rule of spec.rules ?? []) {
      const host = (rule.host ?? '').toLowerCase();
      let bucket: Route[];
      if (!host) bucket = table.any;
      else {
        const map = host.startsWith('*.') ? table.wildcard : table.exact;
        const key = host.startsWith('*.') ? host.slice(1) : host;
        bucket = map.get(key) ?? [];
        map.set(key, bucket);
      }
      for (const p of rule.http?.paths ?? []) {
        const r = toRoute(p, ing);
        if (r) bucket.push(r);
      }
    }
  }
  for (const routes of [table.any, ...table.exact.values(), ...table.wildcard.values()]) routes.sort(precedence);
  return table;
}

/** Does a rule path match the request path? */
export function pathMatches(route: Pick<Route, 'pathType' | 'path' | 'norm'>, reqPath: string): boolean {
  if (route.pathType === 'Exact') return reqPath === route.path;
  if (route.norm === '') return true;
  return reqPath === route.norm || (reqPath.startsWith(route.norm) && reqPath[route.norm.length] === '/');
}

/** Does a rule host (possibly `*.suffix`) match the request host? */
export function hostMatches(ruleHost: string, reqHost: string): boolean {
  const rule = ruleHost.toLowerCase();
  const host = reqHost.toLowerCase();
  if (!rule.startsWith('*.')) return rule === host;
  const suffix = rule.slice(1);
  if (!host.endsWith(suffix)) return false;
  const label = host.slice(0, host.length - suffix.length);
  return label.length > 0 && !label.includes('.');
}

/** The request's host without port (Host header or `:authority`), lower case; IPv6 literals keep no brackets. */
export function requestHost(hostHeader: string | undefined): string {
  const h = (hostHeader ?? '').trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const i = h.lastIndexOf(':');
  return (i >= 0 ? h.slice(0, i) : h).replace(/\.$/, '');
}

/** The path part of a request target, without query or fragment. */
export function requestPath(url: string | undefined): string {
  const u = url ?? '/';
  let end = u.length;
  for (const ch of ['?', '#']) {
    const i = u.indexOf(ch);
    if (i >= 0 && i < end) end = i;
  }
  const p = u.slice(0, end);
  // absolute-form targets (proxies): keep only the path
  if (!p.startsWith('/')) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(p);
    return m?.[1] ?? '/';
  }
  return p;
}

function firstMatch(routes: readonly Route[] | undefined, path: string): Route | undefined {
  if (!routes) return undefined;
  for (const r of routes) if (pathMatches(r, path)) return r;
  return undefined;
}

/**
 * Routes a request: the exact host's rules, then the wildcard's, then rules without a host; a host whose rules
 * have no matching path falls through to the less specific ones (as Traefik, k3s' controller, does); then the
 * oldest defaultBackend; else undefined (404).
 */
export function matchRoute(table: RouteTable, host: string, path: string): RouteMatch | undefined {
  const h = host.toLowerCase();
  const dot = h.indexOf('.');
  const r =
    firstMatch(table.exact.get(h), path) ??
    (dot > 0 ? firstMatch(table.wildcard.get(h.slice(dot)), path) : undefined) ??
    firstMatch(table.any, path);
  if (r) return { backend: r.backend, namespace: r.namespace, ingress: r.ingress };
  return table.defaultBackend;
}

// Webhook client configuration checks shared by admission webhooks and CRD conversion webhooks:
// ValidateWebhookURL / ValidateWebhookService in staging/src/k8s.io/apiserver/pkg/util/webhook/validation.go,
// with the parts of Go's url.Parse they depend on.
import { FieldError, goQuote } from '../../machinery/errors.js';
import { inclusiveRangeError, isDNS1123Subdomain } from '../../machinery/validation.js';

interface GoURL {
  scheme: string;
  user?: string;
  host: string;
  rawQuery: string;
  fragment: string;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The subset of Go's net/url.Parse the webhook checks look at; a string is Go's error text. */
export function parseGoURL(raw: string): GoURL | string {
  const fail = (msg: string) => `parse ${goQuote(raw)}: ${msg}`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const hash = raw.indexOf('#');
  const fragment = hash >= 0 ? safeDecode(raw.slice(hash + 1)) : '';
  let rest = hash >= 0 ? raw.slice(0, hash) : raw;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (rest.startsWith(':')) return fail('missing protocol scheme');
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//') && !(scheme === '' && rest.startsWith('///'))) {
    const auth = rest.slice(2).split('/')[0];
    const at = auth.lastIndexOf('@');
    if (at >= 0) user = auth.slice(0, at);
    host = at >= 0 ? auth.slice(at + 1) : auth;
    const colon = host.startsWith('[') ? host.indexOf(']:') + 1 : host.lastIndexOf(':');
    if (colon > 0 && !/^\d*$/.test(host.slice(colon + 1))) return fail(`invalid port ${goQuote(host.slice(colon))} after host`);
  } else if (!scheme && !rest.startsWith('/')) {
    const first = rest.split('/')[0];
    if (first.includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  return { scheme, user, host, rawQuery, fragment };
}

const FORM = '; desired format: https://host[/path]';

/** ValidateWebhookURL (forceHttps is always true for admission and conversion webhooks). */
export function validateWebhookURL(path: string, url: string): FieldError[] {
  const u = parseGoURL(url);
  if (typeof u === 'string') return [FieldError.required(path, `url must be a valid URL: ${u}${FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(FieldError.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) errs.push(FieldError.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(FieldError.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(FieldError.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery) errs.push(FieldError.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

export interface ServiceRef {
  namespace?: string;
  name?: string;
  path?: string | null;
  port?: number | null;
}

/**
 * ValidateWebhookService. Kubernetes declares it as (namespace, name) but every caller passes (name, namespace),
 * so a missing service name is reported at `namespace` and a missing namespace at `name`; kept as is.
 */
export function validateWebhookService(path: string, svc: ServiceRef): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.namespace) errs.push(FieldError.required(`${path}.name`, 'service name is required'));
  if (!svc.name) errs.push(FieldError.required(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 443;
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535))
    errs.push(FieldError.invalid(`${path}.port`, port, `port is not valid: ${inclusiveRangeError(1, 65535)}`));
  const p = svc.path;
  if (p === undefined || p === null || p === '' || p === '/') return errs;
  if (p === '//') return [...errs, FieldError.invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(FieldError.invalid(`${path}.path`, p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      errs.push(FieldError.invalid(`${path}.path`, p, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) errs.push(FieldError.invalid(`${path}.path`, p, `segment[${i}]: ${m}`));
  });
  return errs;
}

export interface ClientConfig {
  url?: string | null;
  service?: ServiceRef | null;
  caBundle?: string;
}

/** The clientConfig switch of validateValidatingWebhook / validateMutatingWebhook and CRD conversion. */
export function validateClientConfig(path: string, cc: ClientConfig | undefined | null): FieldError[] {
  const url = cc?.url;
  const svc = cc?.service;
  const hasUrl = url !== undefined && url !== null;
  const hasSvc = svc !== undefined && svc !== null;
  if (hasUrl === hasSvc) return [FieldError.required(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookURL(`${path}.url`, url);
  return validateWebhookService(`${path}.service`, svc!);
}

// User impersonation (kube-apiserver's WithImpersonation filter, `kubectl --as`): the Impersonate-User,
// Impersonate-Group, Impersonate-Uid and Impersonate-Extra-<key> headers each ask for one thing, and the
// authenticated user must be allowed the verb `impersonate` on every one of them (users, groups, serviceaccounts
// in their namespace, uids and userextras/<key> in authentication.k8s.io); the request then runs as the user
// they describe. Groups, a uid or extras without a user are refused as kube refuses them: an internal error.
import type { AccessDecider, RequestAttributes } from '../../api/rbac/rules.js';
import { forbiddenStatus } from '../../api/rbac/rules.js';
import { goQuote, StatusError } from '../../machinery/errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../machinery/validation.js';
import type { UserInfo } from '../context.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from './authentication.js';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';
const SA_PREFIX = 'system:serviceaccount:';

/** One thing a request asks to impersonate (kube builds an ObjectReference for each). */
export type ImpersonationRequest =
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'User' | 'Group' | 'UID'; name: string }
  | { kind: 'UserExtra'; name: string; key: string };

/** The outcome for a request: nothing asked (undefined), the user it runs as, a 403, or kube's 500 text. */
export type Impersonation = { user: UserInfo } | { forbidden: StatusError } | { internalError: string } | undefined;

/** Whether any header (node's rawHeaders: name, value, name, value, …) asks for impersonation. */
export function hasImpersonationHeaders(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const n = rawHeaders[i]!;
    if (n.length >= 15 && n.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}

/** The namespace and name of a service account's user name, if it is one (kube's serviceaccount.SplitUsername). */
export function splitServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

/**
 * An extra's key: the header name after the prefix, lower-cased, then percent-decoded as url.PathUnescape does
 * (bytes, so invalid UTF-8 is kept as replacement characters); a malformed escape keeps the key as sent.
 */
export function extraKey(headerSuffix: string): string {
  const lower = headerSuffix.toLowerCase();
  if (!lower.includes('%')) return lower;
  if (/%(?![0-9a-f]{2})/.test(lower)) return lower;
  const bytes: number[] = [];
  for (let i = 0; i < lower.length; i++) {
    if (lower[i] === '%') {
      bytes.push(parseInt(lower.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(lower[i]!, 'latin1'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * What the headers ask for, in kube's order: the user, the groups as sent, the extras, the uid. Throws the text of
 * kube's error when they ask for groups, extras or a uid without a user.
 */
export function impersonationRequests(rawHeaders: readonly string[]): ImpersonationRequest[] {
  let user: string | undefined;
  let uid: string | undefined;
  const groups: ImpersonationRequest[] = [];
  const extras = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    const value = rawHeaders[i + 1]!;
    if (name === USER) user ??= value;
    else if (name === UID) uid ??= value;
    else if (name === GROUP) groups.push({ kind: 'Group', name: value });
    else if (name.startsWith(EXTRA)) {
      const key = extraKey(name.slice(EXTRA.length));
      const values = extras.get(key);
      if (values) values.push(value);
      else extras.set(key, [value]);
    }
  }
  const out: ImpersonationRequest[] = [];
  // an empty header is no request (Header.Get returns "")
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user });
  }
  out.push(...groups);
  for (const [key, values] of extras) for (const v of values) out.push({ kind: 'UserExtra', name: v, key });
  if (uid) out.push({ kind: 'UID', name: uid });
  if (!user && out.length) throw new ImpersonationHeaderError(`requested ${formatRequests(out)} without impersonating a user`);
  return out;
}

export class ImpersonationHeaderError extends Error {}

/** The requests as Go prints a []v1.ObjectReference with %v (Kind Namespace Name UID APIVersion ResourceVersion FieldPath). */
function formatRequests(reqs: ImpersonationRequest[]): string {
  const ref = (r: ImpersonationRequest) => {
    const ns = r.kind === 'ServiceAccount' ? r.namespace : '';
    const apiVersion = r.kind === 'UserExtra' || r.kind === 'UID' ? `${AUTHN_GROUP}/v1` : '';
    const fieldPath = r.kind === 'UserExtra' ? r.key : '';
    return `{${[r.kind, ns, r.name, '', apiVersion, '', fieldPath].join(' ')}}`;
  };
  return `[${reqs.map(ref).join(' ')}]`;
}

/** The attributes the requester is authorized for to impersonate one thing. */
export function impersonationAttributes(r: ImpersonationRequest): RequestAttributes {
  const base = { verb: 'impersonate', resourceRequest: true, apiGroup: '', apiVersion: '', subresource: '', namespace: '', name: r.name, path: '' };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: r.namespace };
    case 'User':
      return { ...base, resource: 'users' };
    case 'Group':
      return { ...base, resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: AUTHN_GROUP, apiVersion: 'v1', resource: 'userextras', subresource: r.key };
    case 'UID':
      return { ...base, apiGroup: AUTHN_GROUP, apiVersion: 'v1', resource: 'uids' };
  }
}

/**
 * The impersonation a request asks for, checked against `requestor`'s permissions (no authorizer: allowed, as
 * every request is then). The impersonated user gets system:authenticated unless the groups asked for name
 * system:authenticated or system:unauthenticated; system:anonymous gets system:unauthenticated instead.
 */
export function impersonate(requestor: UserInfo, rawHeaders: readonly string[], authorizer: AccessDecider | undefined): Impersonation {
  if (!hasImpersonationHeaders(rawHeaders)) return undefined;
  let requests: ImpersonationRequest[];
  try {
    requests = impersonationRequests(rawHeaders);
  } catch (e) {
    if (e instanceof ImpersonationHeaderError) return { internalError: e.message };
    throw e;
  }
  if (!requests.length) return undefined;
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs = impersonationAttributes(r);
    if (authorizer) {
      const d = authorizer.authorize(requestor, attrs);
      if (!d.allowed) {
        const { message, details } = forbiddenStatus(requestor.name, attrs, d.reason);
        return { forbidden: new StatusError(403, 'Forbidden', message, details) };
      }
    }
    if (r.kind === 'ServiceAccount') {
      name = `${SA_PREFIX}${r.namespace}:${r.name}`;
      if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
    } else if (r.kind === 'User') name = r.name;
    else if (r.kind === 'Group') groups.push(r.name);
    else if (r.kind === 'UserExtra') (extra[r.key] ??= []).push(r.name);
    else uid = r.name;
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  const user: UserInfo = { name, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return { user };
}

// kube's responsewriters sanitizer: no text that looks like HTML
const htmlLike = /[&<>]/g;
const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** The body of kube's responsewriters.InternalError (http.Error: text/plain, a newline at the end). */
export function internalErrorText(requestURI: string, message: string): string {
  return `Internal Server Error: ${goQuote(requestURI)}: ${message}`.replace(htmlLike, (c) => htmlEscapes[c]!) + '\n';
}

// The audit.k8s.io/v1 Event and its JSON line, byte for byte as kube-apiserver's log backend writes it: fields in
// the Go struct's order, empty ones left out, map keys sorted, microsecond RFC 3339 times, and Go's HTML-safe
// escaping of <, > and & (encoding/json's default).
import type { UserInfo } from '../context.js';
import type { Level, Stage } from './policy.js';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** metav1.Status as the audit event carries it (no kind/apiVersion) */
export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

export interface AuditEvent {
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** epoch milliseconds with microsecond fractions */
  requestReceivedTimestamp: number;
  stageTimestamp: number;
  annotations?: Record<string, string>;
}

/** The user as the event shows it (authenticationv1.UserInfo). */
export function auditUser(u: UserInfo | undefined): AuditUser {
  if (!u) return {};
  const out: AuditUser = {};
  if (u.name) out.username = u.name;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = sortedKeys(u.extra);
  return out;
}

/** now, in epoch milliseconds with microseconds (Date.now() has milliseconds only) */
export function nowMicros(): number {
  return performance.timeOrigin + performance.now();
}

/** metav1.MicroTime's JSON: 2006-01-02T15:04:05.000000Z07:00 in UTC */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const iso = new Date(whole).toISOString();
  const micros = Math.floor((ms - whole) * 1000);
  return `${iso.slice(0, 19)}.${String((whole % 1000) * 1000 + micros).padStart(6, '0')}Z`;
}

const goUnsafe = /[<>&\u2028\u2029]/;
const goUnsafeAll = /[<>&\u2028\u2029]/g;
const goEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** The event's line, newline included. */
export function eventLine(ev: AuditEvent): string {
  const o: Record<string, unknown> = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: ev.level,
    auditID: ev.auditID,
    stage: ev.stage,
    requestURI: ev.requestURI,
    verb: ev.verb,
    user: ev.user,
  };
  if (ev.impersonatedUser) o.impersonatedUser = ev.impersonatedUser;
  if (ev.sourceIPs?.length) o.sourceIPs = ev.sourceIPs;
  if (ev.userAgent) o.userAgent = ev.userAgent;
  if (ev.objectRef) o.objectRef = objectRefJson(ev.objectRef);
  if (ev.responseStatus) o.responseStatus = statusJson(ev.responseStatus);
  if (ev.requestObject !== undefined) o.requestObject = ev.requestObject;
  if (ev.responseObject !== undefined) o.responseObject = ev.responseObject;
  o.requestReceivedTimestamp = microTime(ev.requestReceivedTimestamp);
  o.stageTimestamp = microTime(ev.stageTimestamp);
  if (ev.annotations && Object.keys(ev.annotations).length) o.annotations = sortedKeys(ev.annotations);
  const json = JSON.stringify(o);
  return (goUnsafe.test(json) ? json.replace(goUnsafeAll, (c) => goEscapes[c]) : json) + '\n';
}

function objectRefJson(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) if (r[k]) out[k] = r[k];
  return out;
}

function statusJson(s: ResponseStatus): Record<string, unknown> {
  const out: Record<string, unknown> = { metadata: {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details && Object.keys(s.details as object).length) out.details = s.details;
  if (s.code) out.code = s.code;
  return out;
}

function sortedKeys<T>(m: Record<string, T>): Record<string, T> {
  const keys = Object.keys(m);
  if (keys.every((k, i) => i === 0 || keys[i - 1] < k)) return m;
  return Object.fromEntries(keys.sort().map((k) => [k, m[k]]));
}

/** utilnet.SourceIPs: X-Forwarded-For's IPs, X-Real-Ip unless listed, then the peer unless it is the last one. */
export function sourceIPs(headers: Record<string, string | string[] | undefined>, remoteAddress: string | undefined): string[] {
  const ips: string[] = [];
  const header = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  for (const part of (header('x-forwarded-for') ?? '').split(',')) {
    const ip = normalizeIP(part.trim());
    if (ip) ips.push(ip);
  }
  const real = normalizeIP((header('x-real-ip') ?? '').trim());
  if (real && !ips.includes(real)) ips.push(real);
  const peer = normalizeIP(remoteAddress ?? '');
  if (peer && ips[ips.length - 1] !== peer) ips.push(peer);
  return ips;
}

/** An IP as Go's net.IP.String() prints it (IPv4-mapped IPv6 as IPv4), or '' when it is none. */
function normalizeIP(s: string): string {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return s.split('.').every((o) => Number(o) <= 255) ? s.split('.').map(Number).join('.') : '';
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(s);
  if (mapped) return normalizeIP(mapped[1]);
  if (!s.includes(':') || !/^[0-9a-f:.]+$/i.test(s)) return '';
  try {
    return new URL(`http://[${s}]/`).hostname.slice(1, -1);
  } catch {
    return '';
  }
}

/** A copy without metadata.managedFields: of the object, of a list's items and of a Table's row objects. */
export function withoutManagedFields(obj: unknown): unknown {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  const o = obj as Record<string, unknown>;
  let out = o;
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _drop, ...rest } = meta;
    out = { ...out, metadata: rest };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(withoutManagedFields) };
  if (o.kind === 'Table' && Array.isArray(o.rows)) {
    out = { ...out, rows: o.rows.map((r) => (r && typeof r === 'object' && 'object' in r ? { ...r, object: withoutManagedFields((r as { object: unknown }).object) } : r)) };
  }
  return out;
}

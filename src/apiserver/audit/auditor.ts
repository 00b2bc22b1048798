// Auditing of API requests (kube-apiserver's WithAudit filter): the policy gives each request its level; the
// request's events (RequestReceived, ResponseStarted for long-running requests, ResponseComplete or Panic) go to
// the log writer as JSON lines. The server calls in at authentication, authorization, send and error; the rest
// follows the raw response (headers written, connection closed), so watches and proxied requests are covered too.
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '../context.js';
import type { RequestAttributes } from '../../api/rbac/rules.js';
import { YAML } from '../../machinery/yaml.js';
import { auditUser, eventLine, nowMicros, sourceIPs, withoutManagedFields, type AuditEvent, type ResponseStatus } from './event.js';
import { levelAtLeast, type PolicyEvaluator, type RequestAuditConfig } from './policy.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the user that authenticated, when it impersonates k1sUser */
    k1sImpersonator?: UserInfo;
    /** this request's audit event while it is audited */
    k1sAudit?: AuditedRequest;
  }
}

export interface AuditSink {
  write(line: string): void;
}

const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const MAX_USER_AGENT = 1024;

/** The request's audit ID: the client's Audit-ID header, else a new UUID (kube's WithAuditInit). */
export function auditIdOf(req: FastifyRequest): string {
  const given = req.headers['audit-id'];
  return (Array.isArray(given) ? given[0] : given) || randomUUID();
}

export class Auditor {
  constructor(
    private readonly policy: PolicyEvaluator,
    readonly sink: AuditSink,
  ) {}

  /**
   * Starts the request's event after authentication (user undefined: a failed login, audited as kube does with
   * one ResponseStarted event); undefined when the policy says None.
   */
  begin(req: FastifyRequest, reply: FastifyReply, auditID: string, attrs: RequestAttributes, user: UserInfo | undefined): AuditedRequest | undefined {
    const authenticated = req.k1sImpersonator ?? user;
    const config = this.policy.evaluate(authenticated, attrs);
    if (config.level === 'None') return undefined;
    const a = new AuditedRequest(this.sink, config, req, reply, auditID, attrs, authenticated);
    req.k1sAudit = a;
    a.received(user === undefined);
    return a;
  }
}

export class AuditedRequest {
  readonly event: AuditEvent;
  private decision?: { allowed: boolean; reason: string };
  private panic?: string;
  private payload?: { code: number; contentType: string; body: Buffer | string };
  private finished = false;
  private failedLogin = false;
  private requestObject?: string;

  constructor(
    private readonly sink: AuditSink,
    private readonly config: RequestAuditConfig,
    private readonly req: FastifyRequest,
    reply: FastifyReply,
    auditID: string,
    private readonly attrs: RequestAttributes,
    user: UserInfo | undefined,
  ) {
    const t = nowMicros();
    const ua = req.headers['user-agent'];
    this.event = {
      level: config.level,
      auditID,
      stage: 'RequestReceived',
      requestURI: req.url,
      verb: attrs.verb,
      user: auditUser(user),
      sourceIPs: sourceIPs(req.headers, req.raw.socket?.remoteAddress),
      userAgent: ua && ua.length > MAX_USER_AGENT ? `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED` : ua,
      objectRef: attrs.resourceRequest
        ? { resource: attrs.resource, namespace: attrs.namespace, name: attrs.name, apiGroup: attrs.apiGroup, apiVersion: attrs.apiVersion, subresource: attrs.subresource }
        : undefined,
      requestReceivedTimestamp: t,
      stageTimestamp: t,
    };
    const res = reply.raw;
    const longRunning = longRunningVerbs.has(attrs.verb) || (attrs.resourceRequest && longRunningSubresources.has(attrs.subresource));
    if (longRunning) {
      // ResponseStarted when the headers go out
      const writeHead = res.writeHead;
      res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
        res.writeHead = writeHead;
        this.started(Number(args[0]));
        return writeHead.apply(res, args);
      }) as typeof res.writeHead;
    }
    res.once('close', () => this.complete(res.headersSent, res.statusCode, longRunning));
  }

  /** the RequestReceived event; a failed login's only event is ResponseStarted, with its 401 */
  received(failedLogin: boolean): void {
    this.failedLogin = failedLogin;
    if (!failedLogin) this.emit();
  }

  authorized(allowed: boolean, reason: string): void {
    this.decision = { allowed, reason };
  }

  /** The response body fastify sends (its status, an object at RequestResponse). */
  sent(code: number, contentType: string | undefined, body: unknown): void {
    if (typeof body === 'string' || Buffer.isBuffer(body)) this.payload = { code, contentType: contentType ?? '', body };
  }

  panicked(err: unknown): void {
    this.panic = err instanceof Error ? err.message : String(err);
  }

  private started(code: number): void {
    if (this.finished || this.failedLogin) return;
    this.event.stage = 'ResponseStarted';
    this.event.responseStatus = { code };
    this.emit();
  }

  private complete(headersSent: boolean, code: number, longRunning: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (this.failedLogin) {
      this.event.stage = 'ResponseStarted';
      this.event.responseStatus = this.status(code);
      this.emit();
      return;
    }
    if (this.panic !== undefined) {
      this.event.stage = 'Panic';
      this.event.responseStatus = { code: 500, status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${this.panic}` };
      this.fillObjects();
      this.emit();
      return;
    }
    if (!headersSent) {
      // the client went away before any response: kube's "Connection closed early"
      this.event.responseStatus = { code: 200, status: 'Success', message: 'Connection closed early' };
      if (longRunning) {
        this.event.stage = 'ResponseStarted';
        this.emit();
      }
    } else this.event.responseStatus = this.status(code);
    this.fillObjects();
    this.event.stage = 'ResponseComplete';
    this.emit();
  }

  /** the Status of an error response (kube copies a Status response into the event), else just the code */
  private status(code: number): ResponseStatus {
    const p = this.payload;
    if (p && (code >= 300 || this.attrs.verb.startsWith('delete')) && p.contentType.startsWith('application/json')) {
      const s = parse(p) as { kind?: string; status?: string; message?: string; reason?: string; details?: unknown; code?: number } | undefined;
      if (s?.kind === 'Status') return { status: s.status, message: s.message, reason: s.reason, details: s.details, code };
    }
    return { code };
  }

  /**
   * The decoded request body (kube's LogRequestObject): it completes objectRef (a create's name, an update's uid
   * and resourceVersion) at every level, and is kept as the request object from level Request, as it came.
   */
  readonly decoded = (obj: unknown): void => {
    if (this.requestObject !== undefined || !obj || typeof obj !== 'object') return;
    const o = obj as { kind?: unknown; metadata?: Record<string, unknown> };
    const meta = o.metadata;
    if (meta && typeof meta === 'object') {
      const ref = (this.event.objectRef ??= {});
      for (const k of ['namespace', 'name', 'uid', 'resourceVersion'] as const) if (!ref[k] && typeof meta[k] === 'string') ref[k] = meta[k] as string;
    }
    if (!levelAtLeast(this.config.level, 'Request')) return;
    // DeleteOptions are encoded with their kind, whether or not the client sent it
    const body = this.attrs.verb.startsWith('delete') && o.kind === undefined ? { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...o } : o;
    this.requestObject = JSON.stringify(body); // a snapshot: the handler changes the object as it goes
  };

  /** request object (a patch's as sent) and response object by level */
  private fillObjects(): void {
    if (this.attrs.resourceRequest && levelAtLeast(this.config.level, 'Request')) {
      let obj: unknown;
      if (this.requestObject !== undefined) obj = JSON.parse(this.requestObject);
      else if (this.attrs.verb === 'patch' && Buffer.isBuffer(this.req.body) && this.req.body.length) {
        obj = parse({ contentType: this.req.headers['content-type'] ?? '', body: this.req.body });
      }
      if (obj !== undefined) this.event.requestObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj;
    }
    if (levelAtLeast(this.config.level, 'RequestResponse')) this.fillResponse();
  }

  private fillResponse(): void {
    if (!this.attrs.resourceRequest || !this.payload) return;
    const obj = parse(this.payload);
    if (obj !== undefined) this.event.responseObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj;
  }

  private emit(): void {
    if (this.config.omitStages.has(this.event.stage)) return;
    const ev = this.event;
    ev.stageTimestamp = ev.stage === 'RequestReceived' ? ev.requestReceivedTimestamp : nowMicros();
    // RequestReceived comes before impersonation and authorization: their parts join the later stages
    if (ev.stage !== 'RequestReceived') {
      if (this.req.k1sImpersonator && this.req.k1sUser) ev.impersonatedUser = auditUser(this.req.k1sUser);
      if (this.decision) {
        ev.annotations = {
          ...ev.annotations,
          'authorization.k8s.io/decision': this.decision.allowed ? 'allow' : 'forbid',
          'authorization.k8s.io/reason': this.decision.reason,
        };
      }
    }
    this.sink.write(eventLine(ev));
  }
}

/** a JSON or YAML body as a value; anything else (text, protobuf, a broken body) is left out */
function parse(p: { contentType: string; body: Buffer | string }): unknown {
  const text = typeof p.body === 'string' ? p.body : p.body.toString('utf8');
  try {
    if (p.contentType.includes('yaml')) return YAML.parse(text);
    if (p.contentType.includes('json') || p.contentType === '') return JSON.parse(text);
  } catch {
    return undefined;
  }
  return undefined;
}

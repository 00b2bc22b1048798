// The in-process client: requests go through the same handlers (decode, admission, validation, storage) as
// HTTPS requests, only without the socket.
import { YAML } from '../machinery/yaml.js';
import type { KObject } from '../api/types.js';
import type { DeleteOptions, ListParams, PatchType, UserInfo, WatchParams } from '../apiserver/context.js';
import { handleResource, resolveStore, type ApiRequest } from '../apiserver/handlers/rest.js';
import type { Registry } from '../apiserver/registry/registry.js';
import { parseRequestInfo, resourceRequestInfo } from '../apiserver/handlers/request-info.js';
import { watchObjects } from '../apiserver/registry/list.js';
import { authorizeRequest } from '../apiserver/auth/request-attributes.js';
import type { Client, ClientWatchEvent, ObjectList, ResourceClient, WriteOptions } from './types.js';
import { recordRequest } from '../apiserver/request-metrics.js';
import { StatusError } from '../machinery/errors.js';
import type { CounterCell } from '../metrics/family.js';

/** rest_client_requests_total's host for requests that never leave the process */
export const IN_PROCESS_HOST = 'in-process';

const patchTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export const systemUser: UserInfo = { name: 'system:k1s', groups: ['system:masters', 'system:authenticated'] };

export class LocalClient implements Client {
  constructor(
    private readonly registry: Registry,
    private readonly user: UserInfo = systemUser,
    private readonly userAgent = 'k1s',
    /** requests are put to the server's authorizer, as over HTTPS (the system user's are not: it may do anything) */
    private readonly authorized = false,
  ) {}

  /** The same client, identified by another user agent (a component's: it names the field manager of its writes). */
  withUserAgent(userAgent: string): LocalClient {
    return new LocalClient(this.registry, this.user, userAgent, this.authorized);
  }

  /** A client acting as `user` (a kubelet's node identity): the authorizer decides its requests, admission sees it. */
  asUser(user: UserInfo): LocalClient {
    return new LocalClient(this.registry, user, this.userAgent, true);
  }

  /** throws the 403 of a request the server's authorizer denies */
  private authorize(method: string, info: ApiRequest['info'], query: URLSearchParams): void {
    const authorizer = this.authorized ? this.registry.authorizer : undefined;
    const denied = authorizer && authorizeRequest(authorizer, this.user, method, info, query);
    if (denied) throw denied;
  }

  resource(apiVersion: string, plural: string): ResourceClient {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const path = (ns: string, name = '', sub = '') =>
      `${base}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}`;
    type Target = { ns: string; name?: string; sub?: string };
    /** `body` text, or `value` (an object the server decodes as a copy); `o` of a write */
    type Payload = { body?: string; contentType?: string; value?: unknown; o?: WriteOptions };
    const call = async (method: string, t: Target, query: Record<string, string | undefined>, { body, contentType, value, o }: Payload = {}) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, v);
      // built from the parts: what parsing the path would give, without the parse
      const info = resourceRequestInfo(method, path(t.ns, t.name, t.sub), apiVersion, plural, t.ns, t.name ?? '', t.sub ?? '');
      const metrics = this.registry.metrics;
      if (!metrics) return serve(method, info, q, { body, contentType, value, o });
      // counted as the API server counts any request (apiserver_request_total) and as client-go counts its own
      const t0 = performance.now();
      let code = 500;
      try {
        const res = await serve(method, info, q, { body, contentType, value, o }, (c) => (code = c));
        return res;
      } catch (e) {
        if (e instanceof StatusError) code = e.code;
        throw e;
      } finally {
        const s = (performance.now() - t0) / 1000;
        recordRequest(metrics.apiserver, method, info, q, contentType, code, s);
        metrics.restClient.record(IN_PROCESS_HOST, method, code, s);
      }
    };
    const serve = async (method: string, info: ApiRequest['info'], q: URLSearchParams, { body, contentType, value, o }: Payload, onCode?: (code: number) => void) => {
      this.authorize(method, info, q);
      const req: ApiRequest = {
        info,
        query: q,
        headers: { 'user-agent': this.userAgent, 'content-type': contentType ?? 'application/json' },
        body,
        value,
        user: this.user,
        serializesResponse: o?.readOnlyResult,
      };
      const res = await handleResource(this.registry, req);
      onCode?.(res.code);
      return res.body;
    };
    const writeQuery = (o?: WriteOptions) => ({
      dryRun: o?.dryRun ? 'All' : undefined,
      fieldManager: o?.fieldManager,
      force: o?.force === undefined ? undefined : String(o.force),
      // bodies come from JSON.stringify of our own objects: no duplicate fields, and k1s' components send only
      // fields they know, so the unknown-field walk (Warn by default) is skipped; type errors are still fatal
      fieldValidation: 'Ignore',
    });
    const listQuery = (p?: ListParams): Record<string, string | undefined> => ({
      labelSelector: p?.labelSelector,
      fieldSelector: p?.fieldSelector,
      limit: p?.limit === undefined ? undefined : String(p.limit),
      continue: p?.continue,
      resourceVersion: p?.resourceVersion,
      resourceVersionMatch: p?.resourceVersionMatch,
    });
    return {
      get: async (ns, name, o) => (await call('GET', { ns, name, sub: o?.subresource }, {})) as KObject,
      list: async (ns, params) => (await call('GET', { ns }, listQuery(params))) as ObjectList,
      // with a subresource, `obj` is the body posted to <name>/<subresource> (pods/binding, pods/eviction)
      // the object itself, not its JSON (as update): the server decodes it as a copy with JSON's semantics
      create: async (ns, obj, o) =>
        (await call('POST', o?.subresource ? { ns, name: obj.metadata.name, sub: o.subresource } : { ns }, writeQuery(o), { value: obj, o })) as KObject,
      // the object itself, not its JSON: the server decodes it as a copy (a kubelet's status update is a whole pod)
      update: async (ns, obj, o) => (await call('PUT', { ns, name: obj.metadata.name, sub: o?.subresource }, writeQuery(o), { value: obj, o })) as KObject,
      patch: async (ns, name, type, patch, o) =>
        (await call(
          'PATCH',
          { ns, name, sub: o?.subresource },
          { ...writeQuery(o), fieldManager: o?.fieldManager ?? (type === 'apply' ? this.userAgent : undefined) },
          { body: type === 'apply' ? YAML.stringify(patch) : JSON.stringify(patch), contentType: patchTypes[type], o },
        )) as KObject,
      delete: async (ns, name, opts?: DeleteOptions) => {
        const res = (await call('DELETE', { ns, name }, {}, { body: JSON.stringify(opts ?? {}) })) as KObject;
        return res.kind === 'Status' ? undefined : res.metadata?.deletionTimestamp ? res : undefined;
      },
      deleteCollection: async (ns, params, opts) => {
        await call('DELETE', { ns }, listQuery(params), { body: JSON.stringify(opts ?? {}) });
      },
      watch: async (ns, params: WatchParams, onEvent: (ev: ClientWatchEvent) => void) => {
        const info = parseRequestInfo('GET', path(ns), new URLSearchParams({ watch: 'true' }));
        const q = new URLSearchParams({ watch: 'true' });
        if (params.fieldSelector) q.set('fieldSelector', params.fieldSelector);
        if (params.labelSelector) q.set('labelSelector', params.labelSelector);
        this.authorize('GET', info, q);
        const rs = resolveStore(this.registry, { ...info, verb: 'list' });
        const m = this.registry.metrics?.apiserver;
        if (!m) return watchObjects(rs, ns, params, (ev) => onEvent(ev as ClientWatchEvent));
        let sent: CounterCell | undefined;
        return watchObjects(rs, ns, params, (ev) => {
          (sent ??= m.watchEvents.with(info.group, info.version, info.resource)).inc();
          onEvent(ev as ClientWatchEvent);
        });
      },
    };
  }
}

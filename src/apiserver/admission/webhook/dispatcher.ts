// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (k8s.io/apiserver/pkg/admission/plugin/
// webhook): for each request, the configured webhooks that match it are called with an AdmissionReview. Mutating
// ones run one after another in order and patch the object (once more for `reinvocationPolicy: IfNeeded` when a
// later one changed it); validating ones run in parallel. Call failures follow each webhook's failurePolicy.
import type { KObject } from '../../../api/types.js';
import { errors, StatusError, type StatusReason } from '../../../machinery/errors.js';
import { clone, deepEqual, isPlainObject, newUid } from '../../../machinery/object.js';
import { applyJsonPatch } from '../../../machinery/patch/json-patch.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { Registry } from '../../registry/registry.js';
import { validateMeta, validateMetaUpdate } from '../../registry/meta-validation.js';
import { WebhookClients, WebhookCallError } from './client.js';
import { WebhookConfigurations, type ConfiguredWebhook } from './configurations.js';
import { activation, evaluateMatchConditions, isExempt, matchesRules, matchesSelectors } from './matching.js';
import type { AuthzFunction } from '../../../machinery/cel/index.js';
import { buildReview, chooseVersion, parseResponse } from './review.js';
import { resolveServiceEndpoint } from './service-endpoint.js';
import { convertAttributes, convertObject, equivalentStores } from './equivalent.js';
import type { ResourceStore } from '../../registry/store.js';
import type { Operation, RequestAttributes, Webhook, WebhookResponse } from './types.js';

interface Matched {
  hook: ConfiguredWebhook;
  /** the request as this webhook sees it (converted when it matched an equivalent version) */
  attrs: RequestAttributes;
  /** the equivalent version's store, when converted */
  via?: ResourceStore;
}

const OPTIONS_KIND: Record<Operation, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: '' };

/** The AdmissionRequest fields of one admission call. */
export function requestAttributes(a: AdmissionAttributes): RequestAttributes {
  const d = a.store.def;
  const op = a.operation;
  const gvk = { group: d.group, version: d.version, kind: a.connect?.kind ?? d.kind };
  const gvr = { group: d.group, version: d.version, resource: d.plural };
  return {
    uid: newUid(),
    operation: op,
    kind: gvk,
    resource: gvr,
    subResource: a.subresource ?? '',
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: a.subresource ?? '',
    name: a.connect?.name ?? a.object?.metadata?.name ?? a.old?.metadata?.name ?? '',
    namespace: a.namespace,
    namespaced: d.namespaced,
    // a DELETE carries the object being deleted as oldObject only
    object: op === 'DELETE' ? undefined : a.object,
    oldObject: op === 'CREATE' ? undefined : a.old,
    options: OPTIONS_KIND[op] ? { kind: OPTIONS_KIND[op], apiVersion: 'meta.k8s.io/v1', ...(a.ctx.dryRun ? { dryRun: ['All'] } : {}), ...(op !== 'DELETE' && a.ctx.fieldManager ? { fieldManager: a.ctx.fieldManager } : {}) } : undefined,
    dryRun: a.ctx.dryRun,
    userInfo: { username: a.ctx.user.name, uid: a.ctx.user.uid, groups: a.ctx.user.groups, extra: a.ctx.user.extra },
  };
}

/** ToStatusErr: a webhook's denial, with at least a 400 code and kube's "denied the request" text. */
function denial(name: string, r: WebhookResponse): StatusError {
  const s = r.status ?? {};
  const by = `admission webhook "${name}" denied the request`;
  const message = s.message ? `${by}: ${s.message}` : s.reason ? `${by}: ${s.reason}` : `${by} without explanation`;
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  return new StatusError(code, (s.reason ?? '') as StatusReason, message, isPlainObject(s.details) ? (s.details as never) : undefined);
}

export class WebhookDispatcher {
  readonly configurations: WebhookConfigurations;
  private readonly clients = new WebhookClients();
  /** what `authorizer` in match conditions asks (the server's authorizer; everything allowed until one is set) */
  authorize: AuthzFunction = () => ({ decision: 'allow', reason: '' });

  constructor(
    private readonly registry: Registry,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.configurations = new WebhookConfigurations(registry);
    this.configurations.onChange = () => this.clients.clear();
  }

  start(): Promise<void> {
    return this.configurations.start();
  }

  stop(): void {
    this.configurations.stop();
    this.clients.clear();
  }

  /** The webhooks of `kind` that match the request (rules, selectors, match conditions), or a matching error. */
  private async matching(kind: 'mutating' | 'validating', request: RequestAttributes, a: AdmissionAttributes): Promise<Matched[]> {
    const hooks = this.configurations.webhooks(kind);
    if (!hooks.length || isExempt(request)) return [];
    const out: Matched[] = [];
    let nsLabels: Record<string, string> | undefined | null = null;
    for (const h of hooks) {
      let attrs = request;
      let via: ResourceStore | undefined;
      if (!matchesRules(h.webhook.rules ?? [], attrs)) {
        // Equivalent (the default): another served version of the same resource may be what the rules name
        if (h.webhook.matchPolicy === 'Exact') continue;
        via = equivalentStores(this.registry, a.store).find((s) => matchesRules(h.webhook.rules ?? [], { ...attrs, resource: { group: s.def.group, version: s.def.version, resource: s.def.plural } }));
        if (!via) continue;
        attrs = convertAttributes(request, a.store, via);
      }
      if (nsLabels === null) nsLabels = await this.namespaceLabels(a);
      if (!matchesSelectors(h.webhook, attrs, nsLabels)) continue;
      if (h.webhook.matchConditions?.length) {
        const m = evaluateMatchConditions(h.webhook, () => activation(attrs, this.authorize));
        if ('error' in m) {
          if (h.webhook.failurePolicy === 'Ignore') continue;
          // kube fails closed with a Forbidden naming the resource
          const gr = a.store.gr;
          const what = `${gr.group ? `${gr.resource}.${gr.group}` : gr.resource}${attrs.name ? ` "${attrs.name}"` : ''}`;
          throw errors.forbidden(gr, attrs.name, `${what} is forbidden: ${m.error}`);
        }
        if (!m.matched) continue;
      }
      out.push({ hook: h, attrs, via });
    }
    return out;
  }

  private async namespaceLabels(a: AdmissionAttributes): Promise<Record<string, string> | undefined> {
    if (!a.namespace) return undefined;
    try {
      const ns = await this.registry.mustLookup('', 'v1', 'namespaces').get('', a.namespace);
      return ns.metadata.labels ?? {};
    } catch {
      return undefined;
    }
  }

  /** Calls one webhook; undefined when its failure is ignored. */
  private async call(h: Webhook, attrs: RequestAttributes, mutating: boolean): Promise<WebhookResponse | undefined> {
    if (attrs.dryRun && h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') {
      throw errors.badRequest(`admission webhook "${h.name}" does not support dry run`);
    }
    const t0 = performance.now();
    // apiserver_admission_webhook_admission_duration_seconds: rejected when it denies or fails
    const observe = (rejected: boolean) => this.registry.metrics?.apiserver.admissionWebhook
      .with(h.name, mutating ? 'admit' : 'validate', attrs.operation, String(rejected)).observe((performance.now() - t0) / 1000);
    try {
      const version = chooseVersion(h);
      const review = buildReview(version, attrs);
      const body = await this.clients.post(h, review, {
        timeoutMs: (h.timeoutSeconds ?? 10) * 1000,
        resolveService: (ref) => resolveServiceEndpoint(this.registry, ref),
      });
      const r = parseResponse(version, body, attrs.uid, mutating);
      observe(!r.allowed);
      return r;
    } catch (e) {
      observe(true);
      if (e instanceof StatusError) throw e;
      const reason = e instanceof WebhookCallError ? e.message : `received invalid webhook response: ${(e as Error).message}`;
      const msg = `failed calling webhook "${h.name}": ${reason}`;
      if (h.failurePolicy === 'Ignore') {
        this.log(`k1s: ${msg} (failurePolicy Ignore)`);
        return undefined;
      }
      throw errors.internal(msg);
    }
  }

  /** Mutating webhooks in order, each seeing the previous one's result; `a.object` is patched in place. */
  async mutate(a: AdmissionAttributes): Promise<boolean> {
    if (a.operation === 'DELETE' || !this.configurations.webhooks('mutating').length) return false;
    const attrs = requestAttributes(a);
    const hooks = await this.matching('mutating', attrs, a);
    if (!hooks.length) return false;
    const before = clone(a.object);
    let lastChange = -1;
    const ran: number[] = [];
    const runOne = async (i: number) => {
      const { hook, attrs: seen, via } = hooks[i]!;
      const h = hook.webhook;
      // each webhook sees the object as the previous ones left it, in its own version
      const current = via ? convertObject(a.object, a.store, via)! : a.object;
      const r = await this.call(h, { ...seen, uid: newUid(), object: current }, true);
      if (!r) return;
      if (!r.allowed) throw denial(h.name, r);
      if (r.warnings?.length) a.ctx.warnings.push(...r.warnings);
      if (r.patch?.length) {
        let patched: unknown;
        try {
          patched = applyJsonPatch(current, r.patch);
        } catch (e) {
          throw errors.internal((e as Error).message);
        }
        if (!isPlainObject(patched)) throw errors.internal(`webhook "${h.name}" patched the object into a ${typeof patched}`);
        if (via) patched = convertObject(patched as KObject, via, a.store);
        if (!deepEqual(patched, a.object)) {
          replaceContents(a.object, patched as KObject);
          lastChange = i;
        }
      }
    };
    for (let i = 0; i < hooks.length; i++) {
      await runOne(i);
      ran.push(i);
    }
    // reinvocation: webhooks asking for it run once more if a later webhook changed the object
    if (lastChange >= 0) {
      for (const i of ran) {
        if (hooks[i]!.hook.webhook.reinvocationPolicy === 'IfNeeded' && i < lastChange) await runOne(i);
      }
    }
    return !deepEqual(before, a.object);
  }

  /** Validating webhooks, in parallel; the first denial or failure (in webhook order) is the answer. */
  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.configurations.webhooks('validating').length) return;
    const attrs = requestAttributes(a);
    const hooks = await this.matching('validating', attrs, a);
    if (!hooks.length) return;
    const results = await Promise.allSettled(hooks.map((h) => this.call(h.hook.webhook, { ...h.attrs, uid: newUid() }, false)));
    for (let i = 0; i < results.length; i++) {
      const r = results[i]!;
      if (r.status === 'rejected') throw r.reason;
      if (r.value?.warnings?.length) a.ctx.warnings.push(...r.value.warnings);
    }
    for (let i = 0; i < results.length; i++) {
      const v = (results[i] as PromiseFulfilledResult<WebhookResponse | undefined>).value;
      if (v && !v.allowed) throw denial(hooks[i]!.hook.webhook.name, v);
    }
  }
}

/** Replaces an object's contents, keeping the object identity the store holds on to. */
function replaceContents(target: KObject, source: KObject): void {
  const keep = { uid: target.metadata?.uid, creationTimestamp: target.metadata?.creationTimestamp, namespace: target.metadata?.namespace, resourceVersion: target.metadata?.resourceVersion };
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, source);
  // system fields are the server's, whatever a webhook wrote (kube sets them after mutating admission)
  const meta = (target.metadata ??= {});
  for (const [k, v] of Object.entries(keep)) {
    if (v === undefined) delete (meta as Record<string, unknown>)[k];
    else (meta as Record<string, unknown>)[k] = v;
  }
}

/**
 * The two plugins for the admission chain. The mutating one re-runs defaulting and validation when a webhook
 * changed the object: k1s validates before admission, kube validates after the mutating plugins.
 */
export function webhookAdmission(dispatcher: WebhookDispatcher): { mutating: AdmissionPlugin; validating: AdmissionPlugin } {
  const mutating: AdmissionPlugin = {
    name: 'MutatingAdmissionWebhook',
    admit: async (a) => {
      if (!(await dispatcher.mutate(a))) return;
      const d = a.store.def;
      d.strategy.defaults?.(a.object);
      if (a.object.apiVersion !== a.store.apiVersion || a.object.kind !== d.kind) {
        throw errors.internal(`mutating webhooks changed the object's type to ${a.object.apiVersion}, Kind=${a.object.kind}`);
      }
      const st = d.strategy;
      const errs = a.operation === 'CREATE'
        ? [...validateMeta(a.object, d), ...(st.validate?.(a.object) ?? [])]
        : a.subresource === 'status'
          ? [...validateMetaUpdate(a.object, a.old!, d), ...(st.validateStatusUpdate?.(a.object, a.old!) ?? [])]
          : [...validateMeta(a.object, d), ...validateMetaUpdate(a.object, a.old!, d), ...(st.validate?.(a.object) ?? []), ...(st.validateUpdate?.(a.object, a.old!) ?? [])];
      if (errs.length) throw a.store.invalid(a.object.metadata.name ?? '', errs);
    },
  };
  const validating: AdmissionPlugin = { name: 'ValidatingAdmissionWebhook', admit: (a) => dispatcher.validate(a) };
  return { mutating, validating };
}

// The ValidatingAdmissionPolicy admission plugin (validating/dispatcher.go): every stored policy whose
// matchConstraints match the request is evaluated for each of its bindings that match, once per param the binding
// selects. Deny actions fail the request with the first denial, Warn actions add warnings; Audit has no audit log
// to go to in k1s. Policies, bindings and params are read from watch-fed caches.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration/policy-validation.js';
import type { KObject } from '../../../api/types.js';
import type { AuthzFunction } from '../../../machinery/cel/index.js';
import { StatusError, type StatusReason } from '../../../machinery/errors.js';
import { fromLabelSelector } from '../../../machinery/labels.js';
import { AdmissionCache } from '../cache.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceStore } from '../../registry/store.js';
import { requestAttributes } from '../webhook/dispatcher.js';
import { activation, isExempt } from '../webhook/matching.js';
import { PolicyPrograms } from './compiled.js';
import { PolicyTypeChecks } from './type-check-status.js';
import { convertAttributes, equivalentStores } from '../webhook/equivalent.js';
import { evaluatePolicy, type Decision } from './evaluate.js';
import { matchResources, mayMatch } from './match-resources.js';

const GROUP = 'admissionregistration.k8s.io';
const CODES: Record<string, number> = { Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

interface Denied extends Decision {
  policy: string;
  binding?: string;
}

export class ValidatingPolicies {
  private readonly policies: AdmissionCache;
  private readonly bindings: AdmissionCache;
  private readonly params = new Map<ResourceStore, AdmissionCache>();
  private readonly programs = new PolicyPrograms();
  private readonly typeChecks: PolicyTypeChecks;
  private byPolicyVersion = -1;
  private bindingsByPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
  /** what `authorizer` asks (the server's authorizer; everything allowed until one is set) */
  authorize: AuthzFunction = () => ({ decision: 'allow', reason: '' });

  constructor(private readonly registry: Registry) {
    this.policies = new AdmissionCache(() => registry.mustLookup(GROUP, 'v1', 'validatingadmissionpolicies'));
    this.bindings = new AdmissionCache(() => registry.mustLookup(GROUP, 'v1', 'validatingadmissionpolicybindings'));
    this.typeChecks = new PolicyTypeChecks(registry, () => [...(this.policies.inNamespace('')?.values() ?? [])] as ValidatingAdmissionPolicy[]);
  }

  async start(): Promise<void> {
    this.policies.onChange = () => this.typeChecks.schedule();
    await Promise.all([this.policies.start(), this.bindings.start()]);
  }

  stop(): void {
    this.typeChecks.stop();
    this.policies.stop();
    this.bindings.stop();
    for (const c of this.params.values()) c.stop();
  }

  private bindingsOf(policy: string): ValidatingAdmissionPolicyBinding[] {
    if (this.byPolicyVersion !== this.bindings.version) {
      const m = new Map<string, ValidatingAdmissionPolicyBinding[]>();
      for (const b of [...(this.bindings.inNamespace('')?.values() ?? [])].sort(byName) as ValidatingAdmissionPolicyBinding[]) {
        const p = b.spec?.policyName ?? '';
        m.set(p, [...(m.get(p) ?? []), b]);
      }
      this.bindingsByPolicy = m;
      this.byPolicyVersion = this.bindings.version;
    }
    return this.bindingsByPolicy.get(policy) ?? [];
  }

  /** The params a binding selects: [undefined] without paramKind or paramRef; [] when none are found. */
  private async collectParams(p: ValidatingAdmissionPolicy, b: ValidatingAdmissionPolicyBinding, namespace: string): Promise<unknown[]> {
    const kind = p.spec?.paramKind;
    const ref = b.spec?.paramRef;
    if (!kind || !ref) return [undefined];
    const store = this.registry.forKind(kind.apiVersion ?? '', kind.kind ?? '');
    if (!store) throw new Error(`paramKind kind \`${kind.apiVersion ?? ''}, Kind=${kind.kind ?? ''}\` not known`);
    let cache = this.params.get(store);
    if (!cache) this.params.set(store, (cache = new AdmissionCache(() => store)));
    await cache.start();
    let ns = '';
    if (store.def.namespaced) {
      ns = ref.namespace || namespace;
      if (!ns) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (ref.namespace) throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    const objects = cache.inNamespace(ns) ?? new Map<string, KObject>();
    let found: KObject[];
    if (ref.name) found = objects.has(ref.name) ? [objects.get(ref.name)!] : [];
    else {
      const sel = fromLabelSelector(ref.selector ?? {});
      found = [...objects.values()].filter((o) => sel.matches(o.metadata.labels ?? {})).sort(byName);
    }
    if (!found.length && ref.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
    return found;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    const stored = this.policies.inNamespace('');
    if (!stored?.size) {
      if (!stored) await this.policies.start();
      if (!this.policies.inNamespace('')?.size) return;
    }
    const request = requestAttributes(a);
    if (isExempt(request)) return;
    const policies = [...this.policies.inNamespace('')!.values()].sort(byName) as ValidatingAdmissionPolicy[];
    this.programs.retain(new Set(policies.map((p) => p.metadata.name ?? '')));
    let ns: KObject | undefined | null = null;
    const namespaceObject = async () => {
      if (ns === null) ns = await this.namespace(a);
      return ns;
    };
    const denied: Denied[] = [];
    const bases = new Map<ResourceStore | undefined, Record<string, unknown>>();
    for (const p of policies) {
      const constraints = p.spec?.matchConstraints;
      let attrs = request;
      let via: ResourceStore | undefined;
      if (!mayMatch(constraints, attrs)) {
        // matchPolicy Equivalent: the request converted to another served version the rules name
        if (constraints?.matchPolicy === 'Exact') continue;
        via = equivalentStores(this.registry, a.store).find((s) => mayMatch(constraints, { ...request, resource: { group: s.def.group, version: s.def.version, resource: s.def.plural } }));
        if (!via) continue;
        attrs = convertAttributes(request, a.store, via);
      }
      const nsObj = await namespaceObject();
      const labels = nsObj?.metadata?.labels ?? (nsObj ? {} : undefined);
      if (!matchResources(constraints, attrs, labels)) continue;
      const fail = (p.spec?.failurePolicy ?? 'Fail') !== 'Ignore';
      for (const b of this.bindingsOf(p.metadata.name ?? '')) {
        if (b.spec?.matchResources && !matchResources(b.spec.matchResources, attrs, labels)) continue;
        let params: unknown[];
        try {
          params = await this.collectParams(p, b, a.namespace);
        } catch (e) {
          if (fail) denied.push({ action: 'deny', message: `failed to configure binding: ${(e as Error).message}`, reason: '', policy: p.metadata.name ?? '', binding: b.metadata.name });
          continue;
        }
        const compiled = this.programs.get(p);
        // a Namespace request has no namespaceObject (kube unsets its namespace)
        const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
        let base = bases.get(via);
        if (!base) bases.set(via, (base = activation(attrs, this.authorize, isNamespace ? undefined : nsObj ?? undefined)));
        const actions = b.spec?.validationActions ?? [];
        for (const param of params) {
          const r = evaluatePolicy(compiled, base, param);
          for (const d of r.decisions) {
            if (d.action !== 'deny') continue;
            if (actions.includes('Deny')) denied.push({ ...d, policy: p.metadata.name ?? '', binding: b.metadata.name });
            if (actions.includes('Warn')) a.ctx.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${p.metadata.name}' with binding '${b.metadata.name}': ${d.message}`);
          }
        }
      }
    }
    if (denied.length) throw this.denial(a, denied);
  }

  private denial(a: AdmissionAttributes, denied: Denied[]): StatusError {
    const first = denied[0]!;
    const message = first.binding !== undefined
      ? `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`
      : `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`;
    const gr = a.store.gr;
    const name = a.object?.metadata?.name ?? a.old?.metadata?.name ?? '';
    const what = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
    const full = name ? `${what} "${name}" is forbidden: ${message}` : `${what} is forbidden: ${message}`;
    const reason = first.reason || 'Invalid';
    return new StatusError(CODES[reason] ?? 500, reason as StatusReason, full, {
      ...(name ? { name } : {}), ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, causes: [{ message }],
    } as never);
  }

  private async namespace(a: AdmissionAttributes): Promise<KObject | undefined> {
    if (!a.namespace) return undefined;
    try {
      return await this.registry.mustLookup('', 'v1', 'namespaces').get('', a.namespace);
    } catch {
      return undefined;
    }
  }
}

const byName = (x: KObject, y: KObject) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1);

export function validatingPolicyAdmission(p: ValidatingPolicies): AdmissionPlugin {
  return { name: 'ValidatingAdmissionPolicy', admit: (a) => p.validate(a) };
}

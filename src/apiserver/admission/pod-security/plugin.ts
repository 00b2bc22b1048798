// The PodSecurity admission plugin (plugin/pkg/admission/security/podsecurity over k8s.io/pod-security-admission):
// pods are held to their namespace's enforce level, and pods and pod templates draw warnings for its warn level;
// namespace labels are validated, and raising a namespace's enforce level warns about its existing pods.
import type { KObject } from '../../../api/types.js';
import { errors } from '../../../machinery/errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import { AdmissionCache } from '../cache.js';
import type { ResourceStore } from '../../registry/store.js';
import { DEFAULT_POD_SECURITY_CONFIG, type PodSecurityConfig } from './config.js';
import { Evaluator, forbiddenDetail, type AggregateResult } from './evaluator.js';
import { aggregateErrors, compareLevels, levelVersionString, policyToEvaluate, sameLevelVersion, type LevelVersion, type Policy } from './levels.js';
import { checkNamespacePods } from './namespace-pods.js';
import { extractTemplate, hasPodTemplate, isSignificantPodUpdate } from './pod-specs.js';
import type { PodMeta, PodSpecLike } from './pod-view.js';

export interface PodSecurityOptions {
  namespaces: () => ResourceStore;
  pods: () => ResourceStore;
  config?: PodSecurityConfig;
}

/** Pod subresources that cannot change what the checks see (any other one is evaluated, to fail safe). */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

export function podSecurityAdmission(opts: PodSecurityOptions): AdmissionPlugin {
  const config = opts.config ?? DEFAULT_POD_SECURITY_CONFIG;
  const evaluator = new Evaluator();
  const namespaceCache = new AdmissionCache(opts.namespaces);
  const exemptNamespaces = new Set(config.exemptions.namespaces);
  const exemptUsers = new Set(config.exemptions.usernames);
  const exemptRuntimeClasses = new Set(config.exemptions.runtimeClasses);

  const namespaceLabels = async (name: string): Promise<Record<string, string> | undefined> => {
    const cached = namespaceCache.inNamespace('');
    if (cached) return cached.get(name)?.metadata.labels;
    const rs = opts.namespaces();
    const kv = await rs.deps.store.get(rs.key('', name));
    return kv ? rs.decode(kv).metadata.labels : undefined;
  };

  /** Enforce (for pods only), then audit, then warn, reusing the evaluation of an identical level and version. */
  const evaluate = (attrs: AdmissionAttributes, policy: Policy, meta: PodMeta, spec: PodSpecLike, enforce: boolean): void => {
    if (spec.runtimeClassName && exemptRuntimeClasses.has(spec.runtimeClassName)) return;
    const results: { lv: LevelVersion; result: AggregateResult }[] = [];
    const resultFor = (lv: LevelVersion) => {
      let hit = results.find((r) => sameLevelVersion(r.lv, lv));
      if (!hit) results.push((hit = { lv, result: evaluator.evaluate(lv, meta, spec) }));
      return hit.result;
    };
    if (enforce) {
      const r = resultFor(policy.enforce);
      if (!r.allowed) {
        const name = attrs.object.metadata.name ?? '';
        const gr = attrs.store.gr;
        throw errors.forbidden(gr, name, `${gr.resource} "${name}" is forbidden: violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(r)}`);
      }
    }
    // Audit: kube adds `pod-security.kubernetes.io/audit-violations` to the request's audit event here; k1s keeps
    // no audit log, so the result is computed (as kube does) and goes nowhere until one exists.
    resultFor(policy.audit);
    const w = resultFor(policy.warn);
    if (!w.allowed) attrs.ctx.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(w)}`);
  };

  const policyOf = async (namespace: string) => policyToEvaluate(await namespaceLabels(namespace), config.defaults).policy;

  const validatePod = async (attrs: AdmissionAttributes): Promise<void> => {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource ?? '')) return;
    if (exemptNamespaces.has(attrs.namespace) || exemptUsers.has(attrs.ctx.user.name)) return;
    const policy = await policyOf(attrs.namespace);
    if (policy.enforce.level === 'privileged' && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const pod = attrs.object as KObject & { spec?: PodSpecLike };
    if (attrs.operation === 'UPDATE' && attrs.old && !isSignificantPodUpdate(pod, attrs.old as typeof pod)) return;
    evaluate(attrs, policy, pod.metadata as PodMeta, pod.spec ?? {}, true);
  };

  const validateController = async (attrs: AdmissionAttributes): Promise<void> => {
    if (attrs.subresource) return;
    if (exemptNamespaces.has(attrs.namespace) || exemptUsers.has(attrs.ctx.user.name)) return;
    const policy = await policyOf(attrs.namespace);
    if (policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const template = extractTemplate(attrs.store.def.group, attrs.store.def.plural, attrs.object);
    if (template) evaluate(attrs, policy, template.meta, template.spec, false);
  };

  const validateNamespace = async (attrs: AdmissionAttributes): Promise<void> => {
    if (attrs.subresource) return;
    const name = attrs.object.metadata.name ?? '';
    const next = policyToEvaluate(attrs.object.metadata.labels, config.defaults);
    const newErr = next.errors.length ? aggregateErrors(next.errors) : undefined;
    if (attrs.operation === 'CREATE') {
      if (newErr) throw errors.invalid('Namespace', '', name, next.errors);
      return;
    }
    const prev = policyToEvaluate(attrs.old?.metadata.labels, config.defaults);
    const oldErr = prev.errors.length ? aggregateErrors(prev.errors) : undefined;
    // labels that were already wrong in the same way do not block other updates
    if (newErr && newErr !== oldErr) throw errors.invalid('Namespace', '', name, next.errors);
    const [now, before] = [next.policy.enforce, prev.policy.enforce];
    // no dry run of the existing pods when enforce is unchanged, privileged, or only relaxed at the same version
    if (sameLevelVersion(now, before) || now.level === 'privileged') return;
    if (sameLevelVersion({ ...now, level: before.level }, before) && compareLevels(now.level, before.level) < 1) return;
    if (exemptNamespaces.has(name)) return;
    const pods = opts.pods();
    const warnings = await checkNamespacePods({
      namespace: name,
      enforce: now,
      evaluator,
      exemptRuntimeClasses,
      list: async () => (await pods.deps.store.list(pods.prefix(name))).kvs.map((kv) => pods.decodeShared(kv)),
    });
    attrs.ctx.warnings.push(...warnings);
  };

  return {
    name: 'PodSecurity',
    admit(attrs) {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      const { group, plural } = attrs.store.def;
      if (group === '' && plural === 'namespaces') return validateNamespace(attrs);
      if (group === '' && plural === 'pods') return validatePod(attrs);
      if (hasPodTemplate(group, plural)) return validateController(attrs);
    },
  };
}

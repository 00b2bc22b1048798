// ValidatePodUpdate and ValidatePodStatusUpdate (pkg/apis/core/validation/validation.go, 1.33). Objects reach
// here defaulted and encoding-normalised (encoding.ts), so JSON equality stands in for Go's
// apiequality.Semantic.DeepEqual.
import { FieldError } from '../../../machinery/errors.js';
import { deepEqual } from '../../../machinery/object.js';
import { nameIsDNSSubdomain } from '../../../machinery/validation.js';
import { MIRROR_POD_ANNOTATION } from './admission.js';
import { podDefinitions, V1 } from './schema.js';
import type { ContainerStatus, Pod, PodSpec, PodStatus, Toleration } from './types.js';
import { bare, inclusiveRangeError, invalidEach, isObj, parseIPSloppy, qualifiedName, validIP } from './validation-util.js';
import { validatePodAnnotations, validatePodMetadataAndSpec } from './validation.js';
import { validateTolerations } from './validation-scheduling.js';

type Obj = Record<string, unknown>;
const MAX_INT32 = 2147483647;
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** ValidatePodSpecificAnnotationUpdates: AppArmor and mirror annotations may not change; then the annotation checks. */
function validateAnnotationUpdates(pod: Pod, old: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const now = pod.metadata.annotations ?? {};
  const before = old.metadata.annotations ?? {};
  const path = 'metadata.annotations';
  for (const [k, v] of Object.entries(before)) {
    if (k in now && now[k] === v) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(FieldError.forbidden(`${path}[${k}]`, 'may not remove or update AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(FieldError.forbidden(`${path}[${k}]`, 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(now)) {
    if (k in before) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(FieldError.forbidden(`${path}[${k}]`, 'may not add AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(FieldError.forbidden(`${path}[${k}]`, 'may not add mirror pod annotation'));
  }
  return [...errs, ...validatePodAnnotations(pod)];
}

function validateContainerUpdates(kind: 'containers' | 'initContainers', spec: PodSpec, oldSpec: PodSpec): { errs: FieldError[]; stop: boolean } {
  const now = spec[kind] ?? [];
  if (now.length !== (oldSpec[kind] ?? []).length) {
    return { errs: [FieldError.forbidden(`spec.${kind}`, 'pod updates may not add or remove containers')], stop: true };
  }
  const errs: FieldError[] = [];
  now.forEach((c, i) => {
    if (!c.image) errs.push(FieldError.required(`spec.${kind}[${i}].image`));
    if (c.image && c.image.trim() !== c.image) errs.push(FieldError.invalid(`spec.${kind}[${i}].image`, c.image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

function validateOnlyAddedTolerations(now: Toleration[] | undefined, before: Toleration[] | undefined): FieldError[] {
  for (const old of before ?? []) {
    const found = (now ?? []).some((t) => deepEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [FieldError.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(now, 'spec.tolerations');
}

const goMap = (m: Record<string, string> | undefined): { toString(): string } =>
  bare(`map[string]string{${Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`);

type Term = { matchExpressions?: unknown[]; matchFields?: unknown[] };
const requiredTerms = (na: unknown): Term[] | undefined => {
  const req = isObj(na) ? na.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  return isObj(req) ? ((req.nodeSelectorTerms ?? []) as Term[]) : undefined;
};

/** validateNodeAffinityMutation: for gated pods, required node selector terms may only gain requirements. */
function validateNodeAffinityMutation(now: unknown, before: unknown): FieldError[] {
  const oldTerms = requiredTerms(before);
  if (!oldTerms) return [];
  const newTerms = requiredTerms(now) ?? [];
  const path = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return [FieldError.invalid(path, bare(JSON.stringify(newTerms)), 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  }
  const prefixKept = (n: unknown[] = [], o: unknown[] = []) => o.length <= n.length && deepEqual(n.slice(0, o.length), o);
  const errs: FieldError[] = [];
  oldTerms.forEach((o, i) => {
    const n = newTerms[i];
    if (!prefixKept(n.matchExpressions, o.matchExpressions) || !prefixKept(n.matchFields, o.matchFields)) {
      errs.push(FieldError.invalid(`${path}[${i}]`, bare(JSON.stringify(n)), 'only additions are allowed (no mutations or deletions)'));
    }
  });
  return errs;
}

/** ValidatePodUpdate (metadata is validated by the registry). */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const errs = [...validatePodMetadataAndSpec(pod), ...validateAnnotationUpdates(pod, old)];
  for (const kind of ['containers', 'initContainers'] as const) {
    const r = validateContainerUpdates(kind, spec, oldSpec);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (ads < 0 || ads > MAX_INT32) return [...errs, FieldError.invalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(0, MAX_INT32))];
    if (oldAds !== undefined && oldAds !== null && oldAds < ads) {
      return [...errs, FieldError.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value')];
    }
  } else if (oldAds !== undefined && oldAds !== null) {
    errs.push(FieldError.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations));
  const oldGates = new Set((oldSpec.schedulingGates ?? []).map((g) => g.name));
  (spec.schedulingGates ?? []).forEach((g, i) => {
    if (!oldGates.has(g.name)) errs.push(FieldError.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${g.name ?? ''}'`));
  });
  if (deepEqual(spec, oldSpec)) return errs;

  // Put the updatable fields back to their old values; whatever still differs is a forbidden change.
  const munged = structuredClone(spec) as PodSpec;
  for (const kind of ['containers', 'initContainers'] as const) {
    (munged[kind] ?? []).forEach((c, i) => {
      const oldImage = oldSpec[kind]?.[i]?.image;
      if (oldImage === undefined) delete c.image;
      else c.image = oldImage;
    });
  }
  const restore = (key: keyof PodSpec) => {
    if (oldSpec[key] === undefined) delete munged[key];
    else (munged as Obj)[key] = structuredClone(oldSpec[key]);
  };
  restore('activeDeadlineSeconds');
  restore('schedulingGates');
  restore('tolerations');
  if ((oldSpec.terminationGracePeriodSeconds ?? 0) < 0 && munged.terminationGracePeriodSeconds === 1) restore('terminationGracePeriodSeconds');
  if (oldSpec.schedulingGates?.length) {
    // Gated pods may gain nodeSelector entries and node affinity requirements.
    if (!deepEqual(munged.nodeSelector ?? {}, oldSpec.nodeSelector ?? {})) {
      const lost = Object.entries(oldSpec.nodeSelector ?? {}).some(([k, v]) => munged.nodeSelector?.[k] !== v);
      if (lost) errs.push(FieldError.invalid('spec.nodeSelector', goMap(munged.nodeSelector), 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
      restore('nodeSelector');
    }
    const oldNA = isObj(oldSpec.affinity) ? oldSpec.affinity.nodeAffinity : undefined;
    const newNA = isObj(munged.affinity) ? munged.affinity.nodeAffinity : undefined;
    if (!deepEqual(oldNA ?? null, newNA ?? null)) {
      errs.push(...validateNodeAffinityMutation(newNA, oldNA));
      if (!isObj(munged.affinity)) munged.affinity = oldNA === undefined ? undefined : { nodeAffinity: structuredClone(oldNA) };
      else if (oldSpec.affinity === undefined && munged.affinity.podAffinity === undefined && munged.affinity.podAntiAffinity === undefined) delete munged.affinity;
      else if (oldNA === undefined) delete munged.affinity.nodeAffinity;
      else munged.affinity.nodeAffinity = structuredClone(oldNA);
      if (munged.affinity === undefined) delete munged.affinity;
    }
  }
  if (!deepEqual(munged, oldSpec)) {
    errs.push(FieldError.forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${podSpecDiff(oldSpec, munged)}`));
  }
  return errs;
}

const GO_NAMES: Record<string, string> = {
  dnsPolicy: 'DNSPolicy', dnsConfig: 'DNSConfig', hostPID: 'HostPID', hostIPC: 'HostIPC', os: 'OS',
  setHostnameAsFQDN: 'SetHostnameAsFQDN', serviceAccount: 'DeprecatedServiceAccount',
};
const goName = (k: string): string => GO_NAMES[k] ?? k[0].toUpperCase() + k.slice(1);

/**
 * A cmp.Diff-shaped rendering of the PodSpec change (`-` old, `+` new, runs of equal fields elided). Kubernetes
 * prints Go structs of the internal API; this prints the changed fields' JSON, which carries the same information.
 */
export function podSpecDiff(before: PodSpec, after: PodSpec): string {
  const order = Object.keys(podDefinitions[V1 + 'PodSpec'].properties ?? {});
  const keys = [...order, ...[...Object.keys(before), ...Object.keys(after)].filter((k) => !order.includes(k))];
  const lines = ['  core.PodSpec{'];
  let same = 0;
  const flush = () => {
    if (same) lines.push(`  \t... // ${same} identical field${same === 1 ? '' : 's'}`);
    same = 0;
  };
  for (const k of keys) {
    const a = (before as Obj)[k];
    const b = (after as Obj)[k];
    if (deepEqual(a ?? null, b ?? null)) {
      if (a !== undefined || b !== undefined) same++;
      continue;
    }
    flush();
    if (a !== undefined) lines.push(`- \t${goName(k)}: ${JSON.stringify(a)},`);
    if (b !== undefined) lines.push(`+ \t${goName(k)}: ${JSON.stringify(b)},`);
  }
  flush();
  lines.push('  }');
  return lines.join('\n') + '\n';
}

function stateTransitions(now: ContainerStatus[] | undefined, before: ContainerStatus[] | undefined, path: string, restartPolicy: string, restartable: Set<string>): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  (before ?? []).forEach((o, i) => {
    const term = o.state?.terminated;
    if (!term) return;
    if ((term.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    if (restartable.has(o.name ?? '')) return;
    for (const n of now ?? []) {
      if (n.name === o.name && !n.state?.terminated) errs.push(FieldError.forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

function validateIPs(list: { ip?: string }[] | undefined, path: string, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const ips = (list ?? []).map((x) => x.ip ?? '');
  ips.forEach((ip, i) => errs.push(...validIP(ip, `${path}[${i}]`)));
  if (ips.length > 1) {
    const families = ips.map(parseIPSloppy);
    const dual = ips.length === 2 && families[0] !== 0 && families[1] !== 0 && families[0] !== families[1];
    const goList = bare(`[]core.${type}{${ips.map((ip) => `core.${type}{IP:${JSON.stringify(ip)}}`).join(', ')}}`);
    if (!dual) errs.push(FieldError.invalid(path, goList, 'may specify no more than one IP for each IP family'));
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      if (seen.has(ip)) errs.push(FieldError.duplicate(`${path}[${i}]`, bare(`core.${type}{IP:${JSON.stringify(ip)}}`)));
      seen.add(ip);
    });
  }
  return errs;
}

/** ValidatePodStatusUpdate (metadata is validated by the registry). */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validateAnnotationUpdates(pod, old);
  const st: PodStatus = pod.status ?? {};
  const oldSt: PodStatus = old.status ?? {};
  const system = new Set(['PodScheduled', 'Ready', 'Initialized']);
  (st.conditions ?? []).forEach((c, i) => {
    // Kubernetes reports these under metadata.conditions[i].Type.
    if (!system.has(c.type ?? '')) errs.push(...qualifiedName(c.type ?? '', `metadata.conditions[${i}].Type`));
  });
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(FieldError.forbidden('status.nodeName', 'may not be changed directly'));
  const nnn = st.nominatedNodeName ?? '';
  if (nnn && nnn !== (oldSt.nominatedNodeName ?? '')) errs.push(...invalidEach('status.nominatedNodeName', nnn, nameIsDNSSubdomain(nnn, false)));
  if ((st.qosClass ?? '') !== (oldSt.qosClass ?? '')) errs.push(FieldError.invalid('status.qosClass', st.qosClass ?? '', 'field is immutable'));
  const rp = old.spec?.restartPolicy ?? '';
  const sidecars = new Set((old.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name ?? ''));
  errs.push(...stateTransitions(st.containerStatuses, oldSt.containerStatuses, 'status.containerStatuses', rp, new Set()));
  errs.push(...stateTransitions(st.initContainerStatuses, oldSt.initContainerStatuses, 'status.initContainerStatuses', rp, sidecars));
  errs.push(...stateTransitions(st.ephemeralContainerStatuses, oldSt.ephemeralContainerStatuses, 'status.ephemeralContainerStatuses', 'Never', new Set()));
  errs.push(...validateIPs(st.podIPs, 'status.podIPs', 'PodIP'));
  if (st.hostIPs?.length) {
    if ((st.hostIP ?? '') !== (st.hostIPs[0].ip ?? '')) errs.push(FieldError.invalid('status.hostIPs[0].ip', st.hostIPs[0].ip ?? '', 'must be equal to `hostIP`'));
    errs.push(...validateIPs(st.hostIPs, 'status.hostIPs', 'HostIP'));
  }
  return errs;
}

// ValidatePodCreate / ValidatePodSpec (pkg/apis/core/validation/validation.go) with 1.33's default feature gates.
// ObjectMeta itself is validated by the generic registry; this covers pod annotations and the spec, in
// Kubernetes' order so aggregated messages match.
import { FieldError } from '../../../machinery/errors.js';
import { nameIsDNSSubdomain, validateLabels } from '../../../machinery/validation.js';
import { MIRROR_POD_ANNOTATION } from './admission.js';
import type { Pod, PodSecurityContext, PodSpec } from './types.js';
import { visitContainers } from './types.js';
import { dns1123Label, inclusiveRangeError, invalidEach, isObj, isValidID, validateLocalDescendingPath, validateSecurityProfiles } from './validation-util.js';
import { validateContainers, validateEphemeralContainers, validateInitContainers, type ContainerContext } from './validation-containers.js';
import { validateResources } from './validation-fields.js';
import { validateAffinity, validateDNSConfig, validateGates, validateHostAliases, validateTolerations, validateTopologySpread } from './validation-scheduling.js';
import { validateVolumes } from './validation-volumes.js';

const MAX_INT32 = 2147483647;
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

function validDeletionCost(v: string): boolean {
  // strconv.ParseInt(v, 10, 32) after refusing '+' and leading zeros.
  if (!/^(-?[1-9][0-9]*|-?0)$/.test(v) || v === '-0') return v === '0';
  const n = Number(v);
  return n >= -2147483648 && n <= MAX_INT32;
}

function seccompAnnotation(value: string, path: string): FieldError[] {
  if (['runtime/default', 'docker/default', 'unconfined'].includes(value)) return [];
  if (value.startsWith('localhost/')) return validateLocalDescendingPath(value.slice('localhost/'.length), path);
  return [FieldError.invalid(path, value, 'must be a valid seccomp profile')];
}

/** ValidatePodSpecificAnnotations. */
export function validatePodAnnotations(pod: Pod, path = 'metadata.annotations'): FieldError[] {
  const errs: FieldError[] = [];
  const ann = pod.metadata.annotations ?? {};
  if (MIRROR_POD_ANNOTATION in ann && !pod.spec?.nodeName) {
    errs.push(FieldError.invalid(`${path}[${MIRROR_POD_ANNOTATION}]`, ann[MIRROR_POD_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (DELETION_COST in ann && !validDeletionCost(ann[DELETION_COST])) {
    errs.push(FieldError.invalid(`${path}[${DELETION_COST}]`, ann[DELETION_COST], 'must be a 32bit integer'));
  }
  if (SECCOMP_POD in ann) errs.push(...seccompAnnotation(ann[SECCOMP_POD], `${path}.${SECCOMP_POD}`));
  for (const [k, v] of Object.entries(ann)) if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...seccompAnnotation(v, `${path}.${k}`));
  const names = new Set<string>();
  if (pod.spec) visitContainers(pod.spec, (c) => names.add(c.name ?? ''));
  for (const [k, v] of Object.entries(ann)) {
    if (!k.startsWith(APPARMOR_PREFIX)) continue;
    const container = k.slice(APPARMOR_PREFIX.length);
    if (!names.has(container)) errs.push(FieldError.invalid(`${path}[${k}]`, container, 'container not found'));
    if (v !== '' && v !== 'runtime/default' && v !== 'unconfined' && !v.startsWith('localhost/')) {
      errs.push(FieldError.invalid(`${path}[${k}]`, v, `invalid AppArmor profile name: "${v}"`));
    }
  }
  return errs;
}

const SYSCTL_FMT = '^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';
const SYSCTL_RE = new RegExp(SYSCTL_FMT);
const isIPCSysctl = (n: string): boolean => n === 'kernel.sem' || ['kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((p) => n.startsWith(p));

function validateSysctls(sc: PodSecurityContext, spec: PodSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (sc.sysctls ?? []).forEach((s, i) => {
    const p = `${path}[${i}].name`;
    const name = s.name ?? '';
    if (!name) errs.push(FieldError.required(p));
    else if (name.length > 253 || !SYSCTL_RE.test(name)) {
      errs.push(FieldError.invalid(p, name, `must have at most 253 characters and match regex ${SYSCTL_FMT}`));
    } else if (seen.has(name)) errs.push(FieldError.duplicate(p, name));
    // Sysctls may be written with '/' separators; the namespace is judged on the dotted form.
    const dotted = name.indexOf('/') >= 0 && (name.indexOf('.') < 0 || name.indexOf('/') < name.indexOf('.')) ? name.replace(/[./]/g, (c) => (c === '/' ? '.' : '/')) : name;
    if (spec.hostNetwork && dotted.startsWith('net.')) errs.push(FieldError.invalid(p, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec.hostIPC && isIPCSysctl(dotted)) errs.push(FieldError.invalid(p, name, "may not be specified when 'hostIPC' is true"));
    seen.add(name);
  });
  return errs;
}

/** validatePodSpecSecurityContext; hostNetwork/hostPID/hostIPC/shareProcessNamespace live here in the internal API. */
function validatePodSecurityContext(spec: PodSpec, path: string): FieldError[] {
  const sc = spec.securityContext;
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [];
  if (sc.fsGroup !== undefined) errs.push(...invalidEach(`${path}.fsGroup`, sc.fsGroup, isValidID(sc.fsGroup)));
  if (sc.runAsUser !== undefined) errs.push(...invalidEach(`${path}.runAsUser`, sc.runAsUser, isValidID(sc.runAsUser)));
  if (sc.runAsGroup !== undefined) errs.push(...invalidEach(`${path}.runAsGroup`, sc.runAsGroup, isValidID(sc.runAsGroup)));
  (sc.supplementalGroups ?? []).forEach((g, i) => errs.push(...invalidEach(`${path}.supplementalGroups[${i}]`, g, isValidID(g))));
  if (spec.shareProcessNamespace === true && spec.hostPID) {
    errs.push(FieldError.invalid(`${path}.shareProcessNamespace`, true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  if (sc.sysctls?.length) errs.push(...validateSysctls(sc, spec, `${path}.sysctls`));
  if (sc.fsGroupChangePolicy !== undefined && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    errs.push(FieldError.notSupported(`${path}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSecurityProfiles(sc, path, 'seccomp'));
  errs.push(...validateSecurityProfiles(sc, path, 'apparmor'));
  if (sc.supplementalGroupsPolicy !== undefined && !['Merge', 'Strict'].includes(sc.supplementalGroupsPolicy)) {
    errs.push(FieldError.notSupported(`${path}.supplementalGroupsPolicy`, sc.supplementalGroupsPolicy, ['Merge', 'Strict']));
  }
  // SELinuxMount is off in 1.33, so only Recursive is accepted.
  if (sc.seLinuxChangePolicy !== undefined && sc.seLinuxChangePolicy !== 'Recursive') {
    errs.push(FieldError.notSupported(`${path}.seLinuxChangePolicy`, sc.seLinuxChangePolicy, ['Recursive']));
  }
  return errs;
}

function supported(value: string | undefined, path: string, values: string[]): FieldError[] {
  if (!value) return [FieldError.required(path)];
  return values.includes(value) ? [] : [FieldError.notSupported(path, value, values)];
}

function validateOS(spec: PodSpec, path: string): FieldError[] {
  const os = spec.os;
  if (!isObj(os)) return [];
  if (!os.name) return [FieldError.required(`${path}.os.name`, 'cannot be empty')];
  if (os.name !== 'linux' && os.name !== 'windows') return [FieldError.notSupported(`${path}.os`, os.name, ['linux', 'windows'])];
  const errs: FieldError[] = [];
  const windowsOnly = (sc: unknown, p: string) => {
    if (isObj(sc) && sc.windowsOptions !== undefined) errs.push(FieldError.forbidden(`${p}.windowsOptions`, 'windows options cannot be set for a linux pod'));
  };
  const linuxOnly = (sc: unknown, p: string, fields: string[]) => {
    if (!isObj(sc)) return;
    for (const f of fields) if (sc[f] !== undefined) errs.push(FieldError.forbidden(`${p}.${f}`, 'cannot be set for a windows pod'));
  };
  const containerLinuxFields = ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup'];
  if (os.name === 'linux') {
    windowsOnly(spec.securityContext, `${path}.securityContext`);
    visitContainers(spec, (c, p) => windowsOnly(c.securityContext, `${p}.securityContext`));
  } else {
    linuxOnly(spec.securityContext, `${path}.securityContext`, ['appArmorProfile', 'seLinuxOptions']);
    if (spec.hostUsers !== undefined) errs.push(FieldError.forbidden(`${path}.hostUsers`, 'cannot be set for a windows pod'));
    if (spec.hostPID) errs.push(FieldError.forbidden(`${path}.hostPID`, 'cannot be set for a windows pod'));
    if (spec.hostIPC) errs.push(FieldError.forbidden(`${path}.hostIPC`, 'cannot be set for a windows pod'));
    linuxOnly(spec.securityContext, `${path}.securityContext`, ['seccompProfile', 'fsGroup', 'fsGroupChangePolicy']);
    if (spec.securityContext?.sysctls?.length) errs.push(FieldError.forbidden(`${path}.securityContext.sysctls`, 'cannot be set for a windows pod'));
    if (spec.shareProcessNamespace !== undefined) errs.push(FieldError.forbidden(`${path}.shareProcessNamespace`, 'cannot be set for a windows pod'));
    linuxOnly(spec.securityContext, `${path}.securityContext`, ['runAsUser', 'runAsGroup', 'supplementalGroups', 'supplementalGroupsPolicy', 'seLinuxChangePolicy']);
    visitContainers(spec, (c, p) => linuxOnly(c.securityContext, `${p}.securityContext`, containerLinuxFields));
  }
  return errs;
}

/** ValidatePodSpec for a Pod (ResourceIsPod); `podName` names the PVCs of ephemeral volumes. */
export function validatePodSpec(spec: PodSpec, podName: string | undefined, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const grace = spec.terminationGracePeriodSeconds;
  if (grace === undefined || grace === null) errs.push(FieldError.required(`${path}.terminationGracePeriodSeconds`));
  const hostUsers = spec.hostUsers !== false;
  const vols = validateVolumes(spec.volumes, podName, `${path}.volumes`);
  errs.push(...vols.errs);
  const ctx: ContainerContext = { volumes: vols.sources, gracePeriod: grace ?? undefined, restartPolicy: spec.restartPolicy ?? '', hostUsers };
  errs.push(...validateContainers(spec.containers, ctx, `${path}.containers`));
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, ctx, `${path}.initContainers`));
  errs.push(...validateEphemeralContainers(spec.ephemeralContainers, spec.containers, spec.initContainers, ctx, `${path}.ephemeralContainers`));
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, i) => (c.ports ?? []).forEach((p, j) => {
      if ((p.hostPort ?? 0) !== (p.containerPort ?? 0)) {
        errs.push(FieldError.invalid(`${path}.containers[${i}].ports[${j}].hostPort`, p.hostPort ?? 0, 'must match `containerPort` when `hostNetwork` is true'));
      }
    }));
  }
  errs.push(...supported(spec.restartPolicy, `${path}.restartPolicy`, ['Always', 'OnFailure', 'Never']));
  errs.push(...supported(spec.dnsPolicy, `${path}.dnsPolicy`, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validatePodSecurityContext(spec, `${path}.securityContext`));
  errs.push(...validateAffinity(spec.affinity, `${path}.affinity`));
  errs.push(...validateDNSConfig(spec, `${path}.dnsConfig`));
  errs.push(...validateGates(spec, path));
  errs.push(...validateTopologySpread(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  if (!hostUsers) {
    if (spec.hostNetwork) errs.push(FieldError.forbidden(`${path}.hostNetwork`, 'when `pod.Spec.HostUsers` is false'));
    if (spec.hostPID) errs.push(FieldError.forbidden(`${path}.HostPID`, 'when `pod.Spec.HostUsers` is false'));
    if (spec.hostIPC) errs.push(FieldError.forbidden(`${path}.HostIPC`, 'when `pod.Spec.HostUsers` is false'));
  }
  const subdomainName = (v: string | undefined, p: string) => (v ? invalidEach(p, v, nameIsDNSSubdomain(v, false)) : []);
  errs.push(...subdomainName(spec.serviceAccountName, `${path}.serviceAccountName`));
  errs.push(...subdomainName(spec.nodeName, `${path}.nodeName`));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (ads < 1 || ads > MAX_INT32)) {
    errs.push(FieldError.invalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, MAX_INT32)));
  }
  if (spec.hostname) errs.push(...dns1123Label(spec.hostname, `${path}.hostname`));
  if (spec.subdomain) errs.push(...dns1123Label(spec.subdomain, `${path}.subdomain`));
  if (spec.tolerations?.length) errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  errs.push(...validateHostAliases(spec.hostAliases, `${path}.hostAliases`));
  errs.push(...subdomainName(spec.priorityClassName, `${path}.priorityClassName`));
  if (spec.runtimeClassName !== undefined && spec.runtimeClassName !== null) {
    errs.push(...invalidEach(`${path}.runtimeClassName`, spec.runtimeClassName, nameIsDNSSubdomain(spec.runtimeClassName, false)));
  }
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null) {
    errs.push(...supported(spec.preemptionPolicy, `${path}.preemptionPolicy`, ['PreemptLowerPriority', 'Never']));
  }
  if (isObj(spec.overhead)) errs.push(...validateResources({ limits: spec.overhead }, `${path}.overhead`));
  errs.push(...validateOS(spec, path));
  return errs;
}

/** validatePodMetadataAndSpec without ObjectMeta (the registry validates that). */
export function validatePodMetadataAndSpec(pod: Pod): FieldError[] {
  const spec = pod.spec ?? {};
  const errs = [...validatePodAnnotations(pod), ...validatePodSpec(spec, pod.metadata.name)];
  if (!spec.serviceAccountName) {
    (spec.volumes ?? []).forEach((v, i) => {
      const sources = isObj(v.projected) && Array.isArray(v.projected.sources) ? (v.projected.sources as Record<string, unknown>[]) : [];
      sources.forEach((s, j) => {
        if (isObj(s) && s.serviceAccountToken !== undefined) {
          errs.push(FieldError.forbidden(`spec.volumes[${i}].projected.sources[${j}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  for (const kind of ['containers', 'initContainers'] as const) {
    (spec[kind] ?? []).forEach((c, i) => {
      if (c.image && c.image.trim() !== c.image) errs.push(FieldError.invalid(`spec.${kind}[${i}].image`, c.image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

/** ValidatePodCreate. */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = pod.spec ?? {};
  if (spec.ephemeralContainers?.length) errs.push(FieldError.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (spec.nodeName && spec.schedulingGates?.length) errs.push(FieldError.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  return errs;
}

// Baseline checks on security profiles: AppArmor, SELinux options and seccomp (policy/check_appArmorProfile.go,
// check_seLinuxOptions.go, check_seccompProfile_baseline.go).
import type { Check } from './checks.js';
import {
  ALLOWED, allContainers, containersPhrase, forbid, joinQuote, nameOf, obj, pluralize, quote, sortedSet,
  type CheckResult, type PodMeta, type PodSpecLike,
} from './pod-view.js';

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

const allowedAppArmorAnnotation = (v: string) => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
const allowedAppArmorType = (t: string) => t === 'RuntimeDefault' || t === 'Localhost';

function appArmorProfile(meta: PodMeta, spec: PodSpecLike): CheckResult {
  const setters: string[] = [];
  const types: string[] = [];
  const badType = (sc: unknown) => {
    const profile = obj(obj(sc)?.appArmorProfile);
    if (!profile) return false;
    const t = String(profile.type ?? '');
    if (allowedAppArmorType(t)) return false;
    types.push(t);
    return true;
  };
  if (badType(spec.securityContext)) setters.push('pod');
  const bad = allContainers(spec).filter((c) => badType(c.securityContext)).map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  const values = sortedSet(types);
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(String(v)))
    .map(([k, v]) => `${k}=${quote(String(v))}`)
    .sort();
  if (annotations.length) {
    values.push(...annotations);
    setters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (!setters.length) return ALLOWED;
  return forbid(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  );
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

const seLinuxOptions = (allowedTypes: string[]) => {
  const allowed = new Set(allowedTypes);
  return (_m: PodMeta, spec: PodSpecLike): CheckResult => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const invalid = (sc: unknown) => {
      const o = obj(obj(sc)?.seLinuxOptions);
      if (!o) return false;
      let bad = false;
      const type = String(o.type ?? '');
      if (!allowed.has(type)) {
        bad = true;
        badTypes.push(type);
      }
      if (o.user) bad = setUser = true;
      if (o.role) bad = setRole = true;
      return bad;
    };
    const setters: string[] = [];
    if (invalid(spec.securityContext)) setters.push('pod');
    const bad = allContainers(spec).filter((c) => invalid(c.securityContext)).map(nameOf);
    if (bad.length) setters.push(containersPhrase(bad));
    if (!setters.length) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return forbid('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
  };
};

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

const validSeccompAnnotation = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
export const validSeccompType = (t: unknown) => t === 'Localhost' || t === 'RuntimeDefault';

/** v1.0–v1.18: the seccomp annotations. */
function seccompBaselineAnnotations(meta: PodMeta, spec: PodSpecLike): CheckResult {
  const annotations = meta.annotations ?? {};
  const bad: string[] = [];
  const look = (key: string) => {
    const v = annotations[key];
    if (v !== undefined && !validSeccompAnnotation(String(v))) bad.push(`${key}=${quote(String(v))}`);
  };
  look(SECCOMP_POD_ANNOTATION);
  for (const c of allContainers(spec)) look(SECCOMP_CONTAINER_ANNOTATION_PREFIX + nameOf(c));
  const list = sortedSet(bad);
  if (!list.length) return ALLOWED;
  return forbid('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}`);
}

/** v1.19+: securityContext.seccompProfile.type, where set, is RuntimeDefault or Localhost. */
function seccompBaselineFields(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = obj(obj(spec.securityContext)?.seccompProfile);
  if (podProfile && !validSeccompType(podProfile.type)) {
    setters.push('pod');
    values.push(String(podProfile.type ?? ''));
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = obj(obj(c.securityContext)?.seccompProfile);
    if (p && !validSeccompType(p.type)) {
      bad.push(nameOf(c));
      values.push(String(p.type ?? ''));
    }
  }
  if (bad.length) setters.push(containersPhrase(bad));
  if (!setters.length) return ALLOWED;
  return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
}

export const profileChecks: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minVersion: 0, check: appArmorProfile }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minVersion: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: seccompBaselineAnnotations },
      { minVersion: 19, check: seccompBaselineFields },
    ],
  },
];

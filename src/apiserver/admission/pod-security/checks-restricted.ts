// Restricted checks (policy/check_allowPrivilegeEscalation.go, check_capabilities_restricted.go,
// check_restrictedVolumes.go, check_runAsNonRoot.go, check_runAsUser.go, check_seccompProfile_restricted.go).
import type { Check } from './checks.js';
import { addedCapabilities } from './checks-baseline.js';
import { validSeccompType } from './checks-profiles.js';
import {
  ALLOWED, allContainers, containersPhrase, forbid, isWindows, joinQuote, nameOf, obj, pluralize, podScField, scField,
  sortedSet, type CheckFn, type CheckResult, type PodMeta, type PodSpecLike,
} from './pod-view.js';

/** From v1.25 a Windows pod skips the checks of Linux-only fields. */
const linuxOnly = (check: CheckFn): CheckFn => (meta, spec) => (isWindows(spec) ? ALLOWED : check(meta, spec));

function allowPrivilegeEscalation(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const bad = allContainers(spec).filter((c) => scField(c, 'allowPrivilegeEscalation') !== false).map(nameOf);
  if (!bad.length) return ALLOWED;
  return forbid('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
}

function capabilitiesRestricted(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const capabilities = obj(scField(c, 'capabilities'));
    const drop = capabilities?.drop;
    if (!Array.isArray(drop) || !drop.includes('ALL')) missingDrop.push(nameOf(c));
    const extra = addedCapabilities(c).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length) {
      adding.push(nameOf(c));
      caps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDrop.length) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  return details.length ? forbid('unrestricted capabilities', details.join('; ')) : ALLOWED;
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];

// the order kube tests the sources in, which names a volume that (wrongly) sets several
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume',
  'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk',
  'portworxVolume', 'scaleIO', 'storageos',
];

function restrictedVolumes(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of spec.volumes ?? []) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => v[s] != null)) continue;
    bad.push(v.name ?? '');
    types.push(RESTRICTED_VOLUME_SOURCES.find((s) => v[s] != null) ?? 'unknown');
  }
  if (!bad.length) return ALLOWED;
  const list = sortedSet(types);
  return forbid(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ` +
      `${pluralize('restricted volume type', 'restricted volume types', list.length)} ${joinQuote(list)}`,
  );
}

function runAsNonRoot(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const setters: string[] = [];
  const pod = podScField(spec, 'runAsNonRoot');
  if (pod === false) setters.push('pod');
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of allContainers(spec)) {
    const v = scField(c, 'runAsNonRoot');
    if (v === false) explicit.push(nameOf(c));
    else if (v == null && pod !== true) implicit.push(nameOf(c));
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return forbid('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length) return forbid('runAsNonRoot != true', `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`);
  return ALLOWED;
}

function runAsUser(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const setters: string[] = [];
  if (podScField(spec, 'runAsUser') === 0) setters.push('pod');
  const bad = allContainers(spec).filter((c) => scField(c, 'runAsUser') === 0).map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? forbid('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`) : ALLOWED;
}

function seccompRestricted(_m: PodMeta, spec: PodSpecLike): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  let podSet = false;
  const podProfile = obj(podScField(spec, 'seccompProfile'));
  if (podProfile) {
    if (validSeccompType(podProfile.type)) podSet = true;
    else {
      setters.push('pod');
      values.push(String(podProfile.type ?? ''));
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of allContainers(spec)) {
    const p = obj(scField(c, 'seccompProfile'));
    if (p) {
      if (!validSeccompType(p.type)) {
        explicit.push(nameOf(c));
        values.push(String(p.type ?? ''));
      }
    } else if (!podSet) implicit.push(nameOf(c));
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) {
    return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
  }
  if (implicit.length) {
    return forbid('seccompProfile', `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return ALLOWED;
}

export const restrictedChecks: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minVersion: 8, check: allowPrivilegeEscalation },
      { minVersion: 25, check: linuxOnly(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minVersion: 22, check: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minVersion: 25, check: linuxOnly(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minVersion: 0, check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minVersion: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minVersion: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minVersion: 19, check: seccompRestricted, overrides: ['seccompProfile_baseline'] },
      { minVersion: 25, check: linuxOnly(seccompRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
];

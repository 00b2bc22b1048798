// Baseline checks about host access and privileges: host namespaces, privileged, capabilities, hostPath volumes,
// host ports, procMount, Windows host processes and sysctls (policy/check_*.go).
import type { Check } from './checks.js';
import {
  ALLOWED, allContainers, containersPhrase, forbid, joinQuote, nameOf, obj, pluralize, podScField, scField, sortedSet,
  type CheckResult, type PodSpecLike,
} from './pod-view.js';

function hostNamespaces(_m: unknown, spec: PodSpecLike): CheckResult {
  const set: string[] = [];
  if (spec.hostNetwork === true) set.push('hostNetwork=true');
  if (spec.hostPID === true) set.push('hostPID=true');
  if (spec.hostIPC === true) set.push('hostIPC=true');
  return set.length ? forbid('host namespaces', set.join(', ')) : ALLOWED;
}

function privileged(_m: unknown, spec: PodSpecLike): CheckResult {
  const bad = allContainers(spec).filter((c) => scField(c, 'privileged') === true).map(nameOf);
  return bad.length ? forbid('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`) : ALLOWED;
}

/** The capabilities container runtimes grant by default. */
export const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID',
  'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

export const addedCapabilities = (c: Parameters<typeof nameOf>[0]): string[] => {
  const add = obj(scField(c, 'capabilities'))?.add;
  return Array.isArray(add) ? add.map(String) : [];
};

function capabilitiesBaseline(_m: unknown, spec: PodSpecLike): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const extra = addedCapabilities(c).filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (!extra.length) continue;
    bad.push(nameOf(c));
    caps.push(...extra);
  }
  if (!bad.length) return ALLOWED;
  return forbid('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
}

function hostPathVolumes(_m: unknown, spec: PodSpecLike): CheckResult {
  const bad = (spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name ?? '');
  return bad.length ? forbid('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`) : ALLOWED;
}

function hostPorts(_m: unknown, spec: PodSpecLike): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).map((p) => p?.hostPort ?? 0).filter((p) => p !== 0);
    if (!used.length) continue;
    bad.push(nameOf(c));
    ports.push(...used.map(String));
  }
  if (!bad.length) return ALLOWED;
  // sets.String sorts the ports as text
  const list = sortedSet(ports);
  return forbid(
    'hostPort',
    `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`,
  );
}

function procMount(_m: unknown, spec: PodSpecLike): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(spec)) {
    const pm = scField(c, 'procMount');
    if (pm == null || pm === 'Default') continue;
    bad.push(nameOf(c));
    types.push(String(pm));
  }
  if (!bad.length) return ALLOWED;
  return forbid('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
}

function windowsHostProcess(_m: unknown, spec: PodSpecLike): CheckResult {
  const hostProcess = (sc: unknown) => obj(obj(sc)?.windowsOptions)?.hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(spec.securityContext)) setters.push('pod');
  const bad = allContainers(spec).filter((c) => hostProcess(c.securityContext)).map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  if (!setters.length) return ALLOWED;
  return forbid('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
}

const SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

const sysctls = (allowedList: string[]) => {
  const allowed = new Set(allowedList);
  return (_m: unknown, spec: PodSpecLike): CheckResult => {
    const list = podScField(spec, 'sysctls');
    const bad = (Array.isArray(list) ? list : []).map((s) => String(obj(s)?.name ?? '')).filter((n) => !allowed.has(n));
    return bad.length ? forbid('forbidden sysctls', bad.join(', ')) : ALLOWED;
  };
};

export const baselineChecks: Check[] = [
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minVersion: 0, check: hostNamespaces }] },
  { id: 'privileged', level: 'baseline', versions: [{ minVersion: 0, check: privileged }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minVersion: 0, check: capabilitiesBaseline }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minVersion: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minVersion: 0, check: hostPorts }] },
  { id: 'procMount', level: 'baseline', versions: [{ minVersion: 0, check: procMount }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minVersion: 0, check: windowsHostProcess }] },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: sysctls(SYSCTLS_1_0) },
      { minVersion: 27, check: sysctls(SYSCTLS_1_27) },
      { minVersion: 29, check: sysctls(SYSCTLS_1_29) },
      { minVersion: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
];

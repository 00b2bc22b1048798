// The CRI ContainerConfig for one container, as kuberuntime's generateContainerConfig builds it: metadata, image,
// command/args after `$(VAR)` expansion, env, mounts, labels and annotations, log path, stdio flags, and the linux
// part (resources and the effective security context, with runAsNonRoot enforced against the image's user).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Container, Pod, SecurityContext } from '../../api/core/pod/types.js';
import type { ContainerConfig, LinuxContainerSecurityContext, Mount, SecurityProfile } from '../../runtime/cri-types.js';
import type { EnvVarKV } from '../pods/container-env.js';
import { podDesc, podHostnameAndDomain } from './dns-config.js';
import { expandCommandAndArgs, expandSubPathExpr } from '../pods/env-expansion.js';
import type { VolumeMountSource } from '../volumes/pod-volumes.js';
import { containerLinuxResources } from './qos-cgroups.js';
import { POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, podNamespaceOptions } from './sandbox-config.js';

export const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';
export const CONTAINER_HASH_ANNOTATION = 'io.kubernetes.container.hash';
export const RESTART_COUNT_ANNOTATION = 'io.kubernetes.container.restartCount';
export const TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
export const TERMINATION_MESSAGE_POLICY_ANNOTATION = 'io.kubernetes.container.terminationMessagePolicy';
export const DELETION_GRACE_ANNOTATION = 'io.kubernetes.pod.deletionGracePeriod';
export const TERMINATION_GRACE_ANNOTATION = 'io.kubernetes.pod.terminationGracePeriod';
export const PRESTOP_ANNOTATION = 'io.kubernetes.container.preStopHandler';
export const PORTS_ANNOTATION = 'io.kubernetes.container.ports';

/** securitycontext's defaults for a masked /proc (ProcMount Default). */
export const DEFAULT_MASKED_PATHS = [
  '/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list',
  '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap',
];
export const DEFAULT_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

export interface ImageUser {
  uid?: number;
  username?: string;
}

export interface ContainerConfigOptions {
  /** the container's restart count: metadata.attempt and the log file name */
  attempt: number;
  env: EnvVarKV[];
  /** containerMounts(...) */
  mounts: Mount[];
  /** the image id/reference the runtime resolved (PullImage / ImageStatus) */
  imageRef: string;
  /** the image's configured user (ImageStatus uid/username); neither means root */
  imageUser?: ImageUser;
  /** node memory capacity in bytes, for oom_score_adj */
  memoryCapacity: number;
  /** <kubelet root>/seccomp: the base of Localhost profiles */
  seccompProfileRoot: string;
  /** kubelet --seccomp-default: RuntimeDefault when the pod says nothing (default false: Unconfined) */
  seccompDefault?: boolean;
  /** for an ephemeral container targeting another: that container's runtime id (pid namespace TARGET) */
  targetContainerId?: string;
}

export type ConfigFailure = { reason: 'CreateContainerConfigError'; message: string };

/**
 * kubecontainer.HashContainer over the fields kube hashes in 1.33 (name and image): FNV-32a of their JSON.
 * The value differs from kube's (which hashes a spew dump of that JSON) but changes exactly when kube's does.
 */
export function containerHash(c: Container): string {
  const data = Buffer.from(JSON.stringify({ image: c.image ?? '', name: c.name ?? '' }));
  let h = 0x811c9dc5;
  for (const b of data) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16);
}

/** securitycontext.DetermineEffectiveSecurityContext: the container's context over the pod's inheritable fields. */
export function effectiveSecurityContext(pod: Pod, c: Container): SecurityContext & { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean } {
  const ps = pod.spec?.securityContext ?? {};
  const cs = c.securityContext ?? {};
  const out: Record<string, unknown> = {};
  for (const k of ['seLinuxOptions', 'windowsOptions', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'seccompProfile', 'appArmorProfile']) {
    if (ps[k] !== undefined) out[k] = ps[k];
  }
  for (const [k, v] of Object.entries(cs)) if (v !== undefined) out[k] = v;
  return out as SecurityContext;
}

/** verifyRunAsNonRoot, with the kubelet's messages. */
export function verifyRunAsNonRoot(pod: Pod, c: Container, imageUser: ImageUser | undefined): string | undefined {
  const sc = effectiveSecurityContext(pod, c);
  if (sc.runAsNonRoot !== true) return undefined;
  if (sc.runAsUser !== undefined) {
    return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy (pod: "${podDesc(pod)}", container: ${c.name})` : undefined;
  }
  const uid = imageUser?.uid ?? (imageUser?.username ? undefined : 0);
  if (uid === 0) return `container has runAsNonRoot and image will run as root (pod: "${podDesc(pod)}", container: ${c.name})`;
  if (uid === undefined && imageUser?.username) {
    return `container has runAsNonRoot and image has non-numeric user (${imageUser.username}), cannot verify user is non-root (pod: "${podDesc(pod)}", container: ${c.name})`;
  }
  return undefined;
}

/** getSeccompProfile: the container's field, else the pod's, else the kubelet default. */
export function seccompProfile(pod: Pod, c: Container, root: string, fallbackRuntimeDefault: boolean): SecurityProfile | { error: string } {
  const p = c.securityContext?.seccompProfile ?? pod.spec?.securityContext?.seccompProfile;
  if (!p) return { profile_type: fallbackRuntimeDefault ? 'RuntimeDefault' : 'Unconfined' };
  if (p.type === 'RuntimeDefault') return { profile_type: 'RuntimeDefault' };
  if (p.type === 'Localhost') {
    if (!p.localhostProfile) return { error: 'localhostProfile must be set if seccompProfile type is Localhost.' };
    return { profile_type: 'Localhost', localhost_ref: `${root.replace(/\/$/, '')}/${p.localhostProfile}` };
  }
  return { profile_type: 'Unconfined' };
}

/** determineEffectiveSecurityContext: the CRI LinuxContainerSecurityContext. */
export function containerSecurityContext(pod: Pod, c: Container, opts: ContainerConfigOptions): LinuxContainerSecurityContext | { error: string } {
  const sc = effectiveSecurityContext(pod, c);
  const seccomp = seccompProfile(pod, c, opts.seccompProfileRoot, opts.seccompDefault === true);
  if ('error' in seccomp) return seccomp;
  const out: LinuxContainerSecurityContext = {
    capabilities: { add_capabilities: sc.capabilities?.add ?? [], drop_capabilities: sc.capabilities?.drop ?? [] },
    privileged: sc.privileged === true,
    readonly_rootfs: sc.readOnlyRootFilesystem === true,
    seccomp,
    namespace_options: podNamespaceOptions(pod),
  };
  if (sc.seLinuxOptions) out.selinux_options = sc.seLinuxOptions as Record<string, string>;
  if (sc.runAsUser !== undefined) out.run_as_user = { value: String(sc.runAsUser) };
  else if (opts.imageUser?.uid !== undefined) out.run_as_user = { value: String(opts.imageUser.uid) };
  else if (opts.imageUser?.username) out.run_as_username = opts.imageUser.username;
  else out.run_as_user = { value: '0' }; // an image without a user runs as root
  if (sc.runAsGroup !== undefined) out.run_as_group = { value: String(sc.runAsGroup) };
  const ps = pod.spec?.securityContext ?? {};
  const groups = [...(ps.fsGroup !== undefined ? [ps.fsGroup] : []), ...(ps.supplementalGroups ?? [])];
  if (groups.length) out.supplemental_groups = groups.map(String);
  if (opts.targetContainerId && out.namespace_options?.pid === 'CONTAINER') {
    out.namespace_options = { ...out.namespace_options, pid: 'TARGET', target_id: opts.targetContainerId };
  }
  out.no_new_privs = sc.allowPrivilegeEscalation === false;
  const unmasked = sc.procMount === 'Unmasked';
  out.masked_paths = unmasked ? [] : [...DEFAULT_MASKED_PATHS];
  out.readonly_paths = unmasked ? [] : [...DEFAULT_READONLY_PATHS];
  return out;
}

/** newContainerLabels. */
export function containerLabels(pod: Pod, c: Container): Record<string, string> {
  return {
    [POD_NAME_LABEL]: pod.metadata?.name ?? '',
    [POD_NAMESPACE_LABEL]: pod.metadata?.namespace ?? '',
    [POD_UID_LABEL]: pod.metadata?.uid ?? '',
    [CONTAINER_NAME_LABEL]: c.name ?? '',
  };
}

/** newContainerAnnotations: what the kubelet needs back from the runtime after a restart of its own. */
export function containerAnnotations(pod: Pod, c: Container, restartCount: number): Record<string, string> {
  const a: Record<string, string> = {
    [CONTAINER_HASH_ANNOTATION]: containerHash(c),
    [RESTART_COUNT_ANNOTATION]: String(restartCount),
    [TERMINATION_MESSAGE_PATH_ANNOTATION]: c.terminationMessagePath ?? '',
    [TERMINATION_MESSAGE_POLICY_ANNOTATION]: c.terminationMessagePolicy ?? '',
  };
  const dgp = (pod.metadata as { deletionGracePeriodSeconds?: number } | undefined)?.deletionGracePeriodSeconds;
  if (dgp !== undefined && dgp !== null) a[DELETION_GRACE_ANNOTATION] = String(dgp);
  if (pod.spec?.terminationGracePeriodSeconds !== undefined) a[TERMINATION_GRACE_ANNOTATION] = String(pod.spec.terminationGracePeriodSeconds);
  if (c.lifecycle?.preStop) a[PRESTOP_ANNOTATION] = JSON.stringify(c.lifecycle.preStop);
  if (c.ports && c.ports.length > 0) a[PORTS_ANNOTATION] = JSON.stringify(c.ports);
  return a;
}

/** generateContainerConfig. Failures are CreateContainerConfigError with the kubelet's message. */
export function containerConfig(pod: Pod, c: Container, opts: ContainerConfigOptions): { config: ContainerConfig } | { failure: ConfigFailure } {
  const fail = (message: string) => ({ failure: { reason: 'CreateContainerConfigError' as const, message } });
  const nonRoot = verifyRunAsNonRoot(pod, c, opts.imageUser);
  if (nonRoot) return fail(nonRoot);
  const security = containerSecurityContext(pod, c, opts);
  if ('error' in security) return fail(security.error);
  const { command, args } = expandCommandAndArgs(c, opts.env);
  const config: ContainerConfig = {
    metadata: { name: c.name ?? '', attempt: opts.attempt },
    image: { image: opts.imageRef, user_specified_image: c.image ?? '' },
    command,
    args,
    working_dir: (c.workingDir as string | undefined) ?? '',
    envs: opts.env.map((e) => ({ key: e.name, value: e.value })),
    mounts: opts.mounts,
    labels: containerLabels(pod, c),
    annotations: containerAnnotations(pod, c, opts.attempt),
    log_path: containerLogPath(c.name ?? '', opts.attempt),
    stdin: c.stdin === true,
    stdin_once: c.stdinOnce === true,
    tty: c.tty === true,
    linux: { resources: containerLinuxResources(pod, c, opts.memoryCapacity), security_context: security },
  };
  return { config };
}

/** buildContainerLogsPath: <container>/<restartCount>.log, relative to the sandbox log directory. */
export function containerLogPath(name: string, restartCount: number): string {
  return `${name}/${restartCount}.log`;
}

// ---- mounts of one container -----------------------------------------------------------------------------------

export interface ContainerMountOptions {
  /** <podsDir>/<uid> */
  podDir: string;
  /** the container's resolved environment, for subPathExpr */
  env: EnvVarKV[];
  /** the sandbox's IPs: /etc/hosts is managed only once they are known (or for hostNetwork pods) */
  podIPs: string[];
  clusterDomain: string;
  /** the node's hosts file, copied for hostNetwork pods (default /etc/hosts) */
  nodeHostsFile?: string;
  /** whether SELinux is enabled on the node (never on these Debian machines) */
  selinuxEnabled?: boolean;
}

export interface ContainerMounts {
  mounts: Mount[];
  /** the host file behind terminationMessagePath: read it when the container exits */
  terminationMessageHostPath?: string;
}

const PROPAGATION: Record<string, Mount['propagation']> = {
  None: 'PROPAGATION_PRIVATE',
  HostToContainer: 'PROPAGATION_HOST_TO_CONTAINER',
  Bidirectional: 'PROPAGATION_BIDIRECTIONAL',
};

/**
 * makeMounts + kuberuntime's makeMounts: the volume mounts in declaration order (subPath/subPathExpr checked and
 * created inside the volume), then the kubelet-managed /etc/hosts, then the termination-message file.
 */
export async function containerMounts(
  pod: Pod,
  c: Container,
  volumes: ReadonlyMap<string, VolumeMountSource>,
  opts: ContainerMountOptions,
): Promise<ContainerMounts | { failure: ConfigFailure }> {
  const fail = (message: string) => ({ failure: { reason: 'CreateContainerConfigError' as const, message } });
  const hostNetwork = pod.spec?.hostNetwork === true;
  let manageHosts = opts.podIPs.length > 0 || hostNetwork;
  const mounts: Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    if (vm.mountPath === '/etc/hosts') manageHosts = false;
    const vol = volumes.get(vm.name ?? '');
    if (!vol) return fail(`cannot find volume "${vm.name}" to mount into container "${c.name}"`);
    let subPath = vm.subPath ?? '';
    if (vm.subPathExpr) {
      const r = expandSubPathExpr(vm.subPathExpr, opts.env);
      if ('error' in r) return fail(r.error);
      subPath = r.value;
    }
    let hostPath = vol.hostPath;
    if (subPath) {
      if (path.isAbsolute(subPath)) return fail(`error SubPath \`${subPath}\` must not be an absolute path`);
      if (subPath.split('/').includes('..')) return fail(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
      const r = await prepareSubPath(vol.hostPath, subPath);
      if (r === 'mkdir') return fail(`failed to create subPath directory for volumeMount "${vm.name}" of container "${c.name}"`);
      if (r === 'escape') return fail(`failed to prepare subPath for volumeMount "${vm.name}" of container "${c.name}"`);
      hostPath = r.path;
    }
    const propagation = vm.mountPropagation === undefined ? 'PROPAGATION_PRIVATE' : PROPAGATION[vm.mountPropagation];
    if (!propagation) return fail(`invalid MountPropagation mode: "${vm.mountPropagation}"`);
    const rroError = recursiveReadOnlyError(vm);
    if (rroError) return fail(`failed to resolve recursive read-only mode: ${rroError}`);
    mounts.push({
      container_path: vm.mountPath ?? '',
      host_path: hostPath,
      readonly: vm.readOnly === true || vol.readOnly,
      selinux_relabel: vol.selinuxRelabel && opts.selinuxEnabled === true,
      propagation,
    });
  }
  // the two kubelet-managed files are written side by side; their mounts keep this order
  const hosts = async (): Promise<string | undefined> => {
    if (!manageHosts) return undefined;
    const { hostname, hostDomain } = podHostnameAndDomain(pod, opts.clusterDomain);
    return writeEtcHosts({
      podDir: opts.podDir, podIPs: opts.podIPs, hostname, hostDomain, hostAliases: pod.spec?.hostAliases ?? [], hostNetwork,
      nodeHostsFile: opts.nodeHostsFile,
    });
  };
  const terminationFile = async (): Promise<string | undefined> => {
    if (!c.terminationMessagePath) return undefined;
    const dir = path.join(opts.podDir, 'containers', c.name ?? '');
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
    // a fresh file per container instance; 0666 whatever the umask so any container user can write it
    const file = path.join(dir, randomBytes(4).toString('hex'));
    await fs.writeFile(file, '');
    await fs.chmod(file, 0o666);
    return file;
  };
  const [hostsPath, terminationMessageHostPath] = await Promise.all([hosts(), terminationFile()]);
  if (hostsPath) mounts.push({ container_path: '/etc/hosts', host_path: hostsPath, readonly: false, selinux_relabel: opts.selinuxEnabled === true });
  if (terminationMessageHostPath) {
    mounts.push({ container_path: c.terminationMessagePath!, host_path: terminationMessageHostPath, selinux_relabel: opts.selinuxEnabled === true });
  }
  return { mounts, terminationMessageHostPath };
}

/**
 * resolveRecursiveReadOnly for a runtime without recursive read-only support (containerd 1.6): IfPossible degrades
 * to a plain read-only mount, Enabled fails.
 */
function recursiveReadOnlyError(vm: { name?: string; readOnly?: boolean; mountPropagation?: string; recursiveReadOnly?: string }): string | undefined {
  const rro = vm.recursiveReadOnly;
  if (rro === undefined || rro === 'Disabled') return undefined;
  if (!vm.readOnly) return `volume "${vm.name}" requires recursiveReadOnly to be "Disabled" if readOnly is false`;
  if (vm.mountPropagation !== undefined && vm.mountPropagation !== 'None') {
    return `volume "${vm.name}" requires recursiveReadOnly to be "Disabled" if mountPropagation is not "None"`;
  }
  if (rro === 'IfPossible') return undefined;
  if (rro === 'Enabled') return `volume "${vm.name}" requires recursiveReadOnly to be "Enabled", but it is not supported by the runtime`;
  return `unknown recursiveReadOnly mode "${rro}"`;
}

/** Creates a missing subPath (with the volume root's mode) and resolves it, refusing anything outside the volume. */
async function prepareSubPath(volumePath: string, subPath: string): Promise<{ path: string } | 'mkdir' | 'escape'> {
  const target = path.join(volumePath, subPath);
  const root = await fs.realpath(volumePath);
  if (!(await fs.lstat(target).catch(() => undefined))) {
    // resolve the existing part first so a symlink cannot make the mkdir land outside the volume
    const parent = await fs.realpath(path.dirname(target)).catch(() => undefined);
    if (parent && !within(root, parent)) return 'escape';
    const mode = (await fs.stat(volumePath)).mode & 0o7777;
    try {
      await fs.mkdir(target, { recursive: true, mode });
      await fs.chmod(target, mode);
    } catch {
      return 'mkdir';
    }
  }
  const real = await fs.realpath(target).catch(() => undefined);
  if (!real || !within(root, real)) return 'escape';
  return { path: real };
}

const within = (root: string, p: string): boolean => p === root || p.startsWith(root + '/');

export interface EtcHostsOptions {
  podDir: string;
  podIPs: string[];
  hostname: string;
  hostDomain: string;
  hostAliases: { ip?: string; hostnames?: string[] }[];
  hostNetwork: boolean;
  nodeHostsFile?: string;
}

/** ensureHostsFile: <podDir>/etc-hosts, the kubelet-managed file (or the node's for hostNetwork) plus hostAliases. */
export async function writeEtcHosts(o: EtcHostsOptions): Promise<string> {
  const file = path.join(o.podDir, 'etc-hosts');
  let content: string;
  if (o.hostNetwork) {
    content = '# Kubernetes-managed hosts file (host network).\n' + (await fs.readFile(o.nodeHostsFile ?? '/etc/hosts', 'utf8'));
  } else {
    content =
      '# Kubernetes-managed hosts file.\n' +
      '127.0.0.1\tlocalhost\n' +
      '::1\tlocalhost ip6-localhost ip6-loopback\n' +
      'fe00::0\tip6-localnet\n' +
      'fe00::0\tip6-mcastprefix\n' +
      'fe00::1\tip6-allnodes\n' +
      'fe00::2\tip6-allrouters\n';
    for (const ip of o.podIPs) {
      content += o.hostDomain ? `${ip}\t${o.hostname}.${o.hostDomain}\t${o.hostname}\n` : `${ip}\t${o.hostname}\n`;
    }
  }
  if (o.hostAliases.length > 0) {
    content += '\n# Entries added by HostAliases.\n';
    for (const a of o.hostAliases) content += `${a.ip ?? ''}\t${(a.hostnames ?? []).join('\t')}\n`;
  }
  await fs.mkdir(o.podDir, { recursive: true, mode: 0o750 });
  await fs.writeFile(file, content, { mode: 0o644 });
  await fs.chmod(file, 0o644);
  return file;
}

/** The container's log directory, <podLogsDirectory>/<container>, created before CreateContainer (0755). */
export async function prepareContainerLogDir(sandboxLogDirectory: string, containerName: string): Promise<string> {
  const dir = path.join(sandboxLogDirectory, containerName);
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  return dir;
}

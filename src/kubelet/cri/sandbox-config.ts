// The CRI PodSandboxConfig for a pod, as kuberuntime's generatePodSandboxConfig builds it: metadata, hostname (none
// for hostNetwork), log directory, DNS, port mappings of the regular containers, labels and annotations, and the
// linux part (cgroup parent, sysctls, namespaces, user/groups, privileged, seccomp RuntimeDefault, resources).
import path from 'node:path';
import type { Container, Pod } from '../../api/core/pod/types.js';
import type { DNSConfig, NamespaceOption, PodSandboxConfig, PortMapping, Protocol } from '../../runtime/cri-types.js';
import { podHostnameAndDomain } from './dns-config.js';
import { overheadLinuxResources, sandboxLinuxResources } from './qos-cgroups.js';

export const POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const POD_UID_LABEL = 'io.kubernetes.pod.uid';

export interface SandboxOptions {
  /** 0 for the first sandbox of the pod, +1 for each replacement */
  attempt: number;
  dns: DNSConfig;
  /** the kubelet's pod log root (/var/log/pods) */
  podLogDir: string;
  /** podCgroupParent(uid, qos) */
  cgroupParent: string;
  clusterDomain: string;
}

/** BuildPodLogsDirectory: <root>/<namespace>_<name>_<uid>. */
export function podLogsDirectory(root: string, pod: Pod): string {
  const m = pod.metadata ?? {};
  return path.join(root, `${m.namespace ?? ''}_${m.name ?? ''}_${m.uid ?? ''}`);
}

/** newPodLabels: the pod's labels plus the three io.kubernetes.pod.* labels. */
export function podSandboxLabels(pod: Pod): Record<string, string> {
  return {
    ...(pod.metadata?.labels ?? {}),
    [POD_NAME_LABEL]: pod.metadata?.name ?? '',
    [POD_NAMESPACE_LABEL]: pod.metadata?.namespace ?? '',
    [POD_UID_LABEL]: pod.metadata?.uid ?? '',
  };
}

/** NamespacesForPod (host users: the user namespace is the node's). */
export function podNamespaceOptions(pod: Pod): NamespaceOption {
  const s = pod.spec ?? {};
  return {
    network: s.hostNetwork ? 'NODE' : 'POD',
    pid: s.hostPID ? 'NODE' : s.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: s.hostIPC ? 'NODE' : 'POD',
    userns_options: { mode: 'NODE' },
  };
}

const toProtocol = (p: string | undefined): Protocol => (p === 'UDP' || p === 'SCTP' ? p : 'TCP');

/** kubecontainer.MakePortMappings for every regular container; a port name used twice in a container is skipped. */
export function podPortMappings(containers: Container[]): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of containers) {
    const names = new Set<string>();
    for (const p of c.ports ?? []) {
      const family = p.hostIP?.includes(':') ? '6' : '4';
      const name = p.name || `${c.name}-${family}-${p.protocol ?? 'TCP'}:${p.containerPort}`;
      if (names.has(name)) continue;
      names.add(name);
      out.push({ protocol: toProtocol(p.protocol), container_port: p.containerPort ?? 0, host_port: p.hostPort ?? 0, host_ip: p.hostIP ?? '' });
    }
  }
  return out;
}

/** Whether any container (init, regular, ephemeral) is privileged (HasPrivilegedContainer). */
export function hasPrivilegedContainer(pod: Pod): boolean {
  const s = pod.spec ?? {};
  return [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])].some((c) => c.securityContext?.privileged === true);
}

/** generatePodSandboxConfig. Throws (kube's message) when setHostnameAsFQDN makes a name over 64 characters. */
export function podSandboxConfig(pod: Pod, opts: SandboxOptions): PodSandboxConfig {
  const m = pod.metadata ?? {};
  const spec = pod.spec ?? {};
  const sc = spec.securityContext ?? {};
  const cfg: PodSandboxConfig = {
    metadata: { name: m.name ?? '', uid: m.uid ?? '', namespace: m.namespace ?? '', attempt: opts.attempt },
    labels: podSandboxLabels(pod),
    annotations: { ...(m.annotations ?? {}) },
    dns_config: opts.dns,
    log_directory: podLogsDirectory(opts.podLogDir, pod),
  };
  // runc refuses a hostname in the host's UTS namespace: hostNetwork pods get none (as in kube)
  if (!spec.hostNetwork) {
    const { hostname, hostDomain } = podHostnameAndDomain(pod, opts.clusterDomain);
    cfg.hostname = hostname;
    if (spec.setHostnameAsFQDN === true && hostDomain) {
      const fqdn = `${hostname}.${hostDomain}`;
      if (fqdn.length > 64) {
        throw new Error(`failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (64 characters is the max, ${fqdn.length} characters requested)`);
      }
      cfg.hostname = fqdn;
    }
  }
  const ports = podPortMappings(spec.containers ?? []);
  if (ports.length > 0) cfg.port_mappings = ports;

  const sysctls: Record<string, string> = {};
  for (const s of sc.sysctls ?? []) sysctls[s.name ?? ''] = s.value ?? '';
  const groups: string[] = [];
  if (sc.fsGroup !== undefined) groups.push(String(sc.fsGroup));
  for (const g of sc.supplementalGroups ?? []) groups.push(String(g));
  cfg.linux = {
    cgroup_parent: opts.cgroupParent,
    sysctls,
    security_context: {
      privileged: hasPrivilegedContainer(pod),
      // the sandbox always runs RuntimeDefault so pods may use least-privilege profiles (kube issue 84623)
      seccomp: { profile_type: 'RuntimeDefault' },
      namespace_options: podNamespaceOptions(pod),
      ...(sc.runAsUser !== undefined ? { run_as_user: { value: String(sc.runAsUser) } } : {}),
      ...(sc.runAsGroup !== undefined ? { run_as_group: { value: String(sc.runAsGroup) } } : {}),
      ...(groups.length ? { supplemental_groups: groups } : {}),
      ...(sc.seLinuxOptions ? { selinux_options: sc.seLinuxOptions as Record<string, string> } : {}),
    },
    resources: sandboxLinuxResources(pod),
  };
  const overhead = overheadLinuxResources(pod);
  if (overhead) cfg.linux.overhead = overhead;
  return cfg;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { podSandboxConfig, type SandboxOptions } from '../../../../src/kubelet/cri/sandbox-config.js';

const opts: SandboxOptions = {
  attempt: 1,
  dns: { servers: ['10.43.0.10'], searches: ['web.svc.cluster.local'], options: ['ndots:5'] },
  podLogDir: '/var/log/pods',
  cgroupParent: '/kubepods/burstable/poduid-9',
  clusterDomain: 'cluster.local',
};

function pod(spec: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'web', uid: 'uid-9', labels: { app: 'web' }, annotations: { note: 'x' } },
    spec: {
      containers: [
        { name: 'nginx', ports: [{ name: 'http', containerPort: 80, hostPort: 8080 }, { containerPort: 53, protocol: 'UDP' }, { name: 'http', containerPort: 81 }], resources: { requests: { cpu: '100m' }, limits: { memory: '64Mi' } } },
        { name: 'side', ports: [{ containerPort: 9000, hostPort: 9000, hostIP: '127.0.0.1' }], securityContext: { privileged: true } },
      ],
      initContainers: [{ name: 'init', ports: [{ containerPort: 7000, hostPort: 7000 }] }],
      securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000, 5000], sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] },
      hostname: 'web-zero',
      subdomain: 'web',
      ...spec,
    },
  } as Pod;
}

test('sandbox config: metadata, hostname, log directory, DNS, ports, labels, annotations and the linux part', () => {
  assert.deepEqual(podSandboxConfig(pod(), opts), {
    metadata: { name: 'web-0', uid: 'uid-9', namespace: 'web', attempt: 1 },
    labels: { app: 'web', 'io.kubernetes.pod.name': 'web-0', 'io.kubernetes.pod.namespace': 'web', 'io.kubernetes.pod.uid': 'uid-9' },
    annotations: { note: 'x' },
    dns_config: opts.dns,
    log_directory: '/var/log/pods/web_web-0_uid-9',
    hostname: 'web-zero',
    // regular containers only; a port name repeated within a container is dropped
    port_mappings: [
      { protocol: 'TCP', container_port: 80, host_port: 8080, host_ip: '' },
      { protocol: 'UDP', container_port: 53, host_port: 0, host_ip: '' },
      { protocol: 'TCP', container_port: 9000, host_port: 9000, host_ip: '127.0.0.1' },
    ],
    linux: {
      cgroup_parent: '/kubepods/burstable/poduid-9',
      sysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' },
      security_context: {
        privileged: true,
        seccomp: { profile_type: 'RuntimeDefault' },
        namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', userns_options: { mode: 'NODE' } },
        run_as_user: { value: '1000' },
        run_as_group: { value: '3000' },
        supplemental_groups: ['2000', '4000', '5000'],
      },
      resources: { cpu_shares: '102', cpu_period: '100000', cpu_quota: '0', memory_limit_in_bytes: String(64 * 2 ** 20) },
    },
  });
});

test('host namespaces: hostNetwork pods get no hostname; hostPID, hostIPC, shareProcessNamespace', () => {
  const host = podSandboxConfig(pod({ hostNetwork: true, hostPID: true, hostIPC: true }), opts);
  assert.equal(host.hostname, undefined);
  assert.deepEqual(host.linux!.security_context!.namespace_options, { network: 'NODE', pid: 'NODE', ipc: 'NODE', userns_options: { mode: 'NODE' } });
  const shared = podSandboxConfig(pod({ shareProcessNamespace: true }), opts);
  assert.equal(shared.linux!.security_context!.namespace_options!.pid, 'POD');
});

test('setHostnameAsFQDN uses the FQDN and refuses one over 64 characters with the kubelet message', () => {
  assert.equal(podSandboxConfig(pod({ setHostnameAsFQDN: true }), opts).hostname, 'web-zero.web.web.svc.cluster.local');
  assert.throws(
    () => podSandboxConfig(pod({ setHostnameAsFQDN: true, hostname: 'h'.repeat(40) }), opts),
    { message: `failed to construct FQDN from pod hostname and cluster domain, FQDN ${'h'.repeat(40)}.web.web.svc.cluster.local is too long (64 characters is the max, 66 characters requested)` },
  );
});

test('the pod overhead is passed as linux.overhead', () => {
  const cfg = podSandboxConfig(pod({ overhead: { cpu: '250m', memory: '120Mi' } }), opts);
  assert.deepEqual(cfg.linux!.overhead, { cpu_shares: '256', cpu_period: '100000', cpu_quota: '25000', memory_limit_in_bytes: String(120 * 2 ** 20) });
  // the sandbox resources exclude the overhead
  assert.equal(cfg.linux!.resources!.cpu_shares, '102');
});

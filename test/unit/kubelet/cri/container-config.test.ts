import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '../../../../src/api/core/pod/types.js';
import {
  containerConfig,
  containerHash,
  containerMounts,
  DEFAULT_MASKED_PATHS,
  DEFAULT_READONLY_PATHS,
  writeEtcHosts,
  type ContainerConfigOptions,
} from '../../../../src/kubelet/cri/container-config.js';
import type { VolumeMountSource } from '../../../../src/kubelet/volumes/pod-volumes.js';
import { writePayloadAtomically } from '../../../../src/kubelet/volumes/atomic-writer.js';

const base: ContainerConfigOptions = {
  attempt: 2,
  env: [{ name: 'MESSAGE', value: 'hello world' }, { name: 'N', value: '3' }],
  mounts: [{ container_path: '/data', host_path: '/pods/u/volumes/x', readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE' }],
  imageRef: 'sha256:abc',
  memoryCapacity: 8 * 2 ** 30,
  seccompProfileRoot: '/var/lib/kubelet/seccomp',
};

function pod(c: Container, extra: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sec', namespace: 'default', uid: 'u-1' },
    spec: { containers: [c], terminationGracePeriodSeconds: 30, securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [3000] }, ...extra },
  } as Pod;
}

const app = (over: Partial<Container> = {}): Container => ({
  name: 'app',
  image: 'busybox:1.36',
  command: ['sh', '-c'],
  args: ['echo $(MESSAGE) $$(N) $(N)'],
  workingDir: '/work',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  stdin: true,
  tty: true,
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  lifecycle: { preStop: { exec: { command: ['sleep', '1'] } } },
  resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
  securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, readOnlyRootFilesystem: true },
  ...over,
});

test('container config: metadata, image, expanded command/args, env, mounts, labels, annotations, log path, stdio', () => {
  const r = containerConfig(pod(app()), app(), base);
  assert.ok('config' in r, JSON.stringify(r));
  const c = r.config;
  assert.deepEqual(c.metadata, { name: 'app', attempt: 2 });
  assert.deepEqual(c.image, { image: 'sha256:abc', user_specified_image: 'busybox:1.36' });
  assert.deepEqual([c.command, c.args], [['sh', '-c'], ['echo hello world $(N) 3']]);
  assert.equal(c.working_dir, '/work');
  assert.deepEqual(c.envs, [{ key: 'MESSAGE', value: 'hello world' }, { key: 'N', value: '3' }]);
  assert.deepEqual(c.mounts, base.mounts);
  assert.deepEqual(c.labels, { 'io.kubernetes.pod.name': 'sec', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'u-1', 'io.kubernetes.container.name': 'app' });
  assert.deepEqual(c.annotations, {
    'io.kubernetes.container.hash': containerHash(app()),
    'io.kubernetes.container.restartCount': '2',
    'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
    'io.kubernetes.container.terminationMessagePolicy': 'File',
    'io.kubernetes.pod.terminationGracePeriod': '30',
    'io.kubernetes.container.preStopHandler': '{"exec":{"command":["sleep","1"]}}',
    'io.kubernetes.container.ports': '[{"containerPort":80,"protocol":"TCP"}]',
  });
  assert.equal(c.log_path, 'app/2.log');
  assert.deepEqual([c.stdin, c.stdin_once, c.tty], [true, false, true]);
  // the hash follows name and image only
  assert.equal(containerHash(app({ args: ['other'] })), containerHash(app()));
  assert.notEqual(containerHash(app({ image: 'busybox:1.37' })), containerHash(app()));
});

test('container linux config: resources and the effective security context', () => {
  const r = containerConfig(pod(app()), app(), base);
  assert.ok('config' in r);
  assert.deepEqual(r.config.linux, {
    resources: { cpu_shares: '256', cpu_period: '100000', cpu_quota: '50000', memory_limit_in_bytes: String(128 * 2 ** 20), oom_score_adj: '993' },
    security_context: {
      capabilities: { add_capabilities: ['NET_ADMIN'], drop_capabilities: ['ALL'] },
      privileged: false,
      readonly_rootfs: true,
      seccomp: { profile_type: 'Unconfined' },
      namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', userns_options: { mode: 'NODE' } },
      run_as_user: { value: '1000' },
      supplemental_groups: ['2000', '3000'],
      no_new_privs: true,
      masked_paths: DEFAULT_MASKED_PATHS,
      readonly_paths: DEFAULT_READONLY_PATHS,
    },
  });
});

test('seccomp: container over pod over the kubelet default; Localhost under the profile root', () => {
  const sec = (c: Container, extra: Record<string, unknown> = {}, o: Partial<ContainerConfigOptions> = {}) => {
    const r = containerConfig(pod(c, extra), c, { ...base, ...o });
    return 'config' in r ? r.config.linux!.security_context!.seccomp : r.failure.message;
  };
  assert.deepEqual(sec(app(), {}, { seccompDefault: true }), { profile_type: 'RuntimeDefault' });
  assert.deepEqual(sec(app(), { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }), { profile_type: 'RuntimeDefault' });
  assert.deepEqual(
    sec(app({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } } }), { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
    { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/profiles/audit.json' },
  );
  assert.equal(sec(app({ securityContext: { seccompProfile: { type: 'Localhost' } } })), 'localhostProfile must be set if seccompProfile type is Localhost.');
  assert.deepEqual(sec(app({ securityContext: { seccompProfile: { type: 'Unconfined' } } }), {}, { seccompDefault: true }), { profile_type: 'Unconfined' });
});

test('runAsNonRoot is enforced against the effective user and the image user, with the kubelet messages', () => {
  const msg = (c: Container, podSc: Record<string, unknown>, imageUser?: ContainerConfigOptions['imageUser']) => {
    const r = containerConfig(pod(c, { securityContext: podSc }), c, { ...base, imageUser });
    return 'failure' in r ? `${r.failure.reason}: ${r.failure.message}` : r.config.linux!.security_context!.run_as_user ?? r.config.linux!.security_context!.run_as_username;
  };
  const c = app({ securityContext: {} });
  assert.equal(msg(c, { runAsNonRoot: true, runAsUser: 0 }), 'CreateContainerConfigError: container\'s runAsUser breaks non-root policy (pod: "sec_default(u-1)", container: app)');
  assert.equal(msg(c, { runAsNonRoot: true }), 'CreateContainerConfigError: container has runAsNonRoot and image will run as root (pod: "sec_default(u-1)", container: app)');
  assert.equal(msg(c, { runAsNonRoot: true }, { uid: 0 }), 'CreateContainerConfigError: container has runAsNonRoot and image will run as root (pod: "sec_default(u-1)", container: app)');
  assert.equal(msg(c, { runAsNonRoot: true }, { username: 'nobody' }), 'CreateContainerConfigError: container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "sec_default(u-1)", container: app)');
  assert.deepEqual(msg(c, { runAsNonRoot: true }, { uid: 65534 }), { value: '65534' });
  assert.deepEqual(msg(app({ securityContext: { runAsUser: 7 } }), { runAsNonRoot: true, runAsUser: 0 }), { value: '7' });
  assert.deepEqual(msg(c, {}), { value: '0' });
  assert.equal(msg(c, {}, { username: 'www' }), 'www');
});

test('privileged, Unmasked procMount and no allowPrivilegeEscalation', () => {
  const c = app({ securityContext: { privileged: true, procMount: 'Unmasked' } });
  const r = containerConfig(pod(c), c, base);
  assert.ok('config' in r);
  const sc = r.config.linux!.security_context!;
  assert.deepEqual([sc.privileged, sc.no_new_privs, sc.masked_paths, sc.readonly_paths], [true, false, [], []]);
});

async function tmp(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'k1s-mounts-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

test('container mounts: subPath/subPathExpr inside the volume, readOnly, propagation, /etc/hosts, termination log', async (t) => {
  const root = await tmp(t);
  const podDir = path.join(root, 'pods/u-1');
  const cmDir = path.join(podDir, 'volumes/kubernetes.io~configmap/cfg');
  const emptyDir = path.join(podDir, 'volumes/kubernetes.io~empty-dir/work');
  await fs.mkdir(cmDir, { recursive: true });
  await fs.mkdir(emptyDir, { recursive: true, mode: 0o777 });
  await fs.chmod(emptyDir, 0o777);
  await writePayloadAtomically(cmDir, new Map([['app.conf', { data: Buffer.from('x=1'), mode: 0o644 }]]));
  const volumes = new Map<string, VolumeMountSource>([
    ['cfg', { hostPath: cmDir, readOnly: true, selinuxRelabel: true, plugin: 'kubernetes.io~configmap' }],
    ['work', { hostPath: emptyDir, readOnly: false, selinuxRelabel: true, plugin: 'kubernetes.io~empty-dir' }],
  ]);
  const c = app({
    volumeMounts: [
      { name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' },
      { name: 'work', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)', mountPropagation: 'HostToContainer' },
      { name: 'work', mountPath: '/ro', readOnly: true, mountPropagation: 'Bidirectional' },
    ],
  });
  const p = pod(c, { hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo.remote', 'bar.remote'] }], hostname: 'sec', subdomain: 'grp' });
  const opts = { podDir, env: [{ name: 'POD_NAME', value: 'sec' }], podIPs: ['10.42.0.5'], clusterDomain: 'cluster.local' };
  const r = await containerMounts(p, c, volumes, opts);
  assert.ok('mounts' in r, JSON.stringify(r));
  const tlog = r.terminationMessageHostPath!;
  assert.match(tlog, new RegExp(`^${podDir}/containers/app/[0-9a-f]{8}$`));
  assert.equal((await fs.stat(tlog)).mode & 0o777, 0o666);
  const real = await fs.realpath(path.join(cmDir, 'app.conf'));
  assert.deepEqual(r.mounts, [
    { container_path: '/etc/app.conf', host_path: real, readonly: true, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE' },
    { container_path: '/logs', host_path: path.join(emptyDir, 'logs/sec'), readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
    { container_path: '/ro', host_path: emptyDir, readonly: true, selinux_relabel: false, propagation: 'PROPAGATION_BIDIRECTIONAL' },
    { container_path: '/etc/hosts', host_path: path.join(podDir, 'etc-hosts'), readonly: false, selinux_relabel: false },
    { container_path: '/dev/termination-log', host_path: tlog, selinux_relabel: false },
  ]);
  assert.equal((await fs.stat(path.join(emptyDir, 'logs/sec'))).mode & 0o777, 0o777, 'the subpath takes the volume mode');
  assert.equal(
    await fs.readFile(path.join(podDir, 'etc-hosts'), 'utf8'),
    '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\n' +
      'fe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n10.42.0.5\tsec.grp.default.svc.cluster.local\tsec\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.remote\tbar.remote\n',
  );

  // before the sandbox has an IP (and with its own /etc/hosts mount) the kubelet leaves /etc/hosts alone
  const noIP = await containerMounts(p, app({ terminationMessagePath: '' }), volumes, { ...opts, podIPs: [] });
  assert.ok('mounts' in noIP);
  assert.deepEqual(noIP.mounts, []);
});

test('container mount failures are CreateContainerConfigError with kube texts', async (t) => {
  const root = await tmp(t);
  const vol = path.join(root, 'vol');
  await fs.mkdir(vol);
  await fs.symlink('/etc', path.join(vol, 'escape'));
  const volumes = new Map<string, VolumeMountSource>([['v', { hostPath: vol, readOnly: false, selinuxRelabel: true, plugin: 'kubernetes.io~empty-dir' }]]);
  const fail = async (vm: Record<string, unknown>, env: { name: string; value: string }[] = []) => {
    const c = app({ volumeMounts: [{ name: 'v', mountPath: '/m', ...vm }] });
    const r = await containerMounts(pod(c), c, volumes, { podDir: path.join(root, 'pod'), env, podIPs: [], clusterDomain: 'cluster.local' });
    assert.ok('failure' in r, JSON.stringify(r));
    assert.equal(r.failure.reason, 'CreateContainerConfigError');
    return r.failure.message;
  };
  assert.equal(await fail({ name: 'nope' }), 'cannot find volume "nope" to mount into container "app"');
  assert.equal(await fail({ subPath: '/abs' }), 'error SubPath `/abs` must not be an absolute path');
  assert.equal(await fail({ subPath: 'a/../../b' }), "unable to provision SubPath `a/../../b`: must not contain '..'");
  assert.equal(await fail({ subPathExpr: '$(MISSING)' }), 'missing value for MISSING');
  assert.equal(await fail({ subPath: 'escape' }), 'failed to prepare subPath for volumeMount "v" of container "app"');
  assert.equal(await fail({ subPath: 'escape/inner' }), 'failed to prepare subPath for volumeMount "v" of container "app"');
  assert.equal(await fail({ mountPropagation: 'Sideways' }), 'invalid MountPropagation mode: "Sideways"');
  assert.equal(await fail({ recursiveReadOnly: 'Enabled' }), 'failed to resolve recursive read-only mode: volume "v" requires recursiveReadOnly to be "Disabled" if readOnly is false');
  assert.equal(
    await fail({ recursiveReadOnly: 'Enabled', readOnly: true }),
    'failed to resolve recursive read-only mode: volume "v" requires recursiveReadOnly to be "Enabled", but it is not supported by the runtime',
  );
  assert.equal(await fs.stat('/etc/inner').catch(() => 'absent'), 'absent');
});

test('hostNetwork pods get the node hosts file behind a header', async (t) => {
  const root = await tmp(t);
  const node = path.join(root, 'node-hosts');
  await fs.writeFile(node, '127.0.0.1 localhost\n10.0.0.2 node-a\n');
  const file = await writeEtcHosts({ podDir: root, podIPs: [], hostname: 'x', hostDomain: '', hostAliases: [{ ip: '1.2.3.4', hostnames: ['a'] }], hostNetwork: true, nodeHostsFile: node });
  assert.equal(await fs.readFile(file, 'utf8'), '# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n10.0.0.2 node-a\n\n# Entries added by HostAliases.\n1.2.3.4\ta\n');
});

// The builders end to end on real containerd: a (hostNetwork) pod whose sandbox and container configs, environment,
// volumes and mounts all come from src/kubelet's Pod → CRI functions, checked from inside the running container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { Containerd } from '../../../../src/runtime/containerd.js';
import { CriClient } from '../../../../src/runtime/cri-client.js';
import { resolveContainerEnv, type EnvContext } from '../../../../src/kubelet/pods/container-env.js';
import { containerConfig, containerMounts, prepareContainerLogDir } from '../../../../src/kubelet/cri/container-config.js';
import { podSandboxConfig } from '../../../../src/kubelet/cri/sandbox-config.js';
import { parseResolvConf, podDNSConfig } from '../../../../src/kubelet/cri/dns-config.js';
import { computeQOS, ensurePodCgroup, removePodCgroup } from '../../../../src/kubelet/cri/qos-cgroups.js';
import { mountsUnder, PodVolumes } from '../../../../src/kubelet/volumes/pod-volumes.js';
import { tempDir, writeTinyOciImage } from '../../runtime/fixtures.js';

const IMAGE = 'k1s.test/h3-tiny:1';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('a pod built by the kubelet builders runs on containerd with its env, volumes, hosts file, limits and user', async (t) => {
  const tmp = tempDir('k1s-h3-');
  const image = await writeTinyOciImage(tmp.dir, IMAGE);
  const c = new Containerd({ dataDir: path.join(tmp.dir, 'data'), sandboxImage: IMAGE, importOnStart: [image.file] });
  const cri = new CriClient(c.endpoint);
  const uid = `h3-${Date.now().toString(36)}`;
  const podsDir = path.join(tmp.dir, 'pods');
  const store = { cm: { 'demo/app-config': { 'app.conf': 'mode=real', GREETING: 'hello' } }, secret: { 'demo/creds': { password: 's3cr3t' } } };
  const ctx: EnvContext & { podsDir: string; requestToken: () => never } = {
    podsDir,
    getConfigMap: async (ns, n) => (store.cm[`${ns}/${n}` as keyof typeof store.cm] ? { data: store.cm[`${ns}/${n}` as keyof typeof store.cm] } : undefined),
    getSecret: async (ns, n) => {
      const s = store.secret[`${ns}/${n}` as keyof typeof store.secret];
      return s ? { data: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, b64(v)])) } : undefined;
    },
    listServices: async (ns) => (ns === 'default' ? [{ metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.43.0.1', ports: [{ name: 'https', port: 443 }] } }] : []),
    requestToken: () => {
      throw new Error('unused');
    },
    nodeAllocatable: { cpu: '2', memory: '4Gi' },
    hostIPs: ['10.0.0.2'],
  };
  const vols = new PodVolumes(ctx);
  const sandboxes: string[] = [];
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'real', namespace: 'demo', uid, labels: { app: 'real' } },
    spec: {
      hostNetwork: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      securityContext: { runAsUser: 1234, runAsGroup: 2345, fsGroup: 3456 },
      containers: [{
        name: 'main',
        image: IMAGE,
        command: ['/bin/sh', '-c'],
        args: ['echo "$(GREETING) from $(POD_NAME)" > /dev/termination-log; exec sleep 3600'],
        envFrom: [{ configMapRef: { name: 'app-config' } }],
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
          { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
        ],
        resources: { requests: { cpu: '100m', memory: '32Mi' }, limits: { cpu: '200m', memory: '48Mi' } },
        securityContext: { allowPrivilegeEscalation: false },
        volumeMounts: [
          { name: 'cfg', mountPath: '/etc/app' },
          { name: 'creds', mountPath: '/secrets' },
          { name: 'scratch', mountPath: '/scratch', subPathExpr: '$(POD_NAME)' },
        ],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      }],
      volumes: [
        { name: 'cfg', configMap: { name: 'app-config', items: [{ key: 'app.conf', path: 'app.conf' }] } },
        { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o440 } },
        { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '8Mi' } },
      ],
    },
  } as Pod;
  const qos = computeQOS(pod);
  t.after(async () => {
    for (const id of sandboxes) {
      await cri.stopPodSandbox({ pod_sandbox_id: id }).catch(() => {});
      await cri.removePodSandbox({ pod_sandbox_id: id }).catch(() => {});
    }
    cri.close();
    await c.stop();
    await vols.tearDown(uid).catch(() => undefined);
    await removePodCgroup(uid, qos);
    assert.deepEqual(await mountsUnder(tmp.dir), [], 'no mounts left');
    tmp.remove();
  });
  await c.start();

  // the order the PodRuntime follows
  const cgroupParent = await ensurePodCgroup(pod);
  const dns = podDNSConfig(pod, { clusterDNS: ['10.43.0.10'], clusterDomain: 'cluster.local', hostResolvConf: parseResolvConf('nameserver 1.1.1.1\n') });
  const sandboxConfig = podSandboxConfig(pod, { attempt: 0, dns: dns.config, podLogDir: c.paths.podLogDir, cgroupParent, clusterDomain: 'cluster.local' });
  const volumes = await vols.setUp(pod);
  assert.ok('mounts' in volumes, JSON.stringify(volumes));
  const { pod_sandbox_id: sandbox } = await cri.runPodSandbox({ config: sandboxConfig });
  sandboxes.push(sandbox);
  const container = pod.spec!.containers![0];
  const env = await resolveContainerEnv(ctx, pod, container, { podIPs: [] });
  assert.ok('env' in env, JSON.stringify(env));
  const mounts = await containerMounts(pod, container, volumes.mounts, { podDir: vols.podDir(uid), env: env.env, podIPs: [], clusterDomain: 'cluster.local' });
  assert.ok('mounts' in mounts, JSON.stringify(mounts));
  await prepareContainerLogDir(sandboxConfig.log_directory!, 'main');
  const cfg = containerConfig(pod, container, {
    attempt: 0, env: env.env, mounts: mounts.mounts, imageRef: IMAGE, memoryCapacity: 8 * 2 ** 30, seccompProfileRoot: path.join(tmp.dir, 'seccomp'),
  });
  assert.ok('config' in cfg, JSON.stringify(cfg));
  const { container_id: id } = await cri.createContainer({ pod_sandbox_id: sandbox, sandbox_config: sandboxConfig, config: cfg.config });
  await cri.startContainer({ container_id: id });

  const sh = async (script: string): Promise<string> => {
    const r = await cri.execSync({ container_id: id, cmd: ['/bin/sh', '-c', script], timeout: 10 });
    assert.equal(r.exit_code, 0, `${script}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };
  assert.equal(await sh('echo "$GREETING|$POD_NAME|$PASSWORD|$MEM_MI|$KUBERNETES_SERVICE_HOST"'), 'hello|real|s3cr3t|48|10.43.0.1\n');
  assert.equal(await sh('cat /etc/app/app.conf; cat /secrets/password'), 'mode=reals3cr3t');
  assert.equal(await sh('id -u; id -g; id -G'), '1234\n2345\n2345 3456\n');
  assert.equal(await sh('cat /sys/fs/cgroup/memory/memory.limit_in_bytes'), `${48 * 2 ** 20}\n`);
  assert.equal(await sh('cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.shares'), '20000\n102\n');
  assert.equal(await sh('grep NoNewPrivs /proc/self/status'), 'NoNewPrivs:\t1\n');
  // the emptyDir subPathExpr directory is writable by the pod's user through fsGroup
  assert.equal(await sh('echo x > /scratch/f && cat /scratch/f'), 'x\n');
  assert.equal(await fs.readFile(path.join(volumes.mounts.get('scratch')!.hostPath, 'real/f'), 'utf8'), 'x\n');
  assert.match(await sh('cat /etc/hosts'), /^# Kubernetes-managed hosts file \(host network\)\.\n/);
  assert.equal(await fs.readFile(mounts.terminationMessageHostPath!, 'utf8'), 'hello from real\n');
  // the pod cgroup carries the pod-level limit
  assert.equal((await fs.readFile(`/sys/fs/cgroup/memory${cgroupParent}/memory.limit_in_bytes`, 'utf8')).trim(), String(48 * 2 ** 20));

  // a configMap update reaches the running container
  store.cm['demo/app-config']['app.conf'] = 'mode=updated';
  assert.deepEqual((await vols.refresh(pod)).updated, ['cfg']);
  assert.equal(await sh('cat /etc/app/app.conf'), 'mode=updated');
});

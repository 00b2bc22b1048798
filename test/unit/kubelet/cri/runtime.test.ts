// CriRuntime on a real containerd: sandbox with a bridge IP, containers with env and termination messages, exit
// codes and OOMKilled read back by the relist, exec/http/tcp probes, adoption by a second runtime (a k1s restart),
// and removal leaving no cgroup, netns, pod dir or log dir behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { CriRuntime } from '../../../../src/kubelet/cri/runtime.js';
import { criStreams } from '../../../../src/kubelet/cri/streams.js';
import { defaultImagesDir } from '../../../../src/kubelet/node/agent.js';
import { writeCniConfig } from '../../../../src/network/cni-config.js';
import { cleanupNodeNetwork } from '../../../../src/network/host-cleanup.js';
import { Containerd } from '../../../../src/runtime/containerd.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const NET = { bridge: 'k1sut0', networkName: 'k1s-unit-cri', podCIDR: '10.88.7.0/24' };

let dir: string;
let containerd: Containerd;
let api: ControllerCluster;
let runtime: CriRuntime;
const runtimes: CriRuntime[] = [];

function newRuntime(): CriRuntime {
  const r = new CriRuntime({
    endpoint: containerd.endpoint,
    client: api.client,
    rootDir: path.join(dir, 'kubelet'),
    podLogDir: containerd.paths.podLogDir,
    nodeAllocatable: { cpu: '2', memory: '4Gi', pods: '110' },
    memoryCapacityBytes: 4 * 1024 ** 3,
    hostIPs: ['127.0.0.1'],
    dns: () => ({ clusterDNS: [], clusterDomain: 'cluster.local', hostResolvConf: { servers: ['1.1.1.1'], searches: [], options: [] } }),
    relistIntervalMs: 200,
  });
  runtimes.push(r);
  return r;
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'k1s-cri-rt-'));
  const images = defaultImagesDir();
  containerd = new Containerd({ dataDir: dir, sandboxImage: 'k1s.local/pause:3.10', importOnStart: [path.join(images, 'pause.tar'), path.join(images, 'busybox.tar')] });
  await containerd.start();
  await writeCniConfig({ confDir: containerd.paths.cniConfDir, podCIDR: NET.podCIDR, ipamDataDir: path.join(dir, 'ipam'), bridge: NET.bridge, networkName: NET.networkName });
  api = await controllerCluster([], { serviceAccounts: false });
  runtime = newRuntime();
  await runtime.start();
});

after(async () => {
  for (const r of runtimes) {
    for (const uid of r.knownPods()) r.removePod(uid);
    await r.whenRemoved();
    r.close();
  }
  await containerd?.stop();
  await cleanupNodeNetwork({ bridge: NET.bridge, networkName: NET.networkName, ipamDataDir: path.join(dir, 'ipam') }).catch(() => undefined);
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function createPod(name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<Pod> {
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 2, containers: containers.map((c) => ({ image: BUSYBOX, imagePullPolicy: 'IfNotPresent', ...c })), ...extra },
  };
  return (await api.client.resource('v1', 'pods').create('default', body as KObject)) as Pod;
}

async function until<T>(what: string, fn: () => T | undefined | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a pod runs: sandbox IP from the bridge, running container, probes, adoption after a restart, clean removal', async () => {
  const pod = await createPod('web', [{ name: 'web', command: ['sh', '-c', 'mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www'], ports: [{ containerPort: 8080, name: 'http' }] }]);
  const uid = pod.metadata.uid!;
  const t0 = performance.now();
  const sb = await runtime.ensureSandbox(pod);
  assert.ok(!('reason' in sb), JSON.stringify(sb));
  assert.match(sb.ips[0], /^10\.88\.7\.\d+$/);
  assert.equal(await runtime.startContainer(pod, pod.spec!.containers![0], { attempt: 0 }), undefined);
  const startMs = performance.now() - t0;
  const st = runtime.podStatus(uid)!;
  assert.equal(st.sandboxReady, true);
  assert.equal(st.containers[0].state, 'running');
  assert.equal(st.containers[0].attempt, 0);
  assert.match(st.containers[0].id, /^containerd:\/\/[0-9a-f]{64}$/);
  console.log(`sandbox + container started in ${Math.round(startMs)} ms`);

  const c = pod.spec!.containers![0];
  assert.equal(await runtime.probe(pod, c, 'liveness', { exec: { command: ['true'] } }), 'success');
  assert.equal(await runtime.probe(pod, c, 'liveness', { exec: { command: ['false'] } }), 'failure');
  let http = 'failure';
  for (let i = 0; i < 40 && http !== 'success'; i++) {
    http = await runtime.probe(pod, c, 'readiness', { httpGet: { port: 'http', path: '/index.html' }, timeoutSeconds: 1 });
    if (http !== 'success') await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(http, 'success');
  assert.equal(await runtime.probe(pod, c, 'readiness', { httpGet: { port: 8080, path: '/missing' } }), 'failure');
  assert.equal(await runtime.probe(pod, c, 'readiness', { tcpSocket: { port: 8080 } }), 'success');
  assert.equal(await runtime.probe(pod, c, 'readiness', { tcpSocket: { port: 8081 } }), 'failure');

  // the streaming side: log file, running state and the runtime's streaming URLs
  const streams = criStreams(runtime, () => pod);
  const logPath = await streams.containerLogPath(st.containers[0].id);
  assert.ok(logPath && existsSync(logPath), String(logPath));
  assert.equal(await streams.isContainerRunning(st.containers[0].id), true);
  assert.match(String(await streams.exec(pod, 'web', ['true'], { stdin: false, stdout: true, stderr: true, tty: false })), /^http:\/\/127\.0\.0\.1:\d+\/exec\//);
  assert.match(String(await streams.portForward(pod, [8080])), /^http:\/\/127\.0\.0\.1:\d+\/portforward\//);
  assert.deepEqual(await streams.exec(pod, 'nope', ['true'], { stdin: false, stdout: true, stderr: true, tty: false }), { code: 500, message: 'container not found ("nope")' });

  // a second runtime (k1s restarted) adopts the running pod without touching it
  const again = newRuntime();
  await again.start();
  const adopted = again.podStatus(uid)!;
  assert.equal(adopted.sandboxReady, true);
  assert.deepEqual(adopted.ips, sb.ips);
  assert.equal(adopted.containers[0].id, st.containers[0].id);
  assert.equal(adopted.containers[0].state, 'running');
  again.close();
  runtimes.splice(runtimes.indexOf(again), 1);

  const events: string[] = [];
  runtime.onPodEvent((u) => events.push(u));
  await runtime.killPod(pod, { gracePeriodSeconds: 1 });
  const killed = runtime.podStatus(uid)!;
  assert.equal(killed.sandboxReady, false);
  assert.equal(killed.containers[0].state, 'exited');
  assert.ok(events.includes(uid));
  runtime.removePod(uid);
  await runtime.whenRemoved();
  assert.equal(runtime.podStatus(uid), undefined);
  assert.equal(existsSync(path.join(dir, 'kubelet', 'pods', uid)), false);
  for (const h of ['memory', 'cpu', 'pids']) assert.equal(existsSync(`/sys/fs/cgroup/${h}/kubepods/besteffort/pod${uid}`), false, h);
  assert.equal(readdirSync(containerd.paths.podLogDir).some((d) => d.endsWith(uid)), false);
});

test('exit codes, termination messages and OOMKilled come back from the relist', async () => {
  const pod = await createPod('crash', [
    { name: 'msg', command: ['sh', '-c', 'echo -n bye > /dev/termination-log; exit 3'] },
    { name: 'logs', command: ['sh', '-c', 'echo from-the-log; exit 1'], terminationMessagePolicy: 'FallbackToLogsOnError' },
    { name: 'hog', command: ['sh', '-c', 'x=$(head -c 60000000 /dev/zero | tr "\\0" x); sleep 1'], resources: { limits: { memory: '20Mi' } } },
  ]);
  const uid = pod.metadata.uid!;
  assert.ok(!('reason' in (await runtime.ensureSandbox(pod))));
  for (const c of pod.spec!.containers!) assert.equal(await runtime.startContainer(pod, c, { attempt: 0 }), undefined);
  const byName = (n: string) => runtime.podStatus(uid)?.containers.find((c) => c.name === n && c.state === 'exited');
  const msg = await until('msg to exit', () => byName('msg'));
  assert.equal(msg.exitCode, 3);
  assert.equal(msg.reason, 'Error');
  assert.equal(msg.message, 'bye');
  const logs = await until('logs to exit', () => byName('logs'));
  assert.equal(logs.exitCode, 1);
  assert.equal(logs.message, 'from-the-log\n');
  const hog = await until('hog to be OOM killed', () => byName('hog'));
  assert.equal(hog.reason, 'OOMKilled');
  assert.equal(hog.exitCode, 137);
  // a restart is a new instance with the next attempt; the status lists it first
  assert.equal(await runtime.startContainer(pod, pod.spec!.containers![0], { attempt: 1 }), undefined);
  await until('attempt 1 to exit', () => runtime.podStatus(uid)?.containers.find((c) => c.name === 'msg' && c.attempt === 1 && c.state === 'exited'));
  assert.deepEqual(runtime.podStatus(uid)!.containers.filter((c) => c.name === 'msg').map((c) => c.attempt), [1, 0]);
  await runtime.killPod(pod, { gracePeriodSeconds: 0 });
  runtime.removePod(uid);
  await runtime.whenRemoved();
});

test('image failures are values: ErrImageNeverPull, then ErrImagePull and ImagePullBackOff', async () => {
  const pod = await createPod('noimage', [
    { name: 'never', image: 'k1s.local/absent:1', imagePullPolicy: 'Never' },
    { name: 'pull', image: 'k1s.invalid/absent:1', imagePullPolicy: 'IfNotPresent' },
  ]);
  assert.ok(!('reason' in (await runtime.ensureSandbox(pod))));
  const [never, pull] = pod.spec!.containers!;
  assert.deepEqual(await runtime.startContainer(pod, never, { attempt: 0 }), {
    reason: 'ErrImageNeverPull',
    message: 'Container image "k1s.local/absent:1" is not present with pull policy of Never',
  });
  const first = await runtime.startContainer(pod, pull, { attempt: 0 });
  assert.equal(first?.reason, 'ErrImagePull');
  // kube: the waiting message is the runtime's error; the back-off message carries it after the reason
  assert.match(first!.message, /^rpc error: code = \w+ desc = /);
  assert.deepEqual(await runtime.startContainer(pod, pull, { attempt: 0 }), { reason: 'ImagePullBackOff', message: `Back-off pulling image "k1s.invalid/absent:1": ErrImagePull: ${first!.message}` });
  await runtime.killPod(pod, { gracePeriodSeconds: 0 });
  runtime.removePod(pod.metadata.uid!);
  await runtime.whenRemoved();
});

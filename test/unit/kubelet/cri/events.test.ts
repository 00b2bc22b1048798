// The runtime-side events of a real node on a real containerd: image pulls (a real pull from a Registry v2 server on
// 127.0.0.1, failures against an unresolvable and an unreachable registry, back-off), lifecycle hook failures
// (FailedPostStartHook kills the container, FailedPreStopHook for exec and httpGet) and an ephemeral container
// that shares its target's process namespace.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '../../../../src/api/core/pod/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { CriRuntime } from '../../../../src/kubelet/cri/runtime.js';
import { tailCriLog } from '../../../../src/kubelet/cri/pod-state.js';
import { defaultImagesDir } from '../../../../src/kubelet/node/agent.js';
import type { RuntimeEvent } from '../../../../src/kubelet/runtime.js';
import { writeCniConfig } from '../../../../src/network/cni-config.js';
import { cleanupNodeNetwork } from '../../../../src/network/host-cleanup.js';
import { Containerd } from '../../../../src/runtime/containerd.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { startTestRegistry, type TestRegistry } from '../oci-registry.js';

const NET = { bridge: 'k1sut5', networkName: 'k1s-unit-events', podCIDR: '10.88.15.0/24' };

let dir: string;
let containerd: Containerd;
let api: ControllerCluster;
let runtime: CriRuntime;
let registry: TestRegistry;
/** busybox served by the test registry: this containerd has only the pause image, so the first pull downloads it */
let BUSYBOX: string;
const events: { pod: string; event: RuntimeEvent }[] = [];

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'k1s-cri-events-'));
  const images = defaultImagesDir();
  registry = await startTestRegistry(path.join(images, 'busybox.tar'));
  BUSYBOX = `${registry.host}/k1s/busybox:1.35`;
  containerd = new Containerd({ dataDir: dir, sandboxImage: 'k1s.local/pause:3.10', importOnStart: [path.join(images, 'pause.tar')] });
  await containerd.start();
  await writeCniConfig({ confDir: containerd.paths.cniConfDir, podCIDR: NET.podCIDR, ipamDataDir: path.join(dir, 'ipam'), bridge: NET.bridge, networkName: NET.networkName });
  api = await controllerCluster([], { serviceAccounts: false });
  runtime = new CriRuntime({
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
  runtime.onRuntimeEvent((pod, event) => events.push({ pod: pod.metadata.name!, event }));
  await runtime.start();
});

after(async () => {
  if (runtime) {
    for (const uid of runtime.knownPods()) runtime.removePod(uid);
    await runtime.whenRemoved();
    runtime.close();
  }
  await containerd?.stop();
  await cleanupNodeNetwork({ bridge: NET.bridge, networkName: NET.networkName, ipamDataDir: path.join(dir, 'ipam') }).catch(() => undefined);
  await api?.close();
  await registry?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function createPod(name: string, containers: Record<string, unknown>[]): Promise<Pod> {
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 2, containers: containers.map((c) => ({ image: BUSYBOX, imagePullPolicy: 'IfNotPresent', ...c })) },
  };
  const pod = (await api.client.resource('v1', 'pods').create('default', body as KObject)) as Pod;
  const sb = await runtime.ensureSandbox(pod);
  assert.ok(!('reason' in sb), JSON.stringify(sb));
  return pod;
}

async function removePod(pod: Pod): Promise<void> {
  await runtime.killPod(pod, { gracePeriodSeconds: 0 });
  runtime.removePod(pod.metadata.uid!);
  await runtime.whenRemoved();
}

const eventsOf = (pod: string) => events.filter((e) => e.pod === pod).map((e) => `${e.event.type} ${e.event.reason}: ${e.event.message}`);

async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a real pull from a registry: Pulling, then Pulled with its duration and size; IfNotPresent then finds it present', async () => {
  const image = BUSYBOX;
  const pod = await createPod('pulled', [
    { name: 'a', image, command: ['sleep', '3600'] },
    { name: 'b', image, command: ['sleep', '3600'] },
  ]);
  const [a, b] = pod.spec!.containers!;
  const t0 = performance.now();
  assert.equal(await runtime.startContainer(pod, a, { attempt: 0 }), undefined);
  const pullAndStartMs = Math.round(performance.now() - t0);
  assert.equal(await runtime.startContainer(pod, b, { attempt: 0 }), undefined);
  const got = eventsOf('pulled');
  assert.equal(got[0], `Normal Pulling: Pulling image "${image}"`);
  assert.match(got[1], new RegExp(`^Normal Pulled: Successfully pulled image "${image.replace(/[.]/g, '\\.')}" in (\\d+ms|[\\d.]+s) \\(\\1 including waiting\\)\\. Image size: [1-9]\\d* bytes\\.$`));
  assert.deepEqual(got.slice(2), [
    'Normal Created: Created container: a',
    'Normal Started: Started container a',
    `Normal Pulled: Container image "${image}" already present on machine`,
    'Normal Created: Created container: b',
    'Normal Started: Started container b',
  ]);
  assert.ok(registry.requests.some((r) => /^GET \/v2\/k1s\/busybox\/blobs\/sha256:/.test(r)), registry.requests.join('\n'));
  assert.ok(runtime.podStatus(pod.metadata.uid!)!.containers.every((c) => c.state === 'running'));
  console.log(`pull from the test registry + create + start: ${pullAndStartMs} ms; ${got[1]}`);
  await removePod(pod);
});

test('failed pulls: Failed with the runtime error, ErrImagePull, then BackOff and ImagePullBackOff carrying the error', async () => {
  const unresolvable = 'k1s.invalid/absent:1';
  const unreachable = '127.0.0.1:1/absent:1';
  const pod = await createPod('failing', [
    { name: 'dns', image: unresolvable },
    { name: 'refused', image: unreachable },
    { name: 'never', image: 'k1s.local/absent:1', imagePullPolicy: 'Never' },
  ]);
  const [dns, refused, never] = pod.spec!.containers!;
  for (const [c, image] of [[dns, unresolvable], [refused, unreachable]] as [Container, string][]) {
    const t0 = performance.now();
    const first = await runtime.startContainer(pod, c, { attempt: 0 });
    const ms = Math.round(performance.now() - t0);
    assert.equal(first?.reason, 'ErrImagePull');
    assert.match(first!.message, /^rpc error: code = Unknown desc = failed to pull and unpack image/);
    const second = await runtime.startContainer(pod, c, { attempt: 0 });
    assert.deepEqual(second, { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}": ErrImagePull: ${first!.message}` });
    const got = eventsOf('failing').filter((e) => e.includes(image));
    assert.deepEqual(got, [`Normal Pulling: Pulling image "${image}"`, `Warning Failed: Failed to pull image "${image}": ${first!.message}`, `Normal BackOff: Back-off pulling image "${image}"`]);
    console.log(`failed pull of ${image} took ${ms} ms: ${first!.message}`);
    assert.ok(ms < 10_000, `${ms} ms`);
  }
  assert.deepEqual(await runtime.startContainer(pod, never, { attempt: 0 }), { reason: 'ErrImageNeverPull', message: 'Container image "k1s.local/absent:1" is not present with pull policy of Never' });
  assert.ok(eventsOf('failing').includes('Warning ErrImageNeverPull: Container image "k1s.local/absent:1" is not present with pull policy of Never'));
  await removePod(pod);
});

test('a failing postStart hook: FailedPostStartHook with kube\'s message, Killing, and the container is stopped', async () => {
  const pod = await createPod('poststart', [
    { name: 'app', command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] } } } },
  ]);
  const failure = await runtime.startContainer(pod, pod.spec!.containers![0], { attempt: 0 });
  const msg = `Exec lifecycle hook ([sh -c echo out; echo err >&2; exit 3]) for Container "app" in Pod "poststart_default(${pod.metadata.uid})" failed - error: command 'sh -c echo out; echo err >&2; exit 3' exited with 3: err\n, message: "out\\nerr\\n"`;
  assert.deepEqual(failure, { reason: 'PostStartHookError', message: msg });
  assert.deepEqual(eventsOf('poststart'), [
    `Normal Pulled: Container image "${BUSYBOX}" already present on machine`,
    'Normal Created: Created container: app',
    'Normal Started: Started container app',
    `Warning FailedPostStartHook: ${msg}`,
    'Normal Killing: FailedPostStartHook',
  ]);
  const inst = runtime.podStatus(pod.metadata.uid!)!.containers[0];
  assert.equal(inst.state, 'exited');
  assert.equal(inst.exitCode, 137, 'sleep ignores SIGTERM as PID 1: killed after the 2 s grace period');
  await removePod(pod);
});

test('failing preStop hooks (exec and httpGet) record FailedPreStopHook and the container still stops', async () => {
  const pod = await createPod('prestop', [
    { name: 'exec', command: ['sleep', '3600'], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'exit 1'] } } } },
    { name: 'http', command: ['sleep', '3600'], lifecycle: { preStop: { httpGet: { port: 8099, path: '/quit' } } } },
  ]);
  for (const c of pod.spec!.containers!) assert.equal(await runtime.startContainer(pod, c, { attempt: 0 }), undefined);
  const t0 = performance.now();
  await Promise.all(pod.spec!.containers!.map((c) => runtime.killContainer(pod, c.name!, { gracePeriodSeconds: 1 })));
  const ms = performance.now() - t0;
  assert.deepEqual(eventsOf('prestop').filter((e) => e.includes('PreStop')), ['Warning FailedPreStopHook: PreStopHook failed', 'Warning FailedPreStopHook: PreStopHook failed']);
  assert.ok(runtime.podStatus(pod.metadata.uid!)!.containers.every((c) => c.state === 'exited'));
  assert.ok(ms < 5000, `${ms} ms`);
  await removePod(pod);
});

test('an ephemeral container with targetContainerName shares the target\'s process namespace', async () => {
  const pod = await createPod('debugged', [{ name: 'app', command: ['sleep', '3601'] }]);
  assert.equal(await runtime.startContainer(pod, pod.spec!.containers![0], { attempt: 0 }), undefined);
  const debug = { name: 'debugger', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', targetContainerName: 'app', command: ['sh', '-c', "tr '\\0' ' ' < /proc/1/cmdline; echo"] };
  const withDebug = { ...pod, spec: { ...pod.spec, ephemeralContainers: [debug] } } as Pod;
  assert.equal(await runtime.startContainer(withDebug, debug as Container, { attempt: 0 }), undefined);
  const inst = await until('the debugger to exit', () => runtime.state.get(pod.metadata.uid!)?.containers.find((c) => c.name === 'debugger' && c.state === 'exited'));
  assert.equal(inst.exitCode, 0);
  assert.equal((await tailCriLog(inst.logPath!, { lines: 10, bytes: 4096 })).trim(), 'sleep 3601');
  await removePod(pod);
});

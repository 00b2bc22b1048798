// The kubelet's remaining behaviours on a real node (`k1s server` with its own containerd), driven by kubectl 1.33:
// `kubectl debug` ephemeral containers sharing the target's processes, startup probes holding back readiness,
// image pull failures (ErrImagePull → ImagePullBackOff with kube's events) and lifecycle hook failures
// (FailedPostStartHook, FailedPreStopHook). Its own bridge and cluster CIDR, so it runs beside the other node tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupNodeNetwork } from '../../src/network/host-cleanup.js';
import { removeNodeServiceProxyRules } from '../../src/network/service-proxy/node.js';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const BRIDGE = 'k1skub0';
const ARGS = ['--cluster-cidr', '10.50.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.150.0.0/16', '--disable-ingress', '--disable-servicelb'];
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;
const started = Date.now();

const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { suite: 'kubelet-node' } }, spec: { terminationGracePeriodSeconds: 1, ...spec } });
const bb = (name: string, command: string, extra: Record<string, unknown> = {}) => ({ name, image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command], ...extra });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function podJson(name: string): Promise<any> {
  return JSON.parse(await k.ok(['get', 'pod', name, '-o', 'json']));
}

/** "type reason: message" of the events about one pod, oldest first */
async function podEvents(name: string): Promise<string[]> {
  const list = JSON.parse(await k.ok(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as { items: { type: string; reason: string; message: string; firstTimestamp?: string }[] };
  return list.items.map((e) => `${e.type} ${e.reason}: ${e.message}`);
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'k1s-e2e-kubelet-'));
  server = await startServer({ dataDir, agent: true, extraArgs: ARGS });
  k = kubectl(server, '1.33');
  const load = await run(process.execPath, [k1sBin, 'image', 'load', '--data-dir', dataDir, join(k1sBin, '..', '..', 'dist', 'images', 'busybox.tar')]);
  assert.equal(load.code, 0, load.stderr);
});

after(async () => {
  try {
    if (server) {
      await k.run(['delete', 'pods', '-l', 'suite=kubelet-node', '--wait=true', '--timeout=60s'], { timeoutMs: 90_000 });
      await until(async () => !existsSync(join(dataDir, 'agent', 'pods')) || readdirSync(join(dataDir, 'agent', 'pods')).length === 0, 'the kubelet to remove every pod', 60_000).catch(
        (e) => console.error(String(e)),
      );
      await server.stop();
    }
  } finally {
    await cleanupNodeNetwork({ ipamDataDir: join(dataDir, 'agent', 'cni', 'networks'), bridge: BRIDGE, networkName: `k1s-pod-network-${BRIDGE}` }).catch(() => undefined);
    await removeNodeServiceProxyRules({ bridge: BRIDGE }).catch(() => undefined);
    removeDir(dataDir);
    console.log(`kubelet-node e2e took ${Math.round((Date.now() - started) / 1000)} s`);
  }
});

test('kubectl debug --target: an ephemeral container runs once in the target\'s process namespace and reports its status', async () => {
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('target', { containers: [bb('app', 'exec sleep 3600')] })) });
  await k.ok(['wait', '--for=condition=Ready', 'pod/target', '--timeout=60s']);
  const t0 = performance.now();
  const out = await k.ok(['debug', 'target', `--image=${BUSYBOX}`, '--image-pull-policy=IfNotPresent', '--target=app', '--', 'sh', '-c', "tr '\\0' ' ' < /proc/1/cmdline; echo"]);
  assert.match(out, /Targeting container "app"/);
  const p = await podJson('target');
  const name: string = p.spec.ephemeralContainers[0].name;
  assert.match(name, /^debugger-[a-z0-9]{5}$/);
  assert.equal(p.spec.ephemeralContainers[0].targetContainerName, 'app');
  const st = await until(async () => {
    const s = (await podJson('target')).status.ephemeralContainerStatuses?.[0];
    return s?.state?.terminated ? s : undefined;
  }, 'the debugger to finish', 30_000);
  console.log(`kubectl debug → ephemeral container terminated: ${Math.round(performance.now() - t0)} ms`);
  assert.equal(st.name, name);
  assert.equal(st.state.terminated.exitCode, 0);
  assert.equal(st.state.terminated.reason, 'Completed');
  assert.equal(st.ready, false);
  assert.equal(st.restartCount, 0);
  assert.equal(st.started, undefined);
  assert.equal(st.image, BUSYBOX);
  assert.equal((await k.ok(['logs', 'target', '-c', name])).trim(), 'sleep 3600', 'PID 1 of the debugger is the target\'s process');
  // never restarted, and the pod itself is untouched
  await new Promise((r) => setTimeout(r, 2000));
  const after = await podJson('target');
  assert.equal(after.status.ephemeralContainerStatuses[0].containerID, st.containerID);
  assert.equal(after.status.phase, 'Running');
  assert.equal(after.status.containerStatuses[0].restartCount, 0);
  const events = await podEvents('target');
  for (const e of [`Normal Pulled: Container image "${BUSYBOX}" already present on machine`, `Normal Created: Created container: ${name}`, `Normal Started: Started container ${name}`]) {
    assert.ok(events.includes(e), `${e}\nin ${events.join('\n')}`);
  }
  // an exec into a live debugger works the same way (kubectl debug -it attaches to it)
  await k.ok(['debug', 'target', `--image=${BUSYBOX}`, '--image-pull-policy=IfNotPresent', '--target=app', '--container=live', '--', 'sleep', '3600']);
  await until(async () => (await podJson('target')).status.ephemeralContainerStatuses?.find((s: { name: string }) => s.name === 'live')?.state?.running, 'the live debugger to run', 30_000);
  assert.match(await k.ok(['exec', 'target', '-c', 'live', '--', 'ps']), /sleep 3600/);
});

test('a startup probe holds back readiness: not ready and never readiness-probed until it succeeds', async () => {
  const marker = 'test -f /tmp/startup-ok && date +%s >> /tmp/ready-runs || echo early >> /tmp/ready-runs';
  const spec = {
    containers: [
      bb('app', 'sleep 3; touch /tmp/started; exec sleep 3600', {
        startupProbe: { exec: { command: ['sh', '-c', 'test -f /tmp/started && touch /tmp/startup-ok'] }, periodSeconds: 1, failureThreshold: 30 },
        readinessProbe: { exec: { command: ['sh', '-c', marker] }, periodSeconds: 1 },
        livenessProbe: { exec: { command: ['sh', '-c', 'test -f /tmp/startup-ok || echo early-liveness >> /tmp/ready-runs'] }, periodSeconds: 1 },
      }),
    ],
  };
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('slowstart', spec)) });
  let sawRunningNotStarted = false;
  const t0 = Date.now();
  await until(async () => {
    const s = (await podJson('slowstart')).status.containerStatuses?.[0];
    if (s?.state?.running && !s.started) {
      sawRunningNotStarted = true;
      assert.equal(s.ready, false, 'not ready before the startup probe succeeded');
    }
    return s?.ready === true;
  }, 'the container to become ready', 40_000);
  console.log(`startup probe success → Ready after ${Date.now() - t0} ms from apply`);
  assert.ok(sawRunningNotStarted, 'the container was seen running but not started');
  const p = await podJson('slowstart');
  assert.equal(p.status.containerStatuses[0].started, true);
  const runs = await k.ok(['exec', 'slowstart', '--', 'cat', '/tmp/ready-runs']);
  assert.doesNotMatch(runs, /early/, 'no readiness or liveness probe ran before the startup probe succeeded');
  assert.match(runs, /^\d+$/m);
});

test('an unreachable registry: ErrImagePull, then ImagePullBackOff, with kube\'s events and STATUS column', async () => {
  const image = '127.0.0.1:1/k1s/absent:1';
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('nopull', { containers: [{ name: 'app', image, imagePullPolicy: 'IfNotPresent' }] })) });
  // ErrImagePull is the waiting reason only until the next sync (about a second on a loaded machine a poll can
  // miss it): the back-off state quotes it, and the events below prove it was reported
  let last = '';
  const backoff = await until(async () => {
    const st = (await podJson('nopull')).status;
    last = JSON.stringify(st);
    const w = st.containerStatuses?.[0]?.state?.waiting;
    return w?.reason === 'ImagePullBackOff' ? w : undefined;
  }, 'ImagePullBackOff', 30_000).catch((e) => assert.fail(`${e}: last status ${last}`));
  const prefix = `Back-off pulling image "${image}": ErrImagePull: `;
  assert.ok(backoff.message.startsWith(prefix), backoff.message);
  const waiting = { message: backoff.message.slice(prefix.length) };
  assert.match(waiting.message, /^rpc error: code = Unknown desc = failed to pull and unpack image "127\.0\.0\.1:1\/k1s\/absent:1": .*connect: connection refused$/);
  assert.match(await k.ok(['get', 'pod', 'nopull', '--no-headers']), /^nopull\s+0\/1\s+ImagePullBackOff\s+0\s/);
  const wanted = [
    `Normal Pulling: Pulling image "${image}"`,
    `Warning Failed: Failed to pull image "${image}": ${waiting.message}`,
    'Warning Failed: Error: ErrImagePull',
    `Normal BackOff: Back-off pulling image "${image}"`,
    'Warning Failed: Error: ImagePullBackOff',
  ];
  let events: string[] = [];
  // events are recorded asynchronously: the last ones may land a moment after the status
  await until(async () => (events = await podEvents('nopull')) && wanted.every((e) => events.includes(e)), 'the pull events', 15_000).catch(() => undefined);
  for (const e of wanted) assert.ok(events.includes(e), `${e}\nin ${events.join('\n')}`);
});

test('lifecycle hooks: a failing postStart kills the container (FailedPostStartHook), a failing preStop is reported', async () => {
  await k.ok(['apply', '-f', '-'], {
    input: JSON.stringify(
      pod('hooks', {
        restartPolicy: 'Never',
        containers: [bb('app', 'exec sleep 3600', { lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 2'] } } } })],
      }),
    ),
  });
  const p = await until(async () => {
    const j = await podJson('hooks');
    return j.status.containerStatuses?.[0]?.state?.terminated ? j : undefined;
  }, 'the hooked container to be killed', 30_000);
  assert.equal(p.status.phase, 'Failed');
  const events = await podEvents('hooks');
  const msg = `Exec lifecycle hook ([sh -c echo nope; exit 2]) for Container "app" in Pod "hooks_default(${p.metadata.uid})" failed - error: command 'sh -c echo nope; exit 2' exited with 2: , message: "nope\\n"`;
  assert.ok(events.includes(`Warning FailedPostStartHook: ${msg}`), events.join('\n'));
  assert.ok(events.includes('Normal Killing: FailedPostStartHook'), events.join('\n'));

  const stop = pod('prestop', { terminationGracePeriodSeconds: 3, containers: [bb('app', 'trap "exit 0" TERM; while true; do sleep 0.2; done', { lifecycle: { preStop: { httpGet: { port: 8099, path: '/shutdown' } } } })] });
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(stop) });
  await k.ok(['wait', '--for=condition=Ready', 'pod/prestop', '--timeout=60s']);
  await k.ok(['delete', 'pod', 'prestop', '--wait=true', '--timeout=30s']);
  const stopEvents = await podEvents('prestop');
  assert.ok(stopEvents.includes('Warning FailedPreStopHook: PreStopHook failed'), stopEvents.join('\n'));
  assert.ok(stopEvents.includes('Normal Killing: Stopping container app'), stopEvents.join('\n'));
});

// The prober workers of one pod: while a startup probe has not succeeded, readiness and liveness probes are not
// run at all and the container is neither started nor ready; once it succeeds the startup probe stops and the
// others begin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, Probe } from '../../../src/api/core/pod/types.js';
import { PodProber } from '../../../src/kubelet/pods/prober.js';
import type { PodRuntime, ProbeKind, ProbeResult, RuntimePodStatus } from '../../../src/kubelet/runtime.js';

interface Call {
  kind: ProbeKind;
  at: number;
}

/** only probe() matters to the prober; the rest of the runtime is never called */
function fakeRuntime(results: (kind: ProbeKind, n: number) => ProbeResult, calls: Call[]): PodRuntime {
  const counts = new Map<ProbeKind, number>();
  return {
    async probe(_pod: Pod, _c: Container, kind: ProbeKind, _p: Probe): Promise<ProbeResult> {
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      calls.push({ kind, at: Date.now() });
      return results(kind, n);
    },
  } as unknown as PodRuntime;
}

const period: Probe = { exec: { command: ['true'] }, periodSeconds: 1, failureThreshold: 30 };

function setup(startupSucceedsAt: number) {
  const calls: Call[] = [];
  let livenessKills = 0;
  let changes = 0;
  const runtime = fakeRuntime((kind, n) => (kind !== 'startup' || n >= startupSucceedsAt ? 'success' : 'failure'), calls);
  const prober = new PodProber({ runtime, onChange: () => changes++, onLivenessFailure: () => livenessKills++ });
  const c: Container = { name: 'app', image: 'busybox', startupProbe: period, readinessProbe: period, livenessProbe: period };
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [c] } } as Pod;
  const rs: RuntimePodStatus = { uid: 'u1', ips: ['10.0.0.2'], sandboxReady: true, containers: [{ name: 'app', id: 'containerd://a', attempt: 0, image: 'busybox', imageID: '', state: 'running', createdAt: Date.now(), startedAt: Date.now() }] };
  prober.sync(pod, rs);
  return { prober, calls, kills: () => livenessKills, changes: () => changes };
}

const waitFor = async (what: string, fn: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('readiness and liveness wait for the startup probe; the startup probe stops once it succeeded', async (t) => {
  const { prober, calls, kills } = setup(3);
  t.after(() => prober.stop());
  await waitFor('the second startup attempt', () => calls.filter((c) => c.kind === 'startup').length >= 2);
  assert.deepEqual(calls.map((c) => c.kind), ['startup', 'startup'], 'nothing else ran before startup succeeded');
  assert.deepEqual(prober.verdict('app'), { ready: false, started: false });
  await waitFor('readiness after startup', () => prober.verdict('app').ready === true, 6000);
  assert.deepEqual(prober.verdict('app'), { ready: true, started: true });
  await waitFor('a liveness run', () => calls.some((c) => c.kind === 'liveness'));
  const startupDone = calls.filter((c) => c.kind === 'startup')[2].at;
  assert.equal(calls.filter((c) => c.kind === 'startup').length, 3, 'no startup probe after its success');
  assert.ok(calls.filter((c) => c.kind !== 'startup').every((c) => c.at >= startupDone), JSON.stringify(calls));
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(calls.filter((c) => c.kind === 'startup').length, 3);
  assert.equal(kills(), 0);
});

test('a container whose startup probe never succeeds is never readiness- or liveness-probed', async (t) => {
  const { prober, calls, kills } = setup(Infinity);
  t.after(() => prober.stop());
  await waitFor('three startup attempts', () => calls.filter((c) => c.kind === 'startup').length >= 3, 5000);
  assert.ok(calls.every((c) => c.kind === 'startup'), JSON.stringify(calls));
  assert.deepEqual(prober.verdict('app'), { ready: false, started: false });
  assert.equal(kills(), 0);
});

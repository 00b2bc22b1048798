import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerStatus, Pod } from '../../../src/api/core/pod/types.js';
import { generatePodStatus, podPhase } from '../../../src/kubelet/pods/status.js';
import type { RuntimeContainer, RuntimePodStatus } from '../../../src/kubelet/runtime.js';
import { Backoff, goDuration } from '../../../src/kubelet/backoff.js';
import { parseDuration, shellScriptBehaviour, simBehaviour } from '../../../src/kubelet/simulated/stages.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const mkPod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'a', image: 'nginx' }], restartPolicy: 'Always', ...spec }, status: { qosClass: 'BestEffort', ...status } }) as Pod;
const running = (name: string): ContainerStatus => ({ name, state: { running: { startedAt: 'x' } }, ready: true });
const exited = (name: string, exitCode: number): ContainerStatus => ({ name, state: { terminated: { exitCode } } });
const backingOff = (name: string, exitCode: number): ContainerStatus => ({ name, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode } } });
const waiting = (name: string): ContainerStatus => ({ name, state: { waiting: { reason: 'ContainerCreating' } } });
const inst = (name: string, over: Partial<RuntimeContainer> = {}): RuntimeContainer => ({
  name, id: `containerd://${name}`, attempt: 0, image: 'docker.io/library/nginx:latest', imageID: 'sha', state: 'running', createdAt: T0, startedAt: T0, ...over,
});
const rt = (containers: RuntimeContainer[], sandboxReady = true): RuntimePodStatus => ({ uid: 'u1', ips: sandboxReady ? ['10.42.0.2'] : [], sandboxReady, containers });

describe('pod phase (getPhase)', () => {
  const two = [{ name: 'a' }, { name: 'b' }];
  const cases: [string, string, ContainerStatus[], { terminal?: boolean; init?: boolean }, string][] = [
    ['no statuses yet', 'Always', [], {}, 'Pending'],
    ['one waiting', 'Always', [running('a'), waiting('b')], {}, 'Pending'],
    ['all running', 'Always', [running('a'), running('b')], {}, 'Running'],
    ['one running one exited', 'Never', [running('a'), exited('b', 1)], {}, 'Running'],
    ['all exited 0, Never', 'Never', [exited('a', 0), exited('b', 0)], {}, 'Succeeded'],
    ['one failed, Never', 'Never', [exited('a', 0), exited('b', 2)], {}, 'Failed'],
    ['all exited 0, OnFailure', 'OnFailure', [exited('a', 0), exited('b', 0)], {}, 'Succeeded'],
    ['one failed restarting, OnFailure', 'OnFailure', [exited('a', 0), backingOff('b', 1)], {}, 'Running'],
    ['all exited, Always', 'Always', [exited('a', 0), exited('b', 0)], {}, 'Running'],
    ['back-off, Always', 'Always', [backingOff('a', 1), backingOff('b', 1)], {}, 'Running'],
    ['deleted, all 0', 'Always', [exited('a', 0), exited('b', 0)], { terminal: true }, 'Succeeded'],
    ['deleted, SIGTERM', 'Always', [exited('a', 143), exited('b', 0)], { terminal: true }, 'Failed'],
  ];
  for (const [what, policy, statuses, o, want] of cases) {
    it(`${what} (${policy}) → ${want}`, () => {
      assert.equal(podPhase(mkPod({ containers: two, restartPolicy: policy }), statuses, { podIsTerminal: !!o.terminal, podHasInitialized: true }), want);
    });
  }
  it('init containers: pending while one runs, Failed when one fails with Never', () => {
    const spec = { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] };
    assert.equal(podPhase(mkPod({ ...spec, restartPolicy: 'Never' }), [running('i'), waiting('a')], { podIsTerminal: false, podHasInitialized: false }), 'Pending');
    assert.equal(podPhase(mkPod({ ...spec, restartPolicy: 'Never' }), [exited('i', 1), waiting('a')], { podIsTerminal: false, podHasInitialized: false }), 'Failed');
    assert.equal(podPhase(mkPod({ ...spec, restartPolicy: 'Always' }), [backingOff('i', 1), waiting('a')], { podIsTerminal: false, podHasInitialized: false }), 'Pending');
  });
});

describe('generatePodStatus', () => {
  it('a running ready pod (golden)', () => {
    const st = generatePodStatus({ pod: mkPod({}), runtime: rt([inst('a')]), podIsTerminal: false, hostIPs: ['172.30.0.2'], now: T0 });
    const t = '2026-01-01T00:00:00Z';
    assert.deepEqual(st, {
      phase: 'Running',
      conditions: [
        { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: t },
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: t },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: t },
        { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: t },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: t },
      ],
      hostIP: '172.30.0.2',
      hostIPs: [{ ip: '172.30.0.2' }],
      podIP: '10.42.0.2',
      podIPs: [{ ip: '10.42.0.2' }],
      startTime: t,
      containerStatuses: [
        {
          name: 'a', state: { running: { startedAt: t } }, lastState: {}, ready: true, restartCount: 0,
          image: 'docker.io/library/nginx:latest', imageID: 'sha', containerID: 'containerd://a', started: true, resources: {},
        },
      ],
      qosClass: 'BestEffort',
    });
  });

  it('before the sandbox: ContainerCreating, Pending, ContainersNotReady', () => {
    const st = generatePodStatus({ pod: mkPod({ containers: [{ name: 'a' }, { name: 'b' }] }), podIsTerminal: false, hostIPs: ['1.2.3.4'], now: T0 });
    assert.equal(st.phase, 'Pending');
    assert.deepEqual(st.containerStatuses?.map((c) => c.state?.waiting?.reason), ['ContainerCreating', 'ContainerCreating']);
    const ready = st.conditions!.find((c) => c.type === 'Ready')!;
    assert.equal(ready.reason, 'ContainersNotReady');
    assert.equal(ready.message, 'containers with unready status: [a b]');
    assert.equal(st.conditions![0].status, 'False');
    assert.equal(st.podIP, undefined);
  });

  it('CrashLoopBackOff: waiting with the recorded reason, the last run as lastState', () => {
    const rs = rt([inst('a', { attempt: 1, state: 'exited', exitCode: 1, reason: 'Error', finishedAt: T0 + 1000, createdAt: T0 + 500 }), inst('a', { state: 'exited', exitCode: 1, reason: 'Error', finishedAt: T0 + 100 })]);
    const st = generatePodStatus({ pod: mkPod({}), runtime: rs, waiting: new Map([['a', { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=a pod=p_ns(u1)' }]]), podIsTerminal: false, hostIPs: [], now: T0 + 2000 });
    const cs = st.containerStatuses![0];
    assert.deepEqual(cs.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=a pod=p_ns(u1)' } });
    assert.equal(cs.lastState?.terminated?.exitCode, 1);
    assert.equal(cs.lastState?.terminated?.finishedAt, '2026-01-01T00:00:01Z');
    assert.equal(cs.restartCount, 1);
    assert.equal(st.phase, 'Running');
  });

  it('keeps lastTransitionTime and startTime while nothing changes; keeps other conditions and the IP of a stopped sandbox', () => {
    const pod = mkPod({ readinessGates: [{ conditionType: 'x/y' }] }, { conditions: [{ type: 'x/y', status: 'False' }] });
    const first = generatePodStatus({ pod, runtime: rt([inst('a')]), podIsTerminal: false, hostIPs: [], now: T0 });
    const ready = first.conditions!.find((c) => c.type === 'Ready')!;
    assert.equal(ready.reason, 'ReadinessGatesNotReady');
    assert.equal(ready.message, 'the status of pod readiness gate "x/y" is not "True", but False');
    assert.equal(first.conditions![0].type, 'x/y');
    const later = generatePodStatus({ pod, runtime: rt([inst('a', { state: 'exited', exitCode: 0, finishedAt: T0 + 5000 })], false), old: first, podIsTerminal: true, hostIPs: [], now: T0 + 60_000 });
    assert.equal(later.phase, 'Succeeded');
    assert.equal(later.startTime, first.startTime);
    assert.equal(later.podIP, '10.42.0.2');
    assert.equal(later.conditions!.find((c) => c.type === 'PodScheduled')!.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(later.conditions!.find((c) => c.type === 'PodReadyToStartContainers')!.lastTransitionTime, '2026-01-01T00:01:00Z');
    assert.equal(later.conditions!.find((c) => c.type === 'ContainersReady')!.reason, 'PodCompleted');
  });

  it('never leaves a terminal phase the API already shows', () => {
    const st = generatePodStatus({ pod: mkPod({}, { phase: 'Failed' }), runtime: rt([inst('a')]), podIsTerminal: false, hostIPs: [], now: T0 });
    assert.equal(st.phase, 'Failed');
  });
});

describe('simulated behaviour rules and back-off', () => {
  it('reads shell scripts, true/false and durations', () => {
    assert.deepEqual(shellScriptBehaviour(['sh', '-c', 'exit 3']), { exitAfterMs: 0, exitCode: 3 });
    assert.deepEqual(shellScriptBehaviour(['/bin/sh', '-c', 'sleep 1; exit 1']), { exitAfterMs: 1000, exitCode: 1 });
    assert.deepEqual(shellScriptBehaviour(['true']), { exitAfterMs: 0, exitCode: 0 });
    assert.deepEqual(shellScriptBehaviour(['false']), { exitAfterMs: 0, exitCode: 1 });
    assert.equal(shellScriptBehaviour(['sh', '-c', 'sleep infinity']), undefined);
    assert.equal(shellScriptBehaviour(['nginx', '-g', 'daemon off;']), undefined);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('2'), 2000);
    assert.equal(parseDuration('soon'), undefined);
  });

  it('annotations override the command', () => {
    const pod = mkPod({}, {});
    pod.metadata.annotations = { 'sim.k1s.dev/exit-after': '2s', 'sim.k1s.dev/exit-code': '1', 'sim.k1s.dev/stop-delay': '5s', 'sim.k1s.dev/ready': 'false' };
    assert.deepEqual(simBehaviour(pod, { name: 'a', command: ['sh', '-c', 'exit 0'] }), { exitAfterMs: 2000, exitCode: 1, stopDelayMs: 5000, ready: false });
    assert.deepEqual(simBehaviour(mkPod({}), { name: 'a' }), { exitAfterMs: undefined, exitCode: 0, stopDelayMs: 0, ready: true });
  });

  it('back-off doubles from 10s to a 5 minute cap and prints like Go', () => {
    let now = 0;
    const b = new Backoff({ initialMs: 10_000, maxMs: 300_000, now: () => now });
    assert.equal(b.isInBackOffSince('k', 0), false);
    const seen: string[] = [];
    for (let i = 0; i < 7; i++) {
      b.next('k', now);
      seen.push(goDuration(b.get('k')));
      assert.equal(b.isInBackOffSince('k', now), true);
      now += b.get('k');
      assert.equal(b.isInBackOffSince('k', now - b.get('k')), false);
    }
    assert.deepEqual(seen, ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
    now += 600_001;
    b.next('k', now);
    assert.equal(b.get('k'), 10_000, 'forgotten after twice the cap without failures');
  });
});

// The kubelet's status write (src/kubelet/pods/status-patch.ts): applied by the API server to the status it was made
// from, the strategic merge patch gives exactly the new status; entries others added meanwhile stay; a pod
// replaced under the same name is not touched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod, PodStatus } from '../../../src/api/core/pod/types.js';
import type { KObject } from '../../../src/api/types.js';
import { podStatusPatch } from '../../../src/kubelet/pods/status-patch.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { createPod, getPod, pod } from './helpers.js';

const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';
const cond = (type: string, status: string, extra: Record<string, unknown> = {}) => ({ type, status, lastProbeTime: null, lastTransitionTime: T1, ...extra });
const running = (name: string, restartCount = 0) => ({ name, ready: true, started: true, restartCount, image: 'docker.io/library/nginx:latest', imageID: '', lastState: {}, state: { running: { startedAt: T1 } } });

const pending: PodStatus = { phase: 'Pending', qosClass: 'BestEffort', conditions: [cond('PodScheduled', 'True')] };
const started: PodStatus = {
  phase: 'Running',
  qosClass: 'BestEffort',
  hostIP: '10.0.0.1',
  hostIPs: [{ ip: '10.0.0.1' }],
  podIP: '10.42.0.7',
  podIPs: [{ ip: '10.42.0.7' }, { ip: 'fd00::7' }],
  startTime: T1,
  conditions: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), cond('Ready', 'True'), cond('ContainersReady', 'True'), cond('PodScheduled', 'True')],
  containerStatuses: [running('app')],
};
// IPs merged by key: one gone, one new, the order changed
const moved: PodStatus = { ...started, hostIP: 'fd00::1', hostIPs: [{ ip: 'fd00::1' }, { ip: '10.0.0.2' }], podIP: 'fd00::7', podIPs: [{ ip: 'fd00::7' }] };
// conditions changed, reordered and dropped; an IP gone; a field gone; a container restarted
const failed: PodStatus = {
  phase: 'Failed',
  qosClass: 'BestEffort',
  reason: 'Evicted',
  message: 'The node was low on resource: memory.',
  hostIP: '10.0.0.1',
  hostIPs: [{ ip: '10.0.0.1' }],
  podIPs: [{ ip: 'fd00::7' }],
  startTime: T1,
  conditions: [
    cond('DisruptionTarget', 'True', { reason: 'TerminationByKubelet', message: 'evicted' }),
    cond('Ready', 'False', { lastTransitionTime: T2, reason: 'PodFailed' }),
    cond('PodScheduled', 'True'),
  ],
  containerStatuses: [{ ...running('app', 1), ready: false, state: { terminated: { exitCode: 137, reason: 'Error', startedAt: T1, finishedAt: T2 } } }],
};

describe('the kubelet status patch', () => {
  let c: ControllerCluster;
  before(async () => {
    c = await controllerCluster([]);
    await c.client.resource('v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as KObject).catch(() => undefined);
  });
  after(() => c?.close());

  const pods = () => c.client.resource('v1', 'pods');
  const write = (p: Pod, from: PodStatus | undefined, to: PodStatus) => pods().patch('default', p.metadata.name!, 'strategic', podStatusPatch(p.metadata.uid!, from, to), { subresource: 'status' }) as Promise<Pod>;

  it('takes the server from the status it was made from to exactly the new one', async () => {
    const p = await createPod(c, pod('steps'));
    let from = (await getPod(c, 'steps')).status;
    for (const to of [pending, started, moved, failed, started, pending]) {
      const r = await write(p, from, to);
      assert.deepEqual(r.status, to);
      assert.deepEqual((await getPod(c, 'steps')).status, to);
      from = to;
    }
  });

  it('carries only what changed, and nothing when nothing did', () => {
    assert.deepEqual(podStatusPatch('u', started, started), { metadata: { uid: 'u' }, status: {} });
    const next = { ...started, containerStatuses: [running('app', 1)] };
    assert.deepEqual(podStatusPatch('u', started, next).status, { containerStatuses: [running('app', 1)] });
    const ready = { ...started, conditions: started.conditions!.map((x) => (x.type === 'Ready' ? cond('Ready', 'False', { lastTransitionTime: T2 }) : x)) };
    assert.deepEqual(podStatusPatch('u', started, ready).status, {
      '$setElementOrder/conditions': started.conditions!.map((x) => ({ type: x.type })),
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: T2 }],
    });
    assert.deepEqual(podStatusPatch('u', failed, { ...failed, reason: undefined, message: undefined }).status, { reason: null, message: null });
  });

  it('keeps a condition someone else added since (a readiness gate)', async () => {
    const p = await createPod(c, pod('gated', { readinessGates: [{ conditionType: 'example.com/lb' }] }));
    const from = (await write(p, (await getPod(c, 'gated')).status, started)).status;
    const gate = cond('example.com/lb', 'True');
    await pods().update('default', { ...(await getPod(c, 'gated')), status: { ...from, conditions: [...from!.conditions!, gate] } } as KObject, { subresource: 'status' });
    const r = await write(p, from, { ...started, containerStatuses: [running('app', 1)] });
    assert.deepEqual(r.status!.conditions!.find((x) => x.type === 'example.com/lb'), gate);
    assert.deepEqual(r.status!.containerStatuses, [running('app', 1)]);
  });

  it('leaves a pod of the same name alone (UID precondition)', async () => {
    const old = await createPod(c, pod('again'));
    await pods().delete('default', 'again', { gracePeriodSeconds: 0 });
    await createPod(c, pod('again'));
    const before = await getPod(c, 'again');
    await assert.rejects(write(old, before.status, started), (e: unknown) => e instanceof StatusError && e.code === 409 && /UID in precondition/.test(e.message));
    assert.equal((await getPod(c, 'again')).metadata.resourceVersion, before.metadata.resourceVersion);
  });
});

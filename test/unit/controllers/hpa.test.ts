import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { horizontalPodAutoscalerController } from '../../../src/controllers/hpa/controller.js';
import { controllerCluster, markPodRunning, type ControllerCluster } from './harness.js';

interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
}

interface HpaStatus {
  currentReplicas?: number;
  desiredReplicas?: number;
  lastScaleTime?: string;
  currentMetrics?: Record<string, unknown>[];
  conditions?: Cond[];
}

const deployment = (replicas: number): KObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
    },
  }) as KObject;

const hpa = (spec: Record<string, unknown> = {}): KObject =>
  ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...spec,
    },
  }) as KObject;

/** `n` running, ready pods of the deployment, each container using `cpu`. */
async function runPods(c: ControllerCluster, n: number, cpu: string): Promise<void> {
  const pods = c.client.resource('v1', 'pods');
  for (let i = 0; i < n; i++) {
    const p = await pods.create('default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' }, annotations: { 'sim.k1s.dev/cpu-usage': cpu } },
      spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] },
    } as KObject);
    await markPodRunning(c.client, p, { nodeName: 'n1', readySince: Date.now() - 60_000 });
  }
}

async function setUsage(c: ControllerCluster, cpu: string): Promise<void> {
  const pods = c.client.resource('v1', 'pods');
  for (const p of (await pods.list('default', { labelSelector: 'app=web' })).items) {
    await pods.patch('default', p.metadata.name!, 'merge', { metadata: { annotations: { 'sim.k1s.dev/cpu-usage': cpu } } });
  }
}

/** Waits until both the target and the HPA's status show `n` replicas desired (the scale is written first). */
async function scaledTo(c: ControllerCluster, n: number): Promise<void> {
  await c.waitFor(`scale to ${n}`, async () => (await replicas(c)) === n && (await hpaStatus(c)).desiredReplicas === n);
}

async function replicas(c: ControllerCluster): Promise<number> {
  return ((await c.client.resource('apps/v1', 'deployments').get('default', 'web')).spec as { replicas: number }).replicas;
}

async function hpaStatus(c: ControllerCluster): Promise<HpaStatus> {
  return ((await c.client.resource('autoscaling/v2', 'horizontalpodautoscalers').get('default', 'web')).status ?? {}) as HpaStatus;
}

const cond = (st: HpaStatus, type: string): Cond | undefined => st.conditions?.find((x) => x.type === type);

async function events(c: ControllerCluster, reason: string): Promise<string[]> {
  const list = await c.client.resource('v1', 'events').list('default');
  return list.items.filter((e) => (e as { reason?: string }).reason === reason).map((e) => (e as { message?: string }).message ?? '');
}

async function cluster(clock: { now: number }, opts: { metrics?: boolean; syncPeriodMs?: number } = {}): Promise<ControllerCluster> {
  const c = await controllerCluster([horizontalPodAutoscalerController({ syncPeriodMs: opts.syncPeriodMs ?? 40 })], {
    now: () => clock.now,
    api: { metrics: opts.metrics !== false },
  });
  await c.client.resource('v1', 'nodes').create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } as KObject);
  return c;
}

describe('HorizontalPodAutoscaler controller', () => {
  it('scales a Deployment up through its scale subresource when pods use more cpu than the target', async () => {
    const clock = { now: Date.now() };
    // one sync only (a long period), so the status read below is the one of the first rescale
    const c = await cluster(clock, { syncPeriodMs: 60_000 });
    try {
      await c.client.resource('apps/v1', 'deployments').create('default', deployment(2));
      await runPods(c, 2, '250m');
      await c.client.resource('autoscaling/v2', 'horizontalpodautoscalers').create('default', hpa());
      // 250% of request against a 50% target asks for 10 pods; without spec.behavior a step is at most max(2×, 4)
      await scaledTo(c, 4);
      const st = await hpaStatus(c);
      assert.equal(st.currentReplicas, 2);
      assert.equal(st.desiredReplicas, 4);
      assert.ok(st.lastScaleTime);
      assert.deepEqual(st.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 250, averageValue: '250m' } } }]);
      assert.deepEqual(
        st.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
        [
          ['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 4'],
          ['ScalingActive', 'True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)'],
          ['ScalingLimited', 'True', 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'],
        ],
      );
      await c.waitFor('SuccessfulRescale event', async () => (await events(c, 'SuccessfulRescale')).includes('New size: 4; reason: cpu resource utilization (percentage of request) above target'));
    } finally {
      await c.close();
    }
  });

  it('keeps the size within the tolerance and scales down only after the stabilisation window', async () => {
    const clock = { now: Date.now() };
    const c = await cluster(clock);
    try {
      await c.client.resource('apps/v1', 'deployments').create('default', deployment(4));
      await runPods(c, 4, '54m'); // 54% of request: within 10% of the 50% target
      await c.client.resource('autoscaling/v2', 'horizontalpodautoscalers').create('default', hpa());
      await c.waitFor('status written', async () => cond(await hpaStatus(c), 'ScalingActive')?.status === 'True');
      let st = await hpaStatus(c);
      assert.equal(st.desiredReplicas, 4);
      assert.equal(cond(st, 'AbleToScale')?.reason, 'ReadyForNewScale');
      assert.equal(cond(st, 'ScalingLimited')?.reason, 'DesiredWithinRange');
      await setUsage(c, '10m');
      await c.waitFor('scale-down held back', async () => cond(await hpaStatus(c), 'AbleToScale')?.reason === 'ScaleDownStabilized');
      st = await hpaStatus(c);
      assert.equal(cond(st, 'AbleToScale')?.message, 'recent recommendations were higher than current one, applying the highest recent recommendation');
      assert.equal(await replicas(c), 4);
      clock.now += 301_000;
      await scaledTo(c, 1);
      st = await hpaStatus(c);
      assert.equal(st.desiredReplicas, 1);
      assert.deepEqual(st.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 10, averageValue: '10m' } } }]);
      await c.waitFor('event', async () => (await events(c, 'SuccessfulRescale')).includes('New size: 1; reason: All metrics below target'));
    } finally {
      await c.close();
    }
  });

  it('follows spec.behavior: default scale-up policies and a custom scale-down window with AverageValue targets', async () => {
    const clock = { now: Date.now() };
    const c = await cluster(clock);
    try {
      await c.client.resource('apps/v1', 'deployments').create('default', deployment(2));
      await runPods(c, 2, '500m');
      await c.client.resource('autoscaling/v2', 'horizontalpodautoscalers').create(
        'default',
        hpa({
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } } }],
          behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
        }),
      );
      // 500m against 100m per pod asks for 10; the default policies allow max(+4 pods, +100%) = 6 per 15 s
      await scaledTo(c, 6);
      let st = await hpaStatus(c);
      assert.deepEqual(st.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '500m' } } }]);
      assert.equal(cond(st, 'ScalingLimited')?.reason, 'ScaleUpLimit');
      assert.ok((await events(c, 'SuccessfulRescale')).includes('New size: 6; reason: cpu resource above target'));
      // 15 s later the policy period has passed: 6 → 10 (the maximum)
      clock.now += 16_000;
      await scaledTo(c, 10);
      st = await hpaStatus(c);
      assert.equal(cond(st, 'ScalingLimited')?.reason, 'DesiredWithinRange');
      // load drops: two pods at 25m average → 1 replica wanted, held for the 60 s window
      await setUsage(c, '25m');
      await c.waitFor('stabilised', async () => cond(await hpaStatus(c), 'AbleToScale')?.reason === 'ScaleDownStabilized');
      assert.equal(await replicas(c), 10);
      clock.now += 61_000;
      await scaledTo(c, 1);
    } finally {
      await c.close();
    }
  });

  it('reports missing metrics and targets as conditions and events', async () => {
    const clock = { now: Date.now() };
    const c = await cluster(clock, { metrics: false });
    try {
      const hpas = c.client.resource('autoscaling/v2', 'horizontalpodautoscalers');
      await hpas.create('default', hpa());
      await c.waitFor('FailedGetScale', async () => cond(await hpaStatus(c), 'AbleToScale')?.reason === 'FailedGetScale');
      assert.equal(cond(await hpaStatus(c), 'AbleToScale')?.message, 'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found');
      await c.client.resource('apps/v1', 'deployments').create('default', deployment(2));
      await runPods(c, 2, '250m');
      await c.waitFor('FailedGetResourceMetric', async () => cond(await hpaStatus(c), 'ScalingActive')?.reason === 'FailedGetResourceMetric');
      const st = await hpaStatus(c);
      assert.equal(
        cond(st, 'ScalingActive')?.message,
        'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)',
      );
      assert.equal(cond(st, 'AbleToScale')?.reason, 'SucceededGetScale');
      assert.equal(st.currentReplicas, 2);
      await c.waitFor('FailedComputeMetricsReplicas event', async () =>
        (await events(c, 'FailedComputeMetricsReplicas')).some((m) => m.startsWith('invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization:')),
      );
      assert.equal(await replicas(c), 2);
    } finally {
      await c.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { autoscalingResources } from '../../../../src/api/autoscaling/index.js';
import { BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, hpaV1ToV2, hpaV2ToV1, METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION } from '../../../../src/api/autoscaling/hpa/convert.js';
import { formatHPAMetrics, hpaV2Resource, type HPA } from '../../../../src/api/autoscaling/hpa/resource.js';
import { hpaV1Resource } from '../../../../src/api/autoscaling/hpa/v1.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, rejection, type Cluster } from '../batch/helpers.js';

const st = hpaV2Resource.strategy;
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

function hpa(spec: Record<string, unknown>): HPA {
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec } as HPA;
}
function created(o: HPA): HPA {
  const c = structuredClone(o);
  st.defaults!(c);
  st.prepareForCreate!(c);
  return c;
}
const createErrors = (o: HPA) => st.validate!(created(o)).map(String);

describe('HPA v2 defaults and validation', () => {
  it('defaults minReplicas, the CPU metric and an empty status', () => {
    const o = created(hpa({ scaleTargetRef: ref, maxReplicas: 5 }));
    assert.equal(o.spec!.minReplicas, 1);
    assert.deepEqual(o.spec!.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.deepEqual(o.status, { desiredReplicas: 0 });
    assert.deepEqual(st.validate!(o), []);
  });

  it('fills unset behavior rules from the defaults', () => {
    const o = created(hpa({ scaleTargetRef: ref, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }));
    assert.deepEqual(o.spec!.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], stabilizationWindowSeconds: 60 },
    });
  });

  it('reports spec errors with Kubernetes messages', () => {
    assert.deepEqual(createErrors(hpa({ scaleTargetRef: { kind: 'Deployment' }, minReplicas: 3, maxReplicas: 2 })), [
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
      'spec.scaleTargetRef.name: Required value',
    ]);
    assert.deepEqual(createErrors(hpa({ scaleTargetRef: ref, minReplicas: 0, maxReplicas: 0 })), [
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.maxReplicas: Invalid value: 0: must be greater than 0',
      'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
    ]);
  });

  it('validates metric sources and targets', () => {
    const errs = createErrors(hpa({
      scaleTargetRef: ref,
      maxReplicas: 3,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } },
        { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '-1' } } },
        { type: 'Foo' },
      ],
    }));
    assert.deepEqual(errs, [
      'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
      'spec.metrics[1].pods.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}: must be positive',
      'spec.metrics[2].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[2].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]);
  });

  it('validates scaling rules', () => {
    const errs = createErrors(hpa({ scaleTargetRef: ref, maxReplicas: 3, behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Most', policies: [{ type: 'Pods', value: 0, periodSeconds: 2000 }] } } }));
    assert.deepEqual(errs, [
      'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
    ]);
  });

  it('drops the alpha tolerance field unless already in use', () => {
    const o = created(hpa({ scaleTargetRef: ref, maxReplicas: 3, behavior: { scaleUp: { tolerance: '0.1' } } }));
    assert.equal((o.spec!.behavior as { scaleUp: Record<string, unknown> }).scaleUp.tolerance, undefined);
  });
});

describe('HPA v1 <-> v2 conversion', () => {
  const stored = created(hpa({
    scaleTargetRef: ref,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
  }));
  stored.status = {
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40, averageValue: '100m' } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ReadyForNewScale' }],
  };

  it('keeps the CPU target in v1 and the rest in annotations', () => {
    const v1 = hpaV2ToV1(stored);
    assert.deepEqual(v1.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    assert.deepEqual(v1.status, { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 40 });
    const ann = v1.metadata.annotations!;
    assert.equal(ann[METRIC_SPECS_ANNOTATION], '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k"}}]');
    assert.equal(ann[METRIC_STATUSES_ANNOTATION], '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"100m"}}]');
    assert.equal(ann[CONDITIONS_ANNOTATION], '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"ReadyForNewScale"}]');
    assert.equal(
      ann[BEHAVIOR_ANNOTATION],
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":30,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}',
    );
  });

  it('round-trips through v1 without losing anything', () => {
    const back = hpaV1ToV2(hpaV2ToV1(stored));
    assert.deepEqual(back.spec, {
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 10,
      behavior: stored.spec!.behavior,
      metrics: [stored.spec!.metrics![1 as never], stored.spec!.metrics![0 as never]],
    });
    assert.deepEqual(back.status, stored.status);
    assert.equal(back.metadata.annotations, undefined);
  });
});

describe('HPA table', () => {
  it('prints NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE', () => {
    const o = created(hpa({ scaleTargetRef: ref, maxReplicas: 5 }));
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T00:00:30Z');
    assert.deepEqual(hpaV2Resource.columns.map((c) => c.name), ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    assert.deepEqual(hpaV2Resource.columns.map((c) => c.cell(o, { now })), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0, '30s']);
    assert.equal(
      formatHPAMetrics(
        [
          { type: 'Pods', pods: { target: { averageValue: '1k' } } },
          { type: 'External', external: { target: { value: '10' } } },
          { type: 'Object', object: { target: { averageValue: '5' } } },
        ],
        [{ type: 'Pods', pods: { current: { averageValue: '500' } } }],
      ),
      '500/1k, <unknown>/10 + 1 more...',
    );
  });
});

describe('HPA through the API (v2 and v1 share objects)', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster(autoscalingResources);
  });
  after(async () => c.close());

  it('creates via v1 and reads via v2 and back', async () => {
    const v1 = c.client.resource('autoscaling/v1', 'horizontalpodautoscalers');
    const v2 = c.client.resource('autoscaling/v2', 'horizontalpodautoscalers');
    const made = await v1.create('default', {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
    } as KObject);
    assert.deepEqual(made.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 80 });
    assert.deepEqual(made.status, { currentReplicas: 0, desiredReplicas: 0 });
    const asV2 = (await v2.get('default', 'web')) as HPA;
    assert.equal(asV2.apiVersion, 'autoscaling/v2');
    assert.deepEqual(asV2.spec!.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    asV2.spec!.metrics = [...(asV2.spec!.metrics as unknown[]), { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '2' } } }];
    await v2.update('default', asV2);
    const again = await v1.get('default', 'web');
    assert.equal(again.metadata.annotations![METRIC_SPECS_ANNOTATION], '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"2"}}]');
    // A v1 update that echoes the annotation keeps the v2-only metric.
    (again.spec as Record<string, unknown>).maxReplicas = 6;
    await v1.update('default', again);
    const final = (await v2.get('default', 'web')) as HPA;
    assert.equal(final.spec!.maxReplicas, 6);
    assert.equal((final.spec!.metrics as unknown[]).length, 2);
    assert.equal(final.metadata.annotations, undefined);
  });

  it('rejects invalid objects through either version with the internal paths', async () => {
    const v1 = c.client.resource('autoscaling/v1', 'horizontalpodautoscalers');
    const err = await rejection(v1.create('default', {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2, targetCPUUtilizationPercentage: 0 },
    } as KObject));
    assert.equal(err.code, 422);
    assert.equal(err.message, 'HorizontalPodAutoscaler.autoscaling "bad" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0');
  });

  it('writes status through either version and keeps it on spec updates', async () => {
    const v1 = c.client.resource('autoscaling/v1', 'horizontalpodautoscalers');
    const v2 = c.client.resource('autoscaling/v2', 'horizontalpodautoscalers');
    const cur = (await v2.get('default', 'web')) as HPA;
    cur.status = {
      currentReplicas: 3,
      desiredReplicas: 3,
      conditions: [{ type: 'ScalingActive', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ValidMetricFound' }],
    };
    await v2.update('default', cur, { subresource: 'status' });
    const asV1 = await v1.get('default', 'web');
    assert.deepEqual(asV1.status, { currentReplicas: 3, desiredReplicas: 3 });
    assert.match(asV1.metadata.annotations![CONDITIONS_ANNOTATION], /"type":"ScalingActive"/);
    (asV1.status as Record<string, unknown>).currentCPUUtilizationPercentage = 55;
    await v1.update('default', asV1, { subresource: 'status' });
    const after = (await v2.get('default', 'web')) as HPA;
    assert.deepEqual(after.status!.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 55 } } }]);
    assert.equal((after.status!.conditions as unknown[]).length, 1);
    after.spec!.maxReplicas = 7;
    after.status = {};
    const up = (await v2.update('default', after)) as HPA;
    assert.equal(up.status!.currentReplicas, 3);
    const bad = structuredClone(up);
    bad.status = { desiredReplicas: -1 };
    const err = await rejection(v2.update('default', bad, { subresource: 'status' }));
    assert.equal(err.message, 'HorizontalPodAutoscaler.autoscaling "web" is invalid: status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('lists the same objects from both versions', async () => {
    const v1 = await c.client.resource('autoscaling/v1', 'horizontalpodautoscalers').list('default');
    const v2 = await c.client.resource('autoscaling/v2', 'horizontalpodautoscalers').list('default');
    assert.deepEqual(v1.items.map((i) => i.metadata.name), v2.items.map((i) => i.metadata.name));
    assert.equal(hpaV1Resource.storedAs?.plural, 'horizontalpodautoscalers');
  });
});

// The HorizontalPodAutoscaler controller (pkg/controller/podautoscaler/horizontal.go), autoscaling/v2: every sync
// period it reads the target's scale, proposes a size per metric (the largest wins), stabilises and rate-limits
// it, writes the scale subresource when the size changes, and records conditions, metrics and events as kube does.
import type { KObject } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { parseLabelSelector } from '../../machinery/labels.js';
import { CRD_API, customResourceOf } from '../framework/custom-resources.js';
import { clone, deepEqual, rfc3339 } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';
import { ScalingHistory, type Behavior, type Condition } from './behavior.js';
import { computeMetric, type MetricSpec, type MetricStatus } from './metrics.js';

export interface HorizontalPodAutoscalerOptions {
  /** --horizontal-pod-autoscaler-sync-period */
  syncPeriodMs?: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization */
  downscaleStabilizationMs?: number;
}

/** Plurals of the kinds with a scale subresource (the RESTMapper's answer for the built-ins). */
const SCALE_PLURALS: Record<string, string> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  StatefulSet: 'statefulsets',
  ReplicationController: 'replicationcontrollers',
};

interface HPAObject extends KObject {
  spec?: {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: MetricSpec[];
    behavior?: Behavior;
  };
  status?: {
    currentReplicas?: number;
    desiredReplicas?: number;
    lastScaleTime?: string;
    currentMetrics?: MetricStatus[];
    conditions?: (Condition & { lastTransitionTime?: string })[];
  };
}

/** The target's autoscaling/v1 Scale, read from its scale subresource as kube's scale client does. */
interface Target extends KObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

export class HorizontalPodAutoscalerController extends Reconciler {
  readonly name = 'horizontalpodautoscaling';
  private hpas!: Informer;
  private pods!: Informer;
  private crds!: Informer;
  private readonly history: ScalingHistory;
  private readonly events: EventRecorder;
  private readonly syncPeriodMs: number;

  constructor(ctx: ControllerContext, opts: HorizontalPodAutoscalerOptions = {}) {
    super(ctx);
    this.syncPeriodMs = opts.syncPeriodMs ?? 15_000;
    this.history = new ScalingHistory(opts.downscaleStabilizationMs ?? 5 * 60_000);
    this.events = ctx.recorder('horizontal-pod-autoscaler');
  }

  setup(): void {
    this.hpas = this.informer('autoscaling/v2', 'horizontalpodautoscalers');
    this.pods = this.informer('v1', 'pods');
    this.crds = this.informer(...CRD_API);
    this.hpas.addHandler({
      add: (o) => this.enqueueObject(o),
      // status writes come back as updates: only spec changes need an early sync
      update: (old, o) => {
        if (!deepEqual((old as HPAObject).spec, (o as HPAObject).spec)) this.enqueueObject(o);
      },
      delete: (o) => this.history.forget(`${o.metadata.namespace}/${o.metadata.name}`),
    });
  }

  async reconcile(key: string): Promise<{ requeueAfterMs: number } | void> {
    const cached = this.hpas.getByKey(key) as HPAObject | undefined;
    if (!cached) {
      this.history.forget(key);
      return;
    }
    const hpa = clone(cached);
    const original = clone(hpa.status ?? {});
    const now = this.ctx.now();
    const ns = hpa.metadata.namespace ?? '';
    const status = (hpa.status ??= {});
    const set = (c: Condition) => setCondition(status, c, now);
    const requeue = { requeueAfterMs: this.syncPeriodMs };
    const ref = hpa.spec?.scaleTargetRef ?? {};
    const apiVersion = ref.apiVersion ?? '';
    const plural = SCALE_PLURALS[ref.kind ?? ''] ?? this.customPlural(apiVersion, ref.kind ?? '') ?? `${(ref.kind ?? '').toLowerCase()}s`;

    let target: Target;
    try {
      target = (await this.ctx.client.resource(apiVersion, plural).get(ns, ref.name ?? '', { subresource: 'scale' })) as Target;
    } catch (e) {
      const msg = (e as Error).message;
      this.events.event(hpa, 'Warning', 'FailedGetScale', msg);
      set({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${msg}` });
      await this.writeStatus(hpa, original);
      return requeue;
    }
    set({ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" });
    const current = target.spec?.replicas ?? 0;
    this.history.recordInitial(key, current, now);
    const min = hpa.spec?.minReplicas ?? 1;
    const max = hpa.spec?.maxReplicas ?? 0;

    let desired = 0;
    let reason = '';
    let rescale = true;
    let statuses: MetricStatus[] | undefined;
    if (current === 0 && min !== 0) {
      desired = 0;
      rescale = false;
      set({ type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
    } else if (current > max) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = max;
    } else if (current < min) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = min;
    } else {
      const proposal = await this.proposeReplicas(hpa, target, current, set, now);
      statuses = proposal.statuses;
      if (proposal.replicas === -1) {
        setCurrent(status, current, statuses);
        await this.writeStatus(hpa, original);
        this.events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', proposal.error ?? '');
        return requeue;
      }
      let metricName = '';
      if (proposal.replicas > desired) {
        desired = proposal.replicas;
        metricName = proposal.metric;
      }
      if (desired > current) reason = `${metricName} above target`;
      if (desired < current) reason = 'All metrics below target';
      const normalized = this.history.normalize({ key, current, desired, min, max, now, behavior: hpa.spec?.behavior });
      for (const c of normalized.conditions) set(c);
      desired = normalized.replicas;
      rescale = desired !== current;
    }

    if (rescale) {
      try {
        const scale = {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: target.metadata.name, namespace: ns, resourceVersion: target.metadata.resourceVersion },
          spec: { replicas: desired },
        } as KObject;
        await this.ctx.client.resource(apiVersion, plural).update(ns, scale, { subresource: 'scale' });
      } catch (e) {
        const msg = (e as Error).message;
        this.events.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${msg}`);
        set({ type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${msg}` });
        setCurrent(status, current, statuses);
        await this.writeStatus(hpa, original);
        return requeue;
      }
      set({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` });
      this.events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      this.history.recordScale(key, hpa.spec?.behavior, current, desired, now);
      this.ctx.log(`k1s: horizontalpodautoscaling: successful rescale of ${key}, old size: ${current}, new size: ${desired}, reason: ${reason}`);
    } else {
      desired = current;
    }
    hpa.status = {
      currentReplicas: current,
      desiredReplicas: desired,
      ...(rescale ? { lastScaleTime: rfc3339(now) } : status.lastScaleTime ? { lastScaleTime: status.lastScaleTime } : {}),
      ...(statuses?.length ? { currentMetrics: statuses } : {}),
      ...(status.conditions ? { conditions: status.conditions } : {}),
    };
    await this.writeStatus(hpa, original);
    return requeue;
  }

  /** The plural of a custom kind, from the CRDs (the RESTMapper's answer for custom resources). */
  private customPlural(apiVersion: string, kind: string): string | undefined {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    for (const o of this.crds.list()) {
      const r = customResourceOf(o);
      if (r && r.kind === kind && r.apiVersion.startsWith(`${group}/`)) return r.plural;
    }
    return undefined;
  }

  /** computeReplicasForMetrics: the largest proposal over valid metrics, or -1 with the first error. */
  private async proposeReplicas(
    hpa: HPAObject,
    target: Target,
    specReplicas: number,
    set: (c: Condition) => void,
    now: number,
  ): Promise<{ replicas: number; metric: string; statuses?: MetricStatus[]; error?: string }> {
    const selector = selectorOf(target);
    if (!selector) {
      this.events.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      set({ type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" });
      return { replicas: -1, metric: '', error: 'selector is required' };
    }
    const ns = hpa.metadata.namespace ?? '';
    const parsed = parseLabelSelector(selector);
    const pods = this.pods.list(ns).filter((p) => parsed.matches(p.metadata.labels));
    const specs = hpa.spec?.metrics ?? [];
    const statuses: MetricStatus[] = [];
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let firstError = '';
    let firstCondition: Condition | undefined;
    for (const spec of specs) {
      const out = await computeMetric({ client: this.ctx.client, namespace: ns, selector, pods, specReplicas, now }, spec);
      statuses.push(out.ok ? out.status : { type: '' });
      if (!out.ok) {
        this.events.event(hpa, 'Warning', out.reason, out.message);
        if (invalid === 0) {
          firstError = out.error;
          firstCondition = { type: 'ScalingActive', status: 'False', reason: out.reason, message: `the HPA was unable to compute the replica count: ${out.message}` };
        }
        invalid++;
        continue;
      }
      if (replicas === 0 || out.replicas > replicas) {
        replicas = out.replicas;
        metric = out.name;
      }
    }
    const error = invalid ? `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError}` : undefined;
    if (invalid >= specs.length || (invalid > 0 && replicas < specReplicas)) {
      if (firstCondition) set(firstCondition);
      return { replicas: -1, metric: '', statuses, error };
    }
    set({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metric}` });
    return { replicas, metric, statuses, error };
  }

  /** updateStatusIfNeeded. */
  private async writeStatus(hpa: HPAObject, original: unknown): Promise<void> {
    if (deepEqual(hpa.status, original)) return;
    try {
      await this.ctx.client.resource('autoscaling/v2', 'horizontalpodautoscalers').update(hpa.metadata.namespace ?? '', hpa, { subresource: 'status' });
    } catch (e) {
      this.events.event(hpa, 'Warning', 'FailedUpdateStatus', (e as Error).message);
      throw e;
    }
  }
}

/** The scale's status.selector: the target's label selector as a string. */
function selectorOf(target: Target): string | undefined {
  return target.status?.selector || undefined;
}

function setCondition(status: NonNullable<HPAObject['status']>, c: Condition, now: number): void {
  const list = (status.conditions ??= []);
  const existing = list.find((x) => x.type === c.type);
  if (!existing) {
    list.push({ type: c.type, status: c.status, lastTransitionTime: rfc3339(now), reason: c.reason, message: c.message });
    return;
  }
  if (existing.status !== c.status) existing.lastTransitionTime = rfc3339(now);
  existing.status = c.status;
  existing.reason = c.reason;
  existing.message = c.message;
}

/** setCurrentReplicasAndMetricsInStatus. */
function setCurrent(status: NonNullable<HPAObject['status']>, current: number, metrics?: MetricStatus[]): void {
  status.currentReplicas = current;
  if (metrics?.length) status.currentMetrics = metrics;
  else delete status.currentMetrics;
}

export function horizontalPodAutoscalerController(opts: HorizontalPodAutoscalerOptions = {}): ControllerFactory {
  return (ctx) => new HorizontalPodAutoscalerController(ctx, opts);
}

// HPA normalisation (pkg/controller/podautoscaler/horizontal.go): stabilisation over recent recommendations and
// rate limits, either the legacy rules (no spec.behavior: scale-down window from the controller flag, scale up at
// most max(2×, 4)) or spec.behavior's windows and policies over recent scale events. The history lives in one
// ScalingHistory per controller instance.

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface ScalingPolicy {
  type?: string;
  value?: number;
  periodSeconds?: number;
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: ScalingPolicy[];
}

export interface Behavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

interface Recommendation {
  replicas: number;
  at: number;
}

interface ScaleEvent {
  change: number;
  at: number;
}

export interface NormalizeInput {
  key: string;
  current: number;
  desired: number;
  min: number;
  max: number;
  now: number;
  behavior?: Behavior;
}

export interface NormalizeResult {
  replicas: number;
  /** AbleToScale (stabilisation) and ScalingLimited conditions to set */
  conditions: Condition[];
}

const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

export class ScalingHistory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly upEvents = new Map<string, ScaleEvent[]>();
  private readonly downEvents = new Map<string, ScaleEvent[]>();

  constructor(private readonly downscaleWindowMs: number) {}

  forget(key: string): void {
    this.recommendations.delete(key);
    this.upEvents.delete(key);
    this.downEvents.delete(key);
  }

  /** recordInitialRecommendation: the current size counts as the first recommendation. */
  recordInitial(key: string, current: number, now: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: current, at: now }]);
  }

  normalize(input: NormalizeInput): NormalizeResult {
    return input.behavior ? this.withBehavior(input, input.behavior) : this.legacy(input);
  }

  /** Remembers a rescale for the behavior policies (storeScaleEvent). */
  recordScale(key: string, behavior: Behavior | undefined, from: number, to: number, now: number): void {
    if (!behavior || from === to) return;
    const up = to > from;
    const rules = up ? behavior.scaleUp : behavior.scaleDown;
    const longest = Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds ?? 0)) * 1000;
    const map = up ? this.upEvents : this.downEvents;
    const kept = (map.get(key) ?? []).filter((e) => e.at > now - longest);
    kept.push({ change: Math.abs(to - from), at: now });
    map.set(key, kept);
  }

  private record(key: string, replicas: number, now: number, isOld: (r: Recommendation) => boolean): void {
    const list = this.recommendations.get(key) ?? [];
    const old = list.findIndex(isOld);
    if (old >= 0) list[old] = { replicas, at: now };
    else list.push({ replicas, at: now });
    this.recommendations.set(key, list);
  }

  private legacy(input: NormalizeInput): NormalizeResult {
    const { key, current, desired, min, max, now } = input;
    const cutoff = now - this.downscaleWindowMs;
    let stabilized = desired;
    for (const r of this.recommendations.get(key) ?? []) if (r.at >= cutoff && r.replicas > stabilized) stabilized = r.replicas;
    this.record(key, desired, now, (r) => r.at < cutoff);
    const conditions: Condition[] = [
      stabilized !== desired
        ? { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
        : { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
    ];
    const scaleUpLimit = Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM));
    let maxAllowed = max;
    let limit = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    if (max > scaleUpLimit) {
      maxAllowed = scaleUpLimit;
      limit = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
    }
    let replicas = stabilized;
    if (stabilized < min) {
      replicas = min;
      limit = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    } else if (stabilized > maxAllowed) replicas = maxAllowed;
    else limit = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
    conditions.push({ type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', ...limit });
    return { replicas, conditions };
  }

  private withBehavior(input: NormalizeInput, behavior: Behavior): NormalizeResult {
    const { key, current, desired, now } = input;
    const upCutoff = now - (behavior.scaleUp?.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = now - (behavior.scaleDown?.stabilizationWindowSeconds ?? this.downscaleWindowMs / 1000) * 1000;
    let upRec = desired;
    let downRec = desired;
    for (const r of this.recommendations.get(key) ?? []) {
      if (r.at > upCutoff) upRec = Math.min(r.replicas, upRec);
      if (r.at > downCutoff) downRec = Math.max(r.replicas, downRec);
    }
    const stabilized = Math.min(Math.max(current, upRec), downRec);
    this.record(key, desired, now, (r) => r.at < upCutoff && r.at < downCutoff);
    const conditions: Condition[] = [];
    if (stabilized !== desired) {
      conditions.push(
        desired >= current
          ? { type: 'AbleToScale', status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
          : { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' },
      );
    } else conditions.push({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
    const limited = this.rateLimit({ ...input, desired: stabilized }, behavior);
    conditions.push({ type: 'ScalingLimited', status: limited.replicas === stabilized ? 'False' : 'True', reason: limited.reason, message: limited.message });
    return { replicas: limited.replicas, conditions };
  }

  /** convertDesiredReplicasWithBehaviorRate. */
  private rateLimit(input: NormalizeInput, behavior: Behavior): { replicas: number; reason: string; message: string } {
    const { key, current, desired, min, max, now } = input;
    const ups = this.upEvents.get(key) ?? [];
    const downs = this.downEvents.get(key) ?? [];
    if (desired > current) {
      const limit = Math.max(scaleLimit(current, ups, downs, behavior.scaleUp, now, 'up'), current);
      if (max > limit) {
        if (desired > limit) return { replicas: limit, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
      } else if (desired > max) return { replicas: max, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    } else if (desired < current) {
      const limit = Math.min(scaleLimit(current, ups, downs, behavior.scaleDown, now, 'down'), current);
      if (min < limit) {
        if (desired < limit) return { replicas: limit, reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };
      } else if (desired < min) return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
    }
    return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
  }
}

function changeInPeriod(events: ScaleEvent[], periodSeconds: number, now: number): number {
  const cutoff = now - periodSeconds * 1000;
  return events.filter((e) => e.at > cutoff).reduce((n, e) => n + e.change, 0);
}

/** calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors. */
function scaleLimit(current: number, ups: ScaleEvent[], downs: ScaleEvent[], rules: ScalingRules | undefined, now: number, dir: 'up' | 'down'): number {
  const select = rules?.selectPolicy ?? 'Max';
  if (select === 'Disabled') return current;
  // for scale-up Max picks the largest size; for scale-down Max picks the largest change, i.e. the smallest size
  const pickLargest = (dir === 'up') === (select !== 'Min');
  let result = pickLargest ? -Infinity : Infinity;
  for (const p of rules?.policies ?? []) {
    const period = p.periodSeconds ?? 0;
    const start = current - changeInPeriod(ups, period, now) + changeInPeriod(downs, period, now);
    const value = p.value ?? 0;
    let proposed: number;
    if (dir === 'up') proposed = p.type === 'Pods' ? start + value : Math.ceil(start * (1 + value / 100));
    else proposed = p.type === 'Pods' ? start - value : Math.trunc(start * (1 - value / 100));
    result = pickLargest ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}

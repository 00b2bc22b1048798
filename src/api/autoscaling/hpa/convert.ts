// autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler conversion as pkg/apis/autoscaling/v1/conversion.go does
// it through the internal type: v1 keeps only the CPU utilization target; every other metric, the current
// metric values, the behavior and the conditions travel in autoscaling.alpha.kubernetes.io/* annotations (JSON as
// Go's encoding/json writes it) so a v1 client that reads and writes an object back loses nothing.
import { Quantity } from '../../../machinery/quantity.js';
import { compareGoStrings } from '../../../machinery/validation.js';
import type { KObject } from '../../types.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION];
export const DEFAULT_CPU_UTILIZATION = 80;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const set = (v: unknown): boolean => v !== undefined && v !== null;
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A Quantity as Go serialises it (canonical form); unparsable input is kept. */
export function quantity(v: unknown): unknown {
  try {
    return Quantity.fromJSON(v).toString();
  } catch {
    return v;
  }
}
/** A non-pointer Quantity field: "0" when unset. */
const q0 = (v: unknown): unknown => (set(v) ? quantity(v) : '0');

/** json.Marshal: compact, with <, > and & escaped for HTML safety. */
export function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function parseJSON(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** DropRoundTripHorizontalPodAutoscalerAnnotations (an emptied map is dropped, as omitempty does). */
export function dropRoundTripAnnotations(meta: Obj): void {
  const ann = meta.annotations;
  if (!isObj(ann) || !ROUND_TRIP.some((k) => k in ann)) return;
  const kept = Object.fromEntries(Object.entries(ann).filter(([k]) => !ROUND_TRIP.includes(k)));
  if (Object.keys(kept).length) meta.annotations = kept;
  else delete meta.annotations;
}

function ref(r: unknown): Obj {
  const o = obj(r);
  const out: Obj = { kind: o.kind ?? '', name: o.name ?? '' };
  if (o.apiVersion) out.apiVersion = o.apiVersion;
  return out;
}

function optional(out: Obj, key: string, v: unknown, map: (x: unknown) => unknown = (x) => x): void {
  if (set(v)) out[key] = map(v);
}

// ---- internal (v2 shape) -> v1 ----

function specToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  const o = obj(m.object);
  if (set(m.object)) {
    const t = obj(o.target);
    const id = obj(o.metric);
    const v: Obj = { target: ref(o.describedObject), metricName: id.name ?? '', targetValue: q0(t.value) };
    optional(v, 'selector', id.selector);
    optional(v, 'averageValue', t.averageValue, quantity);
    out.object = v;
  }
  if (set(m.pods)) {
    const p = obj(m.pods);
    const id = obj(p.metric);
    const v: Obj = { metricName: id.name ?? '', targetAverageValue: q0(obj(p.target).averageValue) };
    optional(v, 'selector', id.selector);
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    if (!set(m[key])) continue;
    const r = obj(m[key]);
    const t = obj(r.target);
    const v: Obj = { name: r.name ?? '' };
    optional(v, 'targetAverageUtilization', t.averageUtilization);
    optional(v, 'targetAverageValue', t.averageValue, quantity);
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (set(m.external)) {
    const e = obj(m.external);
    const t = obj(e.target);
    const id = obj(e.metric);
    const v: Obj = { metricName: id.name ?? '' };
    optional(v, 'metricSelector', id.selector);
    optional(v, 'targetValue', t.value, quantity);
    optional(v, 'targetAverageValue', t.averageValue, quantity);
    out.external = v;
  }
  return out;
}

function statusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (set(m.object)) {
    const o = obj(m.object);
    const c = obj(o.current);
    const id = obj(o.metric);
    const v: Obj = { target: ref(o.describedObject), metricName: id.name ?? '', currentValue: q0(c.value) };
    optional(v, 'selector', id.selector);
    optional(v, 'averageValue', c.averageValue, quantity);
    out.object = v;
  }
  if (set(m.pods)) {
    const p = obj(m.pods);
    const id = obj(p.metric);
    const v: Obj = { metricName: id.name ?? '', currentAverageValue: q0(obj(p.current).averageValue) };
    optional(v, 'selector', id.selector);
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    if (!set(m[key])) continue;
    const r = obj(m[key]);
    const c = obj(r.current);
    const v: Obj = { name: r.name ?? '' };
    optional(v, 'currentAverageUtilization', c.averageUtilization);
    v.currentAverageValue = q0(c.averageValue);
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (set(m.external)) {
    const e = obj(m.external);
    const c = obj(e.current);
    const id = obj(e.metric);
    const v: Obj = { metricName: id.name ?? '' };
    optional(v, 'metricSelector', id.selector);
    v.currentValue = q0(c.value);
    optional(v, 'currentAverageValue', c.averageValue, quantity);
    out.external = v;
  }
  return out;
}

function conditionToV1(c: unknown): Obj {
  const o = obj(c);
  const out: Obj = { type: o.type ?? '', status: o.status ?? '', lastTransitionTime: o.lastTransitionTime ?? null };
  if (o.reason) out.reason = o.reason;
  if (o.message) out.message = o.message;
  return out;
}

/** The internal behavior as json.Marshal writes it: no json tags, so Go field names and nulls. */
function behaviorToGo(b: Obj): Obj {
  const rules = (r: unknown) => {
    if (!isObj(r)) return null;
    return {
      StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
      SelectPolicy: r.selectPolicy ?? null,
      Policies: Array.isArray(r.policies) ? r.policies.map((p) => ({ Type: obj(p).type ?? '', Value: obj(p).value ?? 0, PeriodSeconds: obj(p).periodSeconds ?? 0 })) : null,
      Tolerance: set(r.tolerance) ? quantity(r.tolerance) : null,
    };
  };
  return { ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) };
}

const isCPUUtilization = (m: Obj): boolean =>
  m.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu' && set(obj(m.resource.target).averageUtilization);

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, from a stored autoscaling/v2 object. */
export function hpaV2ToV1(stored: KObject): KObject {
  const metadata = structuredClone(stored.metadata) as Obj;
  dropRoundTripAnnotations(metadata);
  const spec = obj(stored.spec);
  const status = obj(stored.status);
  const metrics = arr(spec.metrics).map(obj);
  const outSpec: Obj = { scaleTargetRef: ref(spec.scaleTargetRef) };
  optional(outSpec, 'minReplicas', spec.minReplicas);
  outSpec.maxReplicas = spec.maxReplicas ?? 0;
  const firstCPU = metrics.find((m) => m.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu');
  if (firstCPU) optional(outSpec, 'targetCPUUtilizationPercentage', obj(obj(firstCPU.resource).target).averageUtilization);
  const outStatus: Obj = {};
  optional(outStatus, 'observedGeneration', status.observedGeneration);
  optional(outStatus, 'lastScaleTime', status.lastScaleTime);
  outStatus.currentReplicas = status.currentReplicas ?? 0;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  const current = arr(status.currentMetrics).map(obj);
  for (const m of current) {
    if (m.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu') {
      optional(outStatus, 'currentCPUUtilizationPercentage', obj(m.resource.current).averageUtilization);
    }
  }
  const extra: Record<string, string> = {};
  const others = metrics.filter((m) => !isCPUUtilization(m)).map(specToV1);
  if (others.length) extra[METRIC_SPECS_ANNOTATION] = goJSON(others);
  if (current.length) extra[METRIC_STATUSES_ANNOTATION] = goJSON(current.map(statusToV1));
  if (isObj(spec.behavior)) extra[BEHAVIOR_ANNOTATION] = goJSON(behaviorToGo(spec.behavior));
  const conditions = arr(status.conditions);
  if (conditions.length) extra[CONDITIONS_ANNOTATION] = goJSON(conditions.map(conditionToV1));
  if (Object.keys(extra).length) {
    const all = { ...obj(metadata.annotations), ...extra };
    metadata.annotations = Object.fromEntries(Object.keys(all).sort(compareGoStrings).map((k) => [k, all[k]]));
  }
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: outSpec, status: outStatus } as KObject;
}

// ---- v1 -> internal (v2 shape) ----

function target(type: string, fields: Obj): Obj {
  const out: Obj = { type };
  for (const [k, v] of Object.entries(fields)) optional(out, k, v, k === 'averageUtilization' ? (x) => x : quantity);
  return out;
}

function identifier(name: unknown, selector: unknown): Obj {
  const out: Obj = { name: name ?? '' };
  optional(out, 'selector', selector);
  return out;
}

function specFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (set(m.object)) {
    const o = obj(m.object);
    out.object = {
      describedObject: ref(o.target),
      target: target(set(o.averageValue) ? 'AverageValue' : 'Value', { value: q0(o.targetValue), averageValue: o.averageValue }),
      metric: identifier(o.metricName, o.selector),
    };
  }
  if (set(m.pods)) {
    const p = obj(m.pods);
    out.pods = { metric: identifier(p.metricName, p.selector), target: target('AverageValue', { averageValue: q0(p.targetAverageValue) }) };
  }
  for (const key of ['resource', 'containerResource']) {
    if (!set(m[key])) continue;
    const r = obj(m[key]);
    const util = r.targetAverageUtilization;
    const v: Obj = { name: r.name ?? '', target: target(set(util) ? 'Utilization' : 'AverageValue', { averageValue: r.targetAverageValue, averageUtilization: util }) };
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (set(m.external)) {
    const e = obj(m.external);
    out.external = {
      metric: identifier(e.metricName, e.metricSelector),
      target: target(set(e.targetValue) ? 'Value' : 'AverageValue', { value: e.targetValue, averageValue: e.targetAverageValue }),
    };
  }
  return out;
}

function statusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  const current = (fields: Obj) => target('', fields);
  const strip = (c: Obj) => {
    delete c.type;
    return c;
  };
  if (set(m.object)) {
    const o = obj(m.object);
    out.object = {
      metric: identifier(o.metricName, o.selector),
      current: strip(current({ value: q0(o.currentValue), averageValue: o.averageValue })),
      describedObject: ref(o.target),
    };
  }
  if (set(m.pods)) {
    const p = obj(m.pods);
    out.pods = { metric: identifier(p.metricName, p.selector), current: strip(current({ averageValue: q0(p.currentAverageValue) })) };
  }
  for (const key of ['resource', 'containerResource']) {
    if (!set(m[key])) continue;
    const r = obj(m[key]);
    const v: Obj = { name: r.name ?? '', current: strip(current({ averageValue: q0(r.currentAverageValue), averageUtilization: r.currentAverageUtilization })) };
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (set(m.external)) {
    const e = obj(m.external);
    out.external = { metric: identifier(e.metricName, e.metricSelector), current: strip(current({ value: q0(e.currentValue), averageValue: e.currentAverageValue })) };
  }
  return out;
}

/** The behavior annotation back into v2 fields (encoding/json matches field names case-insensitively). */
function behaviorFromGo(text: string | undefined): Obj | undefined {
  const raw = parseJSON(text);
  if (!isObj(raw)) return undefined;
  const get = (o: Obj, name: string): unknown => {
    if (name in o) return o[name];
    const k = Object.keys(o).find((x) => x.toLowerCase() === name.toLowerCase());
    return k === undefined ? undefined : o[k];
  };
  const rules = (r: unknown): Obj | undefined => {
    if (!isObj(r)) return undefined;
    const out: Obj = {};
    optional(out, 'stabilizationWindowSeconds', get(r, 'StabilizationWindowSeconds'));
    optional(out, 'selectPolicy', get(r, 'SelectPolicy'));
    const policies = get(r, 'Policies');
    if (Array.isArray(policies)) {
      out.policies = policies.map((p) => ({ type: get(obj(p), 'Type') ?? '', value: get(obj(p), 'Value') ?? 0, periodSeconds: get(obj(p), 'PeriodSeconds') ?? 0 }));
    }
    optional(out, 'tolerance', get(r, 'Tolerance'), quantity);
    return out;
  };
  const out: Obj = {};
  const up = rules(get(raw, 'ScaleUp'));
  const down = rules(get(raw, 'ScaleDown'));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length ? out : undefined;
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler, into the stored autoscaling/v2 form. */
export function hpaV1ToV2(v1: KObject): KObject {
  const metadata = structuredClone(v1.metadata) as Obj;
  const ann = obj(metadata.annotations) as Record<string, string>;
  const spec = obj(v1.spec);
  const status = obj(v1.status);
  const outSpec: Obj = { scaleTargetRef: ref(spec.scaleTargetRef) };
  optional(outSpec, 'minReplicas', spec.minReplicas);
  outSpec.maxReplicas = spec.maxReplicas ?? 0;
  let metrics: Obj[] = [];
  if (set(spec.targetCPUUtilizationPercentage)) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } }];
  }
  const outStatus: Obj = {};
  optional(outStatus, 'observedGeneration', status.observedGeneration);
  optional(outStatus, 'lastScaleTime', status.lastScaleTime);
  if (status.currentReplicas) outStatus.currentReplicas = status.currentReplicas;
  outStatus.desiredReplicas = status.desiredReplicas ?? 0;
  if (set(status.currentCPUUtilizationPercentage)) {
    outStatus.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  const others = parseJSON(ann[METRIC_SPECS_ANNOTATION]);
  if (Array.isArray(others)) metrics = [...others.map((m) => specFromV1(obj(m))), ...metrics];
  const behavior = behaviorFromGo(ann[BEHAVIOR_ANNOTATION]);
  if (behavior) outSpec.behavior = behavior;
  const current = parseJSON(ann[METRIC_STATUSES_ANNOTATION]);
  if (Array.isArray(current)) outStatus.currentMetrics = current.map((m) => statusFromV1(obj(m)));
  // autoscaling/v1 once applied this default in the controller; the conversion now makes it explicit.
  if (metrics.length === 0) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  outSpec.metrics = metrics;
  const conditions = parseJSON(ann[CONDITIONS_ANNOTATION]);
  if (Array.isArray(conditions) && conditions.length) outStatus.conditions = conditions.map(conditionToV1);
  dropRoundTripAnnotations(metadata);
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: outSpec, status: outStatus } as KObject;
}

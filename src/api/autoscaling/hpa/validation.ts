// ValidateHorizontalPodAutoscaler(Update/StatusUpdate) of pkg/apis/autoscaling/validation (1.33), run on the
// autoscaling/v2 form (which is the internal form's shape, so paths match for v1 requests too).
import { FieldError } from '../../../machinery/errors.js';
import { Quantity } from '../../../machinery/quantity.js';
import { isValidPathSegmentName } from '../../../machinery/validation.js';
import { bare, goQuantity } from '../../gofmt.js';
import { dns1123Label, validateContainerResourceName } from '../../core/pod/validation-util.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const set = (v: unknown): boolean => v !== undefined && v !== null;
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW = 3600;

function crossVersionRef(r: unknown, path: string): FieldError[] {
  const o = obj(r);
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = typeof o[key] === 'string' ? (o[key] as string) : '';
    if (!v) errs.push(FieldError.required(`${path}.${key}`));
    else for (const m of isValidPathSegmentName(v)) errs.push(FieldError.invalid(`${path}.${key}`, v, m));
  }
  return errs;
}

/** A Quantity bad value prints as Go's %#v of resource.Quantity. */
function quantitySign(v: unknown): { sign: number; shown: unknown } {
  try {
    const q = Quantity.fromJSON(v);
    return { sign: q.sign(), shown: bare(goQuantity(String(v).trim())) };
  } catch {
    return { sign: 1, shown: v };
  }
}

function metricTarget(t: unknown, path: string): FieldError[] {
  const o = obj(t);
  const errs: FieldError[] = [];
  const type = typeof o.type === 'string' ? o.type : '';
  if (!type) errs.push(FieldError.required(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(FieldError.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  for (const key of ['value', 'averageValue']) {
    if (!set(o[key])) continue;
    const { sign, shown } = quantitySign(o[key]);
    if (sign !== 1) errs.push(FieldError.invalid(`${path}.${key}`, shown, 'must be positive'));
  }
  if (set(o.averageUtilization) && num(o.averageUtilization) < 1) errs.push(FieldError.invalid(`${path}.averageUtilization`, o.averageUtilization, 'must be greater than 0'));
  return errs;
}

function metricIdentifier(id: unknown, path: string): FieldError[] {
  const name = typeof obj(id).name === 'string' ? (obj(id).name as string) : '';
  if (!name) return [FieldError.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((m) => FieldError.invalid(`${path}.name`, name, m));
}

function objectSource(src: Obj, path: string): FieldError[] {
  const t = obj(src.target);
  const errs = [...crossVersionRef(src.describedObject, `${path}.describedObject`), ...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(src.target, `${path}.target`)];
  if (!set(t.value) && !set(t.averageValue)) errs.push(FieldError.required(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
  return errs;
}

function externalSource(src: Obj, path: string): FieldError[] {
  const t = obj(src.target);
  const errs = [...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(src.target, `${path}.target`)];
  if (!set(t.value) && !set(t.averageValue)) errs.push(FieldError.required(`${path}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
  if (set(t.value) && set(t.averageValue)) errs.push(FieldError.forbidden(`${path}.target.value`, 'may not set both a target value for metric and a per-pod target'));
  return errs;
}

function podsSource(src: Obj, path: string): FieldError[] {
  const errs = [...metricIdentifier(src.metric, `${path}.metric`), ...metricTarget(src.target, `${path}.target`)];
  if (!set(obj(src.target).averageValue)) errs.push(FieldError.required(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
  return errs;
}

function resourceSource(src: Obj, path: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof src.name === 'string' ? src.name : '';
  if (!name) errs.push(FieldError.required(`${path}.name`, 'must specify a resource name'));
  else if (container) errs.push(...validateContainerResourceName(name, `${path}.name`));
  if (container) {
    const c = typeof src.container === 'string' ? src.container : '';
    if (!c) errs.push(FieldError.required(`${path}.container`, 'must specify a container'));
    else errs.push(...dns1123Label(c, `${path}.container`));
  }
  const t = obj(src.target);
  errs.push(...metricTarget(src.target, `${path}.target`));
  if (!set(t.averageUtilization) && !set(t.averageValue)) errs.push(FieldError.required(`${path}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (set(t.averageUtilization) && set(t.averageValue)) errs.push(FieldError.forbidden(`${path}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
  return errs;
}

const SOURCE_TYPES: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };
const SOURCE_TYPE_LIST = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const MUST_POPULATE = 'must populate information for the given metric source';

function metricSpec(m: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof m.type === 'string' ? m.type : '';
  if (!type) errs.push(FieldError.required(`${path}.type`, 'must specify a metric source type'));
  if (!SOURCE_TYPE_LIST.includes(type)) errs.push(FieldError.notSupported(`${path}.type`, type, SOURCE_TYPE_LIST));
  // Only the first source present (in this order) is validated.
  const present: string[] = [];
  const check: Array<[string, (src: Obj, p: string) => FieldError[]]> = [
    ['object', objectSource],
    ['external', externalSource],
    ['pods', podsSource],
    ['resource', (s, p) => resourceSource(s, p, false)],
    ['containerResource', (s, p) => resourceSource(s, p, true)],
  ];
  for (const [key, fn] of check) {
    if (!set(m[key])) continue;
    present.push(key);
    if (present.length === 1) errs.push(...fn(obj(m[key]), `${path}.${key}`));
  }
  const expected = SOURCE_TYPES[type];
  if (expected) {
    if (!set(m[expected])) errs.push(FieldError.required(`${path}.${expected}`, MUST_POPULATE));
  } else errs.push(FieldError.notSupported(`${path}.type`, type, SOURCE_TYPE_LIST));
  if (present.length !== 1) {
    for (const key of present.filter((k) => k !== expected)) errs.push(FieldError.forbidden(`${path}.${key}`, 'must populate the given metric source only'));
  }
  return errs;
}

function metricsErrors(metrics: unknown, path: string, minReplicas: unknown): FieldError[] {
  const errs: FieldError[] = [];
  let scalesToZeroOK = false;
  (Array.isArray(metrics) ? metrics : []).forEach((m, i) => {
    errs.push(...metricSpec(obj(m), `${path}[${i}]`));
    if (obj(m).type === 'Object' || obj(m).type === 'External') scalesToZeroOK = true;
  });
  if (minReplicas === 0 && !scalesToZeroOK) errs.push(FieldError.forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  return errs;
}

function scalingRules(rules: unknown, path: string): FieldError[] {
  if (!isObj(rules)) return [];
  const errs: FieldError[] = [];
  const win = rules.stabilizationWindowSeconds;
  if (set(win) && num(win) < 0) errs.push(FieldError.invalid(`${path}.stabilizationWindowSeconds`, win, 'must be greater than or equal to zero'));
  if (set(win) && num(win) > MAX_STABILIZATION_WINDOW) errs.push(FieldError.invalid(`${path}.stabilizationWindowSeconds`, win, `must be less than or equal to ${MAX_STABILIZATION_WINDOW}`));
  if (set(rules.selectPolicy) && !['Disabled', 'Max', 'Min'].includes(rules.selectPolicy as string)) {
    errs.push(FieldError.notSupported(`${path}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) errs.push(FieldError.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const o = obj(p);
    const pp = `${path}.policies[${i}]`;
    if (o.type !== 'Pods' && o.type !== 'Percent') errs.push(FieldError.notSupported(`${pp}.type`, o.type ?? '', ['Percent', 'Pods']));
    if (num(o.value) <= 0) errs.push(FieldError.invalid(`${pp}.value`, num(o.value), 'must be greater than zero'));
    if (num(o.periodSeconds) <= 0) errs.push(FieldError.invalid(`${pp}.periodSeconds`, num(o.periodSeconds), 'must be greater than zero'));
    if (num(o.periodSeconds) > MAX_PERIOD_SECONDS) errs.push(FieldError.invalid(`${pp}.periodSeconds`, num(o.periodSeconds), `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  if (set(rules.tolerance) && quantitySign(rules.tolerance).sign < 0) {
    errs.push(FieldError.invalid(`${path}.tolerance`, quantitySign(rules.tolerance).shown, 'must be greater than or equal to zero'));
  }
  return errs;
}

/** validateHorizontalPodAutoscalerSpec; minReplicas may be 0 only when the stored object already had 0. */
export function validateHPASpec(spec: unknown, minReplicasLowerBound: number, path = 'spec'): FieldError[] {
  const s = obj(spec);
  const errs: FieldError[] = [];
  const min = s.minReplicas;
  const max = num(s.maxReplicas);
  if (set(min) && num(min) < minReplicasLowerBound) errs.push(FieldError.invalid(`${path}.minReplicas`, min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(FieldError.invalid(`${path}.maxReplicas`, max, 'must be greater than 0'));
  if (set(min) && max < num(min)) errs.push(FieldError.invalid(`${path}.maxReplicas`, max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...crossVersionRef(s.scaleTargetRef, `${path}.scaleTargetRef`));
  errs.push(...metricsErrors(s.metrics, `${path}.metrics`, min));
  if (isObj(s.behavior)) {
    errs.push(...scalingRules(s.behavior.scaleUp, `${path}.behavior.scaleUp`), ...scalingRules(s.behavior.scaleDown, `${path}.behavior.scaleDown`));
  }
  return errs;
}

export function validateHPAStatus(status: unknown): FieldError[] {
  const s = obj(status);
  const errs: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    if (num(s[key]) < 0) errs.push(FieldError.invalid(`status.${key}`, num(s[key]), 'must be greater than or equal to 0'));
  }
  return errs;
}

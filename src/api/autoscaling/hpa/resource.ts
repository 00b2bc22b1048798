// autoscaling/v2 HorizontalPodAutoscaler, the stored form: SetDefaults_HorizontalPodAutoscaler (v2 defaults.go),
// pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go and printHorizontalPodAutoscaler. Nothing
// autoscales yet: objects are only stored.
import { clone } from '../../../machinery/object.js';
import { Quantity } from '../../../machinery/quantity.js';
import { quantity } from './convert.js';
import { autoscalingV2Definitions, H2 } from './schema.js';
import { validateHPASpec, validateHPAStatus } from './validation.js';
import { isCreate } from '../../batch/job/resource.js';
import { ageColumn, CELL_NONE, nameColumn } from '../../format.js';
import { defineResource, type KObject, type Strategy, type TableColumn } from '../../types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const set = (v: unknown): boolean => v !== undefined && v !== null;
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

export interface HPA extends KObject {
  spec?: Obj;
  status?: Obj;
}

const scaleUpDefaults = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
// The scale-down window stays unset: the controller manager's flag supplies it.
const scaleDownDefaults = (): Obj => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: the defaults with every field the user set. */
function scalingRules(from: unknown, defaults: Obj): Obj {
  if (!isObj(from)) return defaults;
  for (const k of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) if (set(from[k])) defaults[k] = from[k];
  return defaults;
}

/** Rewrites every Quantity of the spec and status in its canonical form, as Go re-encodes them. */
function canonicalQuantities(hpa: HPA): void {
  const fix = (o: unknown, keys: string[]) => {
    if (!isObj(o)) return;
    for (const k of keys) if (set(o[k])) o[k] = quantity(o[k]);
  };
  for (const m of list(hpa.spec?.metrics)) {
    for (const src of ['object', 'pods', 'resource', 'containerResource', 'external']) fix(obj(m[src]).target, ['value', 'averageValue']);
  }
  for (const m of list(hpa.status?.currentMetrics)) {
    for (const src of ['object', 'pods', 'resource', 'containerResource', 'external']) fix(obj(m[src]).current, ['value', 'averageValue']);
  }
  const b = hpa.spec?.behavior;
  if (isObj(b)) for (const dir of ['scaleUp', 'scaleDown']) fix(b[dir], ['tolerance']);
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v2). */
export function defaultHPAv2(hpa: HPA): void {
  const spec = (hpa.spec ??= {});
  // The status struct is always written, with desiredReplicas (no omitempty).
  if (!isObj(hpa.status)) hpa.status = {};
  if (!set(hpa.status.desiredReplicas)) hpa.status.desiredReplicas = 0;
  if (!set(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  if (isObj(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, scaleUpDefaults());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, scaleDownDefaults());
  }
  canonicalQuantities(hpa);
}

const toleranceInUse = (hpa?: HPA): boolean => {
  const b = obj(hpa?.spec?.behavior);
  return set(obj(b.scaleUp).tolerance) || set(obj(b.scaleDown).tolerance);
};

/** dropDisabledFields: HPAConfigurableTolerance is alpha (off) in 1.33. */
function dropTolerance(hpa: HPA, old?: HPA): void {
  if (toleranceInUse(old)) return;
  const b = hpa.spec?.behavior;
  if (isObj(b)) for (const dir of ['scaleUp', 'scaleDown']) if (isObj(b[dir])) delete (b[dir] as Obj).tolerance;
}

/** The minReplicas floor: 1, or 0 for objects that already scale to zero (HPAScaleToZero is off in 1.33). */
const lowerBound = (old?: HPA): number => (old?.spec?.minReplicas === 0 ? 0 : 1);

/** The autoscaling/v2 strategy; the v1 view runs it on converted objects. */
export const hpaStrategy: Strategy<HPA> = {
  defaults: defaultHPAv2,
  prepareForCreate(hpa) {
    hpa.status = { desiredReplicas: 0 };
    dropTolerance(hpa);
  },
  prepareForUpdate(hpa, old) {
    hpa.status = clone(old.status) ?? { desiredReplicas: 0 };
    dropTolerance(hpa, old);
  },
  validate: (hpa) => (isCreate(hpa) ? validateHPASpec(hpa.spec, lowerBound()) : []),
  validateUpdate: (hpa, old) => validateHPASpec(hpa.spec, lowerBound(old)),
  validateStatusUpdate: (hpa) => validateHPAStatus(hpa.status),
  allowCreateOnUpdate: false,
};

/** Quantity.String() of a pointer: "<nil>" when unset. */
const qs = (v: unknown): string => {
  if (!set(v)) return '<nil>';
  try {
    return Quantity.fromJSON(v).toString();
  } catch {
    return String(v);
  }
};

/** formatHPAMetrics: "current/target" per metric, at most two, then "+ N more...". */
export function formatHPAMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return CELL_NONE;
  const out: string[] = [];
  specs.forEach((spec, i) => {
    const st = statuses[i];
    const src = (key: string) => obj(spec[key]);
    const cur = (key: string) => (st && isObj(st[key]) ? obj((st[key] as Obj).current) : undefined);
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : 'object';
        const t = obj(src(key).target);
        const c = cur(key);
        if (set(t.averageValue)) out.push(`${c && set(c.averageValue) ? qs(c.averageValue) : '<unknown>'}/${qs(t.averageValue)} (avg)`);
        else out.push(`${c ? qs(c.value) : '<unknown>'}/${qs(t.value)}`);
        break;
      }
      case 'Pods': {
        const c = cur('pods');
        out.push(`${c ? qs(c.averageValue) : '<unknown>'}/${qs(obj(src('pods').target).averageValue)}`);
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const s = src(key);
        const t = obj(s.target);
        const c = cur(key);
        if (set(t.averageValue)) out.push(`${s.name ?? ''}: ${c ? qs(c.averageValue) : '<unknown>'}/${qs(t.averageValue)}`);
        else {
          const current = c && set(c.averageUtilization) ? `${c.averageUtilization}%` : '<unknown>';
          const target = set(t.averageUtilization) ? `${t.averageUtilization}%` : '<auto>';
          out.push(`${s.name ?? ''}: ${current}/${target}`);
        }
        break;
      }
      default:
        out.push('<unknown type>');
    }
  });
  return out.length > 2 ? `${out.slice(0, 2).join(', ')} + ${out.length - 2} more...` : out.join(', ');
}

const d = (def: string, field: string) => autoscalingV2Definitions[H2 + def].properties![field].description!;

/** printHorizontalPodAutoscaler over the v2 form; `toV2` maps the served object to it. */
export function hpaColumns<T extends KObject>(toV2: (o: T) => HPA): TableColumn<T>[] {
  return [
    nameColumn(),
    { name: 'Reference', type: 'string', description: d('HorizontalPodAutoscalerSpec', 'scaleTargetRef'), cell: (o) => `${obj(toV2(o).spec?.scaleTargetRef).kind ?? ''}/${obj(toV2(o).spec?.scaleTargetRef).name ?? ''}` },
    { name: 'Targets', type: 'string', description: d('HorizontalPodAutoscalerSpec', 'metrics'), cell: (o) => formatHPAMetrics(list(toV2(o).spec?.metrics), list(toV2(o).status?.currentMetrics)) },
    { name: 'MinPods', type: 'string', description: d('HorizontalPodAutoscalerSpec', 'minReplicas'), cell: (o) => (set(toV2(o).spec?.minReplicas) ? String(toV2(o).spec!.minReplicas) : '<unset>') },
    { name: 'MaxPods', type: 'string', description: d('HorizontalPodAutoscalerSpec', 'maxReplicas'), cell: (o) => Number(toV2(o).spec?.maxReplicas ?? 0) },
    { name: 'Replicas', type: 'string', description: d('HorizontalPodAutoscalerStatus', 'currentReplicas'), cell: (o) => Number(toV2(o).status?.currentReplicas ?? 0) },
    ageColumn(),
  ];
}

export const hpaV2Resource = defineResource<HPA>({
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  shortNames: ['hpa'],
  categories: ['all'],
  namespaced: true,
  schemaRef: H2 + 'HorizontalPodAutoscaler',
  definitions: autoscalingV2Definitions,
  subresources: { status: true },
  columns: hpaColumns<HPA>((o) => o),
  strategy: hpaStrategy,
});

// core/v1 LimitRange: schema (k8s.io/api/core/v1 types.go, 1.33), SetDefaults_LimitRangeItem, ValidateLimitRange
// (pkg/apis/core/validation) and pkg/registry/core/limitrange/strategy.go. Kubernetes has no printer for it, so
// tables use the default Name / Created At columns.
import { FieldError } from '../../machinery/errors.js';
import { Quantity } from '../../machinery/quantity.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE } from './common.js';
import { isOvercommitAllowed, qualifiedName, validateContainerResourceName } from './pod/validation-util.js';
import { canonicalResourceList, goQuantity, quantityAt, roundResourceList, validateResourceName } from './resourcequota/names.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

type ResourceList = Record<string, unknown>;

export interface LimitRangeItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange extends KObject {
  spec?: { limits?: LimitRangeItem[] | null };
}

const LIST_FIELDS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
const STANDARD_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

export const limitRangeDefinitions: Definitions = {
  [`${CORE}LimitRange`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${CORE}LimitRangeSpec`, 'The limits enforced in the namespace.', { default: {} }),
    },
    { description: 'LimitRange sets minimum, maximum and default resources for pods, containers and claims of a namespace.' },
  ),
  [`${CORE}LimitRangeSpec`]: s.obj(
    { limits: s.arr(s.ref(`${CORE}LimitRangeItem`, undefined, { default: {} }), { description: 'The limits, one item per kind of object.' }) },
    { required: ['limits'], description: 'LimitRangeSpec defines the limits of a namespace.' },
  ),
  [`${CORE}LimitRangeItem`]: s.obj(
    {
      type: s.str('What the limits apply to: Pod, Container or PersistentVolumeClaim.', { default: '' }),
      max: s.map(s.quantity(), 'Maximum usage per resource.'),
      min: s.map(s.quantity(), 'Minimum usage per resource.'),
      default: s.map(s.quantity(), 'Limit a container gets when it sets none. Defaults to max.'),
      defaultRequest: s.map(s.quantity(), 'Request a container gets when it sets none. Defaults to default, then to min.'),
      maxLimitRequestRatio: s.map(s.quantity(), 'Largest allowed ratio of limit to request per resource.'),
    },
    { required: ['type'], description: 'Limits for one kind of object.' },
  ),
  [`${CORE}LimitRangeList`]: listDefinition(
    `${CORE}LimitRange`,
    'LimitRangeList is a list of LimitRange items.',
    'Items is a list of LimitRange objects. More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/',
  ),
};

/** SetDefaults_LimitRangeItem: containers' default limit falls back to max, default request to default then min. */
export function defaultLimitRange(lr: LimitRange): void {
  for (const item of lr.spec?.limits ?? []) {
    for (const f of LIST_FIELDS) roundResourceList(item[f]);
    if (item.type !== 'Container') continue;
    const def: ResourceList = { ...(item.default ?? {}) };
    const req: ResourceList = { ...(item.defaultRequest ?? {}) };
    for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in req)) req[k] = v;
    // Empty maps are omitted in JSON (omitempty).
    if (Object.keys(def).length) item.default = def;
    if (Object.keys(req).length) item.defaultRequest = req;
  }
}

function validateTypeName(type: string, path: string): FieldError[] {
  const errs = qualifiedName(type, path);
  if (errs.length) return errs;
  if (!type.includes('/') && !STANDARD_TYPES.includes(type)) errs.push(FieldError.invalid(path, type, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** float64 %f: six decimals; Go prints infinities as +Inf / -Inf and NaN as NaN. */
const goFloat = (f: number): string => (Number.isNaN(f) ? 'NaN' : f === Infinity ? '+Inf' : f === -Infinity ? '-Inf' : f.toFixed(6));

const MAX_MILLI = Number(2n ** 63n - 1n) / 1000;

function compareItem(k: string, q: Record<string, Quantity | undefined>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const { min, max, def, req, ratio } = q;
  const at = (f: string) => `${p}.${f}[${k}]`;
  if (min && max && min.cmp(max) > 0) errs.push(FieldError.invalid(at('min'), goQuantity(min), `min value ${min} is greater than max value ${max}`));
  if (req && min && min.cmp(req) > 0) errs.push(FieldError.invalid(at('defaultRequest'), goQuantity(req), `min value ${min} is greater than default request value ${req}`));
  if (req && max && req.cmp(max) > 0) errs.push(FieldError.invalid(at('defaultRequest'), goQuantity(req), `default request value ${req} is greater than max value ${max}`));
  if (req && def && req.cmp(def) > 0) {
    errs.push(FieldError.invalid(at('defaultRequest'), goQuantity(req), `default request value ${req} is greater than default limit value ${def}`));
  }
  if (def && min && min.cmp(def) > 0) errs.push(FieldError.invalid(at('default'), goQuantity(min), `min value ${min} is greater than default value ${def}`));
  if (def && max && def.cmp(max) > 0) errs.push(FieldError.invalid(at('default'), goQuantity(max), `default value ${def} is greater than max value ${max}`));
  if (ratio && ratio.cmp(Quantity.fromInt(1)) < 0) {
    errs.push(FieldError.invalid(at('maxLimitRequestRatio'), goQuantity(ratio), `ratio ${ratio} is less than 1`));
  }
  if (ratio && min && max) {
    let ratioValue = ratio.value();
    let minValue = min.value();
    let maxValue = max.value();
    if (ratio.value() < MAX_MILLI && minValue < MAX_MILLI && maxValue < MAX_MILLI) {
      ratioValue = ratio.milliValue() / 1000;
      minValue = min.milliValue();
      maxValue = max.milliValue();
    }
    const limit = maxValue / minValue;
    if (ratioValue > limit) {
      errs.push(FieldError.invalid(at('maxLimitRequestRatio'), goQuantity(ratio), `ratio ${ratio} is greater than max/min = ${goFloat(limit)}`));
    }
  }
  // Resources that cannot be overcommitted (hugepages, extended resources) need equal default and request.
  if (!isOvercommitAllowed(k) && def && req && def.cmp(req) !== 0) {
    errs.push(FieldError.invalid(at('defaultRequest'), goQuantity(req), `default value ${def} must equal to defaultRequest value ${req} in ${k}`));
  }
  return errs;
}

/** ValidateLimitRange (update runs the same checks). Resource keys are visited in sorted order; Go's is random. */
export function validateLimitRange(lr: LimitRange): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const p = `spec.limits[${i}]`;
    const type = item.type ?? '';
    errs.push(...validateTypeName(type, `${p}.type`));
    if (types.has(type)) errs.push(FieldError.duplicate(`${p}.type`, type));
    types.add(type);
    const podOrContainer = type === 'Pod' || type === 'Container';
    const parsed: Record<string, Record<string, Quantity | undefined>> = {};
    const keys = new Set<string>();
    const visit = (field: (typeof LIST_FIELDS)[number]) => {
      parsed[field] = {};
      for (const [k, v] of Object.entries(item[field] ?? {})) {
        const kp = `${p}.${field}[${k}]`;
        errs.push(...(podOrContainer ? validateContainerResourceName(k, kp) : validateResourceName(k, kp)));
        keys.add(k);
        parsed[field][k] = quantityAt(v, kp, errs);
      }
    };
    visit('max');
    visit('min');
    if (type === 'Pod') {
      if (Object.keys(item.default ?? {}).length) errs.push(FieldError.forbidden(`${p}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length) errs.push(FieldError.forbidden(`${p}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
      parsed.default = {};
      parsed.defaultRequest = {};
    } else {
      visit('default');
      visit('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !('storage' in (item.min ?? {})) && !('storage' in (item.max ?? {}))) {
      errs.push(FieldError.required(`${p}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    visit('maxLimitRequestRatio');
    for (const k of [...keys].sort()) {
      const q = { min: parsed.min[k], max: parsed.max[k], def: parsed.default[k], req: parsed.defaultRequest[k], ratio: parsed.maxLimitRequestRatio[k] };
      errs.push(...compareItem(k, q, p));
    }
  });
  return errs;
}

export const limitRangeResource = defineResource<LimitRange>({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  singular: 'limitrange',
  shortNames: ['limits'],
  namespaced: true,
  schemaRef: `${CORE}LimitRange`,
  definitions: limitRangeDefinitions,
  columns: [],
  strategy: {
    defaults: defaultLimitRange,
    validate: validateLimitRange,
    canonicalize(lr) {
      for (const item of lr.spec?.limits ?? []) for (const f of LIST_FIELDS) canonicalResourceList(item[f]);
    },
    allowCreateOnUpdate: true,
  },
});

// Pieces the workload kinds share (apps/v1 and core/v1 ReplicationController): int-or-percent rules of
// pkg/apis/apps/validation, label selector checks and Go's %#v rendering of the values they report, the
// omitempty encoding of workload statuses, and the wide CONTAINERS/IMAGES columns of the printers.
import { FieldError, goQuote } from '../../machinery/errors.js';
import { fromLabelSelector, type LabelSelector, type MetaLabelSelector } from '../../machinery/labels.js';
import { validateLabelSelector } from '../../machinery/label-selector-validation.js';
import { s, type Schema } from '../../machinery/schema.js';
import { isDNS1123Label, regexError } from '../../machinery/validation.js';
import { containerCells, CONTAINERS_DOC, IMAGES_DOC, type PodTemplateSpec } from '../core/podtemplate/spec.js';
import { goStringMap } from '../core/podtemplate/validation.js';
import { bare } from '../core/pod/validation-util.js';
import { jsonEqual } from '../format.js';
import type { KObject, TableColumn } from '../types.js';

export const APPS = 'io.k8s.api.apps.v1.';
export const SPEC_AND_STATUS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** ValidateNonnegativeField. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [FieldError.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

// ---- int-or-percent (intstr.IntOrString) ----

export type IntOrString = number | string;
const PERCENT_FMT = '[0-9]+%';
const PERCENT_RE = /^[0-9]+%$/;

/** Go's %#v of an intstr.IntOrString (Type 0 is Int, 1 is String), which is how such bad values print. */
export function goIntOrString(v: IntOrString | undefined | null): { toString(): string } {
  const str = typeof v === 'string';
  return bare(`intstr.IntOrString{Type:${str ? 1 : 0}, IntVal:${str ? 0 : num(v)}, StrVal:${goQuote(str ? v : '')}}`);
}

/** validation.IsValidPercent. */
export function isValidPercent(v: string): string[] {
  return PERCENT_RE.test(v) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%')];
}

/** getPercentValue: the number of a valid percent string. */
function percentValue(v: IntOrString | undefined | null): number | undefined {
  return typeof v === 'string' && PERCENT_RE.test(v) ? Number.parseInt(v.slice(0, -1), 10) : undefined;
}

/** getIntOrPercentValue: a percent's number, else IntValue() (strconv.Atoi of a string, 0 when it fails). */
export function intOrPercentValue(v: IntOrString | undefined | null): number {
  const p = percentValue(v);
  if (p !== undefined) return p;
  if (typeof v === 'string') return /^[+-]?[0-9]+$/.test(v) ? Number.parseInt(v, 10) : 0;
  return num(v);
}

/** ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(v: IntOrString | undefined | null, path: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((m) => FieldError.invalid(path, goIntOrString(v), m));
  return nonNegative(num(v), path);
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100Percent(v: IntOrString | undefined | null, path: string): FieldError[] {
  const p = percentValue(v);
  return p !== undefined && p > 100 ? [FieldError.invalid(path, goIntOrString(v), 'must not be greater than 100%')] : [];
}

// ---- label selectors ----

/** metav1.LabelSelectorAsSelector, or undefined where Go returns an error. */
export function asSelector(sel: MetaLabelSelector | undefined | null): LabelSelector | undefined {
  try {
    return fromLabelSelector(sel);
  } catch {
    return undefined;
  }
}

const goStrings = (v: string[] | undefined | null): string =>
  v === undefined || v === null ? '[]string(nil)' : `[]string{${v.map((x) => goQuote(String(x))).join(', ')}}`;

/** Go's %#v of a metav1.LabelSelector, e.g. v1.LabelSelector{MatchLabels:map[string]string{"app":"a"}, ...}. */
export function goLabelSelector(sel: MetaLabelSelector | undefined | null): { toString(): string } | null {
  if (!sel) return null;
  const labels = goStringMap(sel.matchLabels).toString();
  const me = sel.matchExpressions;
  const exprs = me === undefined || me === null
    ? '[]v1.LabelSelectorRequirement(nil)'
    : `[]v1.LabelSelectorRequirement{${me
      .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(String(e.key ?? ''))}, Operator:${goQuote(String(e.operator ?? ''))}, Values:${goStrings(e.values)}}`)
      .join(', ')}}`;
  return bare(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}`);
}

/**
 * The selector checks Deployment, ReplicaSet and StatefulSet share: required, a valid and non-empty selector
 * (`kind` names the kind in the "empty selector" message, "deployment" for ReplicaSets too as in Kubernetes).
 */
export function validateRequiredSelector(sel: MetaLabelSelector | undefined | null, path: string, kind: string): FieldError[] {
  if (!sel) return [FieldError.required(path)];
  const errs = validateLabelSelector(sel, path);
  if (Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0) {
    errs.push(FieldError.invalid(path, goLabelSelector(sel), `empty selector is invalid for ${kind}`));
  }
  return errs;
}

/** Semantic equality of selectors: empty and absent lists and maps are the same. */
function canonicalSelector(sel: MetaLabelSelector | undefined | null): unknown {
  if (!sel) return null;
  const out: Obj = {};
  if (Object.keys(sel.matchLabels ?? {}).length) out.matchLabels = sel.matchLabels;
  if ((sel.matchExpressions ?? []).length) out.matchExpressions = (sel.matchExpressions ?? []).map((e) => ({ ...e, values: e.values?.length ? e.values : undefined }));
  return out;
}

/** apps/v1 selectors cannot change after creation. */
export function validateImmutableSelector(sel: MetaLabelSelector | undefined | null, old: MetaLabelSelector | undefined | null, path = 'spec.selector'): FieldError[] {
  return jsonEqual(canonicalSelector(sel), canonicalSelector(old)) ? [] : [FieldError.invalid(path, goLabelSelector(sel), 'field is immutable')];
}

// ---- encoding ----

/** Go's omitempty on the given fields, and a JSON null in any field decodes to an unset (omitted) pointer. */
export function dropEmpty(o: Obj, omitempty: string[]): void {
  for (const [k, v] of Object.entries(o)) {
    const empty = v === 0 || v === '' || v === false || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
    if (v === null || (empty && omitempty.includes(k))) delete o[k];
  }
}


/** How a status struct serialises in Go: which int fields are always written and which are pointers (kept at 0). */
export interface StatusShape {
  always: string[];
  pointers?: string[];
  /** metav1.Time fields of each condition (written as null when unset) */
  conditionTimes: string[];
}

/** Go's encoding of a status after decoding: omitempty zero values dropped, non-omitempty ones filled in. */
export function normalizeStatus(st: Obj, shape: StatusShape): void {
  for (const [k, v] of Object.entries(st)) {
    const zero = v === null || v === 0 || v === '' || v === false || (Array.isArray(v) && v.length === 0);
    if (zero && !shape.always.includes(k) && !(v === 0 && shape.pointers?.includes(k))) delete st[k];
  }
  for (const k of shape.always) if (typeof st[k] !== 'number') st[k] = 0;
  if (!Array.isArray(st.conditions)) return;
  for (const c of st.conditions as Obj[]) {
    if (!isObj(c)) continue;
    c.type ??= '';
    c.status ??= '';
    for (const t of shape.conditionTimes) if (c[t] === undefined || c[t] === '') c[t] = null;
    for (const k of ['reason', 'message']) if (c[k] === '' || c[k] === null) delete c[k];
  }
}

/** A freshly created workload's status: the Go zero value as it serialises. */
export function zeroStatus(shape: StatusShape): Obj {
  return Object.fromEntries(shape.always.map((k) => [k, 0]));
}

/** dropDisabledStatusFields: terminatingReplicas needs the (alpha, off) DeploymentReplicaSetTerminatingReplicas gate. */
export function dropTerminatingReplicas(st: Obj | undefined, old: Obj | undefined): void {
  if (st && (old?.terminatingReplicas === undefined || old.terminatingReplicas === null)) delete st.terminatingReplicas;
}

/** IsDecremented for status.collisionCount (a pointer: absent after present counts as a decrement). */
export function collisionCountDecremented(st: Obj | undefined, old: Obj | undefined): FieldError[] {
  const was = old?.collisionCount;
  const now = st?.collisionCount;
  if (typeof was !== 'number') return [];
  if (typeof now === 'number' && now >= was) return [];
  return [FieldError.invalid('status.collisionCount', num(now), 'cannot be decremented')];
}

/** Non-negative `counts`; `bounded` fields no greater than status.replicas; available no greater than ready. */
export function replicaCountErrors(st: Obj, counts: string[], bounded: string[], readyMsg = 'cannot be greater than readyReplicas'): FieldError[] {
  const errs = counts.flatMap((f) => nonNegative(st[f], `status.${f}`));
  for (const f of bounded) {
    if (num(st[f]) > num(st.replicas)) errs.push(FieldError.invalid(`status.${f}`, num(st[f]), 'cannot be greater than status.replicas'));
  }
  if (num(st.availableReplicas) > num(st.readyReplicas)) errs.push(FieldError.invalid('status.availableReplicas', num(st.availableReplicas), readyMsg));
  return errs;
}

// ---- schema pieces ----

/** `<Kind>Condition`: type and status required, plus the given time fields. */
export function conditionSchema(kind: string, times: Record<string, string>): Schema {
  return s.obj(
    {
      ...Object.fromEntries(Object.entries(times).map(([k, d]) => [k, s.time(d)])),
      message: s.str('A human-readable message with details about the transition.'),
      reason: s.str('A machine-readable CamelCase reason for the last transition.'),
      status: s.str('Status of the condition: True, False or Unknown.', { default: '' }),
      type: s.str(`Type of ${kind} condition.`, { default: '' }),
    },
    { description: `${kind}Condition describes the state of a ${kind} at a certain point.`, required: ['type', 'status'] },
  );
}

/** The conditions list of a status: merged by type (strategic merge patch and server-side apply). */
export const conditionsList = (ref: string, description: string): Schema => s.arr(s.ref(ref, undefined, { default: {} }), { mergeKey: 'type', description });

/** WarningsOnCreate of the kinds whose name prefixes their pods' names (and so their hostnames). */
export function podNameWarning(obj: KObject): string[] {
  const name = obj.metadata.name ?? '';
  const msgs = name ? isDNS1123Label(name) : [];
  return msgs.length ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
}

// ---- columns ----

/** The `-o wide` CONTAINERS and IMAGES columns of a workload, from its pod template. */
export function templateColumns<T extends KObject>(template: (o: T) => PodTemplateSpec | undefined): TableColumn<T>[] {
  return [
    { name: 'Containers', type: 'string', priority: 1, description: CONTAINERS_DOC, cell: (o) => containerCells(template(o)?.spec?.containers).names },
    { name: 'Images', type: 'string', priority: 1, description: IMAGES_DOC, cell: (o) => containerCells(template(o)?.spec?.containers).images },
  ];
}

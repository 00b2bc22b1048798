// Go's `%#v` rendering of the struct values some Kubernetes validators report as bad values (field.Invalid with a
// struct falls back to %#v): e.g. `rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"r"}`.
// Shared by the rbac, admissionregistration, apiextensions and authorization validators. Go prints non-nil
// pointers nested in a struct as addresses, which no client can rely on; those are rendered with a fixed one.
import { goQuote } from '../../machinery/errors.js';
import { compareGoStrings } from '../../machinery/validation.js';

/** A value whose String() is its Go syntax; FieldError prints objects through their own toString(). */
export class GoValue {
  constructor(private readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type GoField = [name: string, text: string];

/** `pkg.Type{A:"x", B:1}` */
export function goStruct(type: string, fields: GoField[]): GoValue {
  return new GoValue(`${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`);
}

export const goStr = (s: unknown): string => goQuote(typeof s === 'string' ? s : '');
export const goBool = (b: unknown): string => String(b === true);
export const goInt = (n: unknown): string => String(typeof n === 'number' ? n : 0);

/** A nil or non-nil pointer field of type *T. */
export function goPtr(type: string, set: boolean): string {
  return set ? `(*${type})(0xc000000000)` : `(*${type})(nil)`;
}

/** []T{...} or []T(nil) for a nil slice. */
export function goSlice(type: string, items: string[] | undefined | null): string {
  if (!items) return `[]${type}(nil)`;
  return `[]${type}{${items.join(', ')}}`;
}

/** []string-like slices (typed strings print quoted). */
export function goStrSlice(type: string, items: unknown[] | undefined | null): string {
  return goSlice(type, items ? items.map((x) => goStr(x)) : undefined);
}

/** map[string]string{"a":"b"} (Go sorts keys) or map[string]string(nil). */
export function goStrMap(m: Record<string, string> | undefined | null): string {
  if (!m) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort(compareGoStrings);
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k] ?? '')}`).join(', ')}}`;
}

/** A typed []string value (e.g. []admissionregistration.OperationType{"*", "CREATE"}). */
export function goTypedStrings(type: string, items: unknown[] | undefined | null): GoValue {
  return new GoValue(goStrSlice(type, items));
}

/** time.Time's GoString for an RFC 3339 timestamp (Go's zero time when unset). */
export function goTime(ts: unknown): string {
  const ms = typeof ts === 'string' ? Date.parse(ts) : NaN;
  if (Number.isNaN(ms)) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const d = new Date(ms);
  const month = d.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
  const nanos = (ms % 1000) * 1e6;
  return `time.Date(${d.getUTCFullYear()}, time.${month}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${nanos}, time.Local)`;
}

/** metav1.ObjectMeta as %#v prints it (validators of the review kinds report the whole metadata). */
export function goObjectMeta(meta: Record<string, unknown> | undefined): GoValue {
  const m = meta ?? {};
  const list = (type: string, v: unknown) => (Array.isArray(v) ? goSlice(type, v.map(() => `${type}{...}`)) : goSlice(type, undefined));
  return goStruct('v1.ObjectMeta', [
    ['Name', goStr(m.name)],
    ['GenerateName', goStr(m.generateName)],
    ['Namespace', goStr(m.namespace)],
    ['SelfLink', goStr(m.selfLink)],
    ['UID', goStr(m.uid)],
    ['ResourceVersion', goStr(m.resourceVersion)],
    ['Generation', goInt(m.generation)],
    ['CreationTimestamp', goTime(m.creationTimestamp)],
    ['DeletionTimestamp', typeof m.deletionTimestamp === 'string' ? goTime(m.deletionTimestamp) : '<nil>'],
    ['DeletionGracePeriodSeconds', goPtr('int64', typeof m.deletionGracePeriodSeconds === 'number')],
    ['Labels', goStrMap(m.labels as Record<string, string> | undefined)],
    ['Annotations', goStrMap(m.annotations as Record<string, string> | undefined)],
    ['OwnerReferences', list('v1.OwnerReference', m.ownerReferences)],
    ['Finalizers', goStrSlice('string', m.finalizers as unknown[] | undefined)],
    ['ManagedFields', list('v1.ManagedFieldsEntry', m.managedFields)],
  ]);
}

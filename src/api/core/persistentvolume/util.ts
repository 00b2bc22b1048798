// Helpers PersistentVolumes and PersistentVolumeClaims share: access modes (validation and the RWO/ROX/RWX/RWOP
// cell), storage classes (the beta annotation wins), semantic equality with quantities compared by value, Go %#v
// renderings of resource lists, and a cmp.Diff-shaped summary of a changed struct.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { deepEqual } from '../../../machinery/object.js';
import { Quantity } from '../../../machinery/quantity.js';
import { bare, parseQuantity } from '../pod/validation-util.js';
import { goQuantity } from '../resourcequota/names.js';
import type { KObject } from '../../types.js';

type Obj = Record<string, unknown>;

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
export const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** Access-mode checks shared by PV and PVC specs; `requiredDetail` differs between the two. */
export function validateAccessModes(modes: string[] | null | undefined, path: string, requiredDetail: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = modes ?? [];
  if (!list.length) errs.push(FieldError.required(path, requiredDetail));
  let rwop = false;
  let other = false;
  for (const m of list) {
    if (!ACCESS_MODES.includes(m)) errs.push(FieldError.notSupported(path, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(m)) other = true;
  }
  if (rwop && other) errs.push(FieldError.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, duplicates dropped. */
export function accessModesString(modes: string[] | null | undefined): string {
  const set = new Set(modes ?? []);
  const out: string[] = [];
  if (set.has('ReadWriteOnce')) out.push('RWO');
  if (set.has('ReadOnlyMany')) out.push('ROX');
  if (set.has('ReadWriteMany')) out.push('RWX');
  if (set.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

/** GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation wins over the field. */
export function storageClassOf(obj: KObject, field: string | null | undefined): string {
  const ann = obj.metadata.annotations;
  if (ann && Object.prototype.hasOwnProperty.call(ann, BETA_STORAGE_CLASS)) return ann[BETA_STORAGE_CLASS];
  return field ?? '';
}

/** A quantity's serialised form, or "0" when absent or unparsable (Quantity.String() of the zero value). */
export function quantityString(v: unknown): string {
  if (v === undefined || v === null) return '0';
  const q = parseQuantity(v);
  return typeof q === 'string' ? String(v) : q.toString();
}

export function quantityOf(v: unknown): Quantity {
  const q = v === undefined || v === null ? undefined : parseQuantity(v);
  return q === undefined || typeof q === 'string' ? Quantity.fromInt(0) : q;
}

/** A core.ResourceList bad value as Go's %#v prints it (keys sorted, quantities as raw structs). */
export function goResourceList(list: Obj | null | undefined): { toString(): string } {
  if (!list) return bare('core.ResourceList(nil)');
  const parts = Object.keys(list)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuantity(quantityOf(list[k])).toString()}`);
  return bare(`core.ResourceList{${parts.join(', ')}}`);
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as Obj).length === 0);

/**
 * apiequality.Semantic.DeepEqual for JSON values: absent, null and empty collections are equal, and values under
 * the given resource-list keys compare as quantities.
 */
export function semanticEqual(a: unknown, b: unknown, quantityMaps: ReadonlySet<string> = new Set(), key = ''): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (quantityMaps.has(key) && typeof a === 'object' && typeof b === 'object' && a && b && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a as Obj);
    const kb = Object.keys(b as Obj);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in (b as Obj) && quantityOf((a as Obj)[k]).cmp(quantityOf((b as Obj)[k])) === 0);
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i], quantityMaps));
  if (typeof a === 'object' && typeof b === 'object' && a && b && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)]);
    return [...keys].every((k) => semanticEqual((a as Obj)[k], (b as Obj)[k], quantityMaps, k));
  }
  return deepEqual(a, b);
}

const goName = (k: string): string => (k.endsWith('ID') || k === 'csi' || k === 'fc' || k === 'nfs' || k === 'rbd' ? k.toUpperCase() : k[0].toUpperCase() + k.slice(1));

/**
 * A cmp.Diff-shaped summary of a struct change (`-` old, `+` new, equal fields elided). Kubernetes prints the Go
 * structs of its internal API; this prints the changed fields as JSON, which carries the same information.
 */
export function structDiff(typeName: string, before: Obj, after: Obj, order: string[], quantityMaps: ReadonlySet<string> = new Set()): string {
  const keys = [...order, ...[...Object.keys(before), ...Object.keys(after)].filter((k, i, all) => !order.includes(k) && all.indexOf(k) === i)];
  const lines = [`  ${typeName}{`];
  let same = 0;
  const flush = () => {
    if (same) lines.push(`  \t... // ${same} identical field${same === 1 ? '' : 's'}`);
    same = 0;
  };
  for (const k of keys) {
    const a = before[k];
    const b = after[k];
    if (semanticEqual(a, b, quantityMaps, k)) {
      same++;
      continue;
    }
    flush();
    if (a !== undefined) lines.push(`- \t${goName(k)}: ${JSON.stringify(a)},`);
    if (b !== undefined) lines.push(`+ \t${goName(k)}: ${JSON.stringify(b)},`);
  }
  flush();
  lines.push('  }');
  return lines.join('\n') + '\n';
}

// Pieces the storage.k8s.io kinds share: core TopologySelectorTerm (StorageClass.allowedTopologies) with its
// validation (ValidateTopologySelectorTerm in pkg/apis/core/validation), ValidateCSIDriverName, small helpers.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { byteLength, isDNS1123Subdomain, validateLabelName } from '../../machinery/validation.js';
import { CORE } from '../core/common.js';
import { orEmpty } from '../networking/util.js';

export const STORAGE = 'io.k8s.api.storage.v1.';

export interface TopologySelectorTerm {
  matchLabelExpressions?: Array<{ key?: string; values?: string[] | null }> | null;
}

export const topologySelectorDefinitions: Definitions = {
  [`${CORE}TopologySelectorTerm`]: s.obj(
    {
      matchLabelExpressions: s.arr(s.ref(`${CORE}TopologySelectorLabelRequirement`, undefined, { default: {} }), {
        description: 'A list of topology selector requirements by labels.',
      }),
    },
    {
      description:
        'A topology selector term represents the result of label queries. A null or empty term matches no objects. Its requirements are ANDed. It is a subset of NodeSelectorTerm (alpha, may change).',
      mapType: 'atomic',
    },
  ),
  [`${CORE}TopologySelectorLabelRequirement`]: s.obj(
    {
      key: s.str('The label key that the selector applies to.', { default: '' }),
      values: s.arr(s.str(undefined, { default: '' }), {
        description: 'An array of string values. One value must match the label to be selected. Each entry in Values is ORed.',
      }),
    },
    { description: 'A topology selector requirement is a selector that matches given label (alpha, may change).', required: ['key', 'values'] },
  ),
};

/** ValidateTopologySelectorTerm; returns the term's key → values map used for duplicate detection. */
function validateTopologySelectorTerm(term: TopologySelectorTerm, path: string): { map: Map<string, Set<string>>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const map = new Map<string, Set<string>>();
  orEmpty(term?.matchLabelExpressions).forEach((req, i) => {
    const p = `${path}.matchLabelExpressions[${i}]`;
    const values = new Set<string>();
    const list = orEmpty(req?.values);
    if (!list.length) errs.push(FieldError.required(`${p}.values`, ''));
    list.forEach((v, j) => {
      if (values.has(v)) errs.push(FieldError.duplicate(`${p}.values[${j}]`, v));
      values.add(v);
    });
    const key = req?.key ?? '';
    errs.push(...validateLabelName(key, `${p}.key`));
    if (map.has(key)) errs.push(FieldError.duplicate(`${p}.key`, key));
    map.set(key, values);
  });
  return { map, errs };
}

const sameTerm = (a: Map<string, Set<string>>, b: Map<string, Set<string>>): boolean =>
  a.size === b.size && [...a].every(([k, v]) => b.has(k) && b.get(k)!.size === v.size && [...v].every((x) => b.get(k)!.has(x)));

/** validateAllowedTopologies in pkg/apis/storage/validation. */
export function validateAllowedTopologies(terms: TopologySelectorTerm[] | null | undefined, path: string): FieldError[] {
  const list = orEmpty(terms);
  if (!list.length) return [];
  const errs: FieldError[] = [];
  // Kubernetes pre-fills the seen list with len(terms) nil maps, which semantically equal an empty term: an empty
  // term is therefore always reported as a duplicate. Reproduced.
  const seen: Array<Map<string, Set<string>>> = list.map(() => new Map());
  list.forEach((term, i) => {
    const { map, errs: termErrs } = validateTopologySelectorTerm(term ?? {}, `${path}[${i}]`);
    errs.push(...termErrs);
    for (const t of seen) if (sameTerm(map, t)) errs.push(FieldError.duplicate(`${path}[${i}].matchLabelExpressions`, ''));
    seen.push(map);
  });
  return errs;
}

/** ValidateCSIDriverName (core validation): required, at most 63 characters, a DNS subdomain ignoring case. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(FieldError.required(path, ''));
  if (byteLength(name) > 63) errs.push(FieldError.tooLong(path, name, 63));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(FieldError.invalid(path, name, m));
  return errs;
}

/** Lists and maps Go omits when empty (`omitempty`). */
export function dropEmpty(o: Record<string, unknown> | null | undefined, ...keys: string[]): void {
  if (!o) return;
  for (const k of keys) {
    const v = o[k];
    if (v === null || (Array.isArray(v) && v.length === 0)) delete o[k];
    else if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) delete o[k];
  }
}

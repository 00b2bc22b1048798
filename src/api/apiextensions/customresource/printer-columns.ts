// A CRD version's additionalPrinterColumns as table columns, as k8s.io/apiextensions-apiserver/pkg/registry/
// customresource/tableconvertor serves them (Kubernetes 1.33): Name first, then each column's JSONPath `{<path>}`
// evaluated with missing keys allowed and its first value only, formatted by the column's type. Without columns a
// CRD gets Name and Age (a date column over .metadata.creationTimestamp).
import { goJSON } from '../../../machinery/apply/values.js';
import { goFloat, goNumber } from '../../../machinery/gofloat.js';
import { ageColumn, humanDuration, nameColumn } from '../../format.js';
import type { KObject, TableColumn } from '../../types.js';
import { isObj } from '../structural.js';
import { findResults, parseJSONPath, type Template } from './jsonpath.js';

type Cell = string | number | boolean | null;

/** jsonpath PrintResults of one value: JSON for maps and lists, text for the rest, `<no value>` for null. */
export function printValue(v: unknown): string {
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'object') return goJSON(v);
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const GO_ZERO_TIME = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d.getTime();
})();

/** time.Parse(time.RFC3339, s) as epoch milliseconds; undefined when Go would fail. */
export function parseRFC3339(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || sec > 59) return undefined;
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, sec, Number((m[7] ?? '').slice(0, 3).padEnd(3, '0')));
  const offset = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) * 60_000 : 0;
  return t.getTime() - offset;
}

/** metatable.ConvertToHumanReadableDateType over metav1.Time.UnmarshalQueryParameter. */
function dateCell(v: string, now: number): string {
  if (v === '' || v === 'null') return '<unknown>';
  const t = parseRFC3339(v);
  if (t === undefined) return '<invalid>';
  return t === GO_ZERO_TIME ? '<unknown>' : humanDuration(now - t);
}

/** cellForJSONValue: the value if it has the column's type (integers truncated from floats), else null. */
function typedCell(type: string, v: unknown, now: number): Cell {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'string':
      return typeof v === 'string' ? v : null;
    case 'date':
      return typeof v === 'string' ? dateCell(v, now) : null;
    default:
      return null;
  }
}

/** The cell of one column: null when the path finds nothing or fails to evaluate. */
export function columnCell(path: Template, type: string, obj: unknown, now: number): Cell {
  let results: unknown[][];
  try {
    results = findResults(path, obj, true);
  } catch {
    return null;
  }
  if (!results.length || !results[0].length) return null;
  const v = results[0][0];
  return type === 'string' ? printValue(v) : typedCell(type, v, now);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * additionalPrinterColumns (name, type, format, description, priority, jsonPath) → columns. A column whose
 * jsonPath does not parse ends the list, as Kubernetes keeps only the columns before it.
 */
export function printerColumns(cols: unknown[] | undefined): TableColumn[] {
  const defs = cols?.length
    ? cols
    : [{ name: 'Age', type: 'date', description: ageColumn().description, jsonPath: '.metadata.creationTimestamp' }];
  const out: TableColumn[] = [nameColumn()];
  for (const c of defs) {
    const col = isObj(c) ? c : {};
    const jsonPath = str(col.jsonPath);
    let path: Template;
    try {
      path = parseJSONPath(`{${jsonPath}}`);
    } catch {
      break;
    }
    const type = str(col.type);
    out.push({
      name: str(col.name),
      type: type as TableColumn['type'],
      format: str(col.format) || undefined,
      description: str(col.description) || `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      priority: typeof col.priority === 'number' ? col.priority : 0,
      cell: (obj: KObject, ctx) => columnCell(path, type, obj, ctx.now),
    });
  }
  return out;
}

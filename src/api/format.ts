// Shared helpers for built-in kinds: table cell formatting as kube-apiserver's printers do it
// (pkg/printers/internalversion), the ConfigMap/Secret key check, and small data helpers. Name and
// qualified-name validators live in machinery/validation.ts.
import { byteLength, compareGoStrings, maxLenError, regexError } from '../machinery/validation.js';
import type { KObject, TableColumn } from './types.js';

export const CELL_NONE = '<none>';
export const CELL_UNKNOWN = '<unknown>';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** apimachinery duration.HumanDuration: about 2-3 significant figures ("119s", "5m10s", "90m", "5h10m", "30h", "5d2h"). */
export function humanDuration(ms: number): string {
  // Go converts with int(), truncating toward zero; up to 1s in the future still reads as "0s".
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** apimachinery duration.ShortHumanDuration: one unit only ("45s", "5m", "3h", "12d", "2y"). */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

// Go's zero time.Time (0001-01-01T00:00:00Z) is what an unset Time decodes to.
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/** Parses a metav1.Time / MicroTime; undefined for absent, unparsable or Go's zero time. */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const t = Date.parse(ts);
  if (Number.isNaN(t) || t === GO_ZERO_TIME) return undefined;
  return t;
}

/** translateTimestampSince / translateMicroTimestampSince: `<unknown>` for a zero time, else HumanDuration(now - t). */
export function age(timestamp: unknown, now: number): string {
  const t = parseTime(timestamp);
  return t === undefined ? CELL_UNKNOWN : humanDuration(now - t);
}

/** labels.FormatLabels: sorted `k=v` joined by commas, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const parts = Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`);
  parts.sort(compareGoStrings);
  return parts.length ? parts.join(',') : CELL_NONE;
}

export interface LabelSelectorLike {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

/** metav1.FormatLabelSelector: requirements sorted by key; `<none>` for nil or empty, `<error>` for a bad operator. */
export function formatLabelSelector(sel: LabelSelectorLike | undefined | null): string {
  if (!sel) return CELL_NONE;
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of sel.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort(compareGoStrings).join(',');
    switch (e.operator) {
      case 'In':
        reqs.push({ key: e.key, text: `${e.key} in (${vals})` });
        break;
      case 'NotIn':
        reqs.push({ key: e.key, text: `${e.key} notin (${vals})` });
        break;
      case 'Exists':
        reqs.push({ key: e.key, text: e.key });
        break;
      case 'DoesNotExist':
        reqs.push({ key: e.key, text: `!${e.key}` });
        break;
      default:
        return '<error>';
    }
  }
  reqs.sort((a, b) => compareGoStrings(a.key, b.key));
  const s = reqs.map((r) => r.text).join(',');
  return s || CELL_NONE;
}

// ---- ConfigMap/Secret keys (apimachinery util/validation IsConfigMapKey), messages verbatim ----

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** IsConfigMapKey: keys of ConfigMap data/binaryData and Secret data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKey.test(value))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Decoded size of a base64 `[]byte` field (Go's len() of the bytes). */
export function base64Len(b64: string): number {
  return Buffer.from(b64, 'base64').length;
}

/** Order-sensitive deep equality of JSON values (apimachinery's semantic DeepEqual for plain data). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** Sorted keys: Go ranges over maps in random order; we report in a stable one. */
export function sortedKeys(m: Record<string, unknown> | undefined | null): string[] {
  return Object.keys(m ?? {}).sort(compareGoStrings);
}

// ---- columns every kind's table shares ----

/** The NAME column (format "name"), as kube's printers define it. */
export function nameColumn<T extends KObject>(priority = 0): TableColumn<T> {
  return {
    name: 'Name',
    type: 'string',
    format: 'name',
    priority,
    description:
      'Name must be unique within a namespace. It is required when creating resources, although some resources let a client request a generated name. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    cell: (o) => o.metadata.name ?? '',
  };
}

/** The AGE column: HumanDuration since creationTimestamp. */
export function ageColumn<T extends KObject>(): TableColumn<T> {
  return {
    name: 'Age',
    type: 'string',
    description:
      'CreationTimestamp is the server time when this object was created, in RFC3339 form and UTC. Populated by the system; read-only.',
    cell: (o, ctx) => age(o.metadata.creationTimestamp, ctx.now),
  };
}

// Event validation (pkg/apis/core/validation/events.go). The same stored events are written through core/v1
// and events.k8s.io/v1; Kubernetes validates the internal (core-shaped) object and picks the rules by the
// request's group/version: core/v1 gets only the legacy checks, events.k8s.io/v1 the strict ones too.
// Field paths are therefore core names (involvedObject, message, ...) whichever API was used.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { byteLength, isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation.js';
import type { ObjectReference } from '../common.js';
import type { CoreEvent } from './resource.js';
import { jsonEqual, parseTime } from '../../format.js';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** A bad value that prints as given: formatValue renders objects with their own toString (Go's Stringer case). */
const goValue = (text: string) => ({ toString: () => text });

/** time.Time's String(): "2006-01-02 15:04:05.999999999 -0700 MST", in UTC (metav1.Time decodes to the server's zone). */
export function goTimeString(ts: unknown): string {
  const t = parseTime(ts);
  if (t === undefined) return '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(t).toISOString();
  const frac = (/\.(\d+)/.exec(String(ts))?.[1] ?? '').slice(0, 9).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''} +0000 UTC`;
}

/** %#v of an internal struct, e.g. core.EventSource{Component:"kubelet", Host:""}. */
function goStruct(type: string, v: Record<string, unknown> | null | undefined, fields: Array<[string, string]>): string {
  return `core.${type}{${fields.map(([g, j]) => `${g}:${goQuote(String(v?.[j] ?? ''))}`).join(', ')}}`;
}

const REF_FIELDS: Array<[string, string]> = [
  ['Kind', 'kind'],
  ['Namespace', 'namespace'],
  ['Name', 'name'],
  ['UID', 'uid'],
  ['APIVersion', 'apiVersion'],
  ['ResourceVersion', 'resourceVersion'],
  ['FieldPath', 'fieldPath'],
];
const SOURCE_FIELDS: Array<[string, string]> = [
  ['Component', 'component'],
  ['Host', 'host'],
];

const isZero = (ts: unknown) => parseTime(ts) === undefined;

/** legacyValidateEvent: the checks every event write passes. */
function legacyValidateEvent(ev: CoreEvent, strict: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ns = ev.metadata.namespace ?? '';
  const involvedNs = ev.involvedObject?.namespace ?? '';
  const controllerField = strict ? 'reportingController' : 'reportingComponent';
  const mismatch = () => FieldError.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (isZero(ev.eventTime)) {
    // Old-style events: the namespaces must agree ("default" is tolerated for old clients).
    if (involvedNs === '') {
      if (ns !== '' && ns !== 'default') errs.push(mismatch());
    } else if (ns !== involvedNs) errs.push(mismatch());
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch());
    const controller = ev.reportingComponent ?? '';
    if (controller === '') errs.push(FieldError.required(controllerField));
    for (const msg of isQualifiedName(controller)) errs.push(FieldError.invalid(controllerField, controller, msg));
    const limited: Array<[string, string, number, boolean]> = [
      ['reportingInstance', ev.reportingInstance ?? '', REPORTING_INSTANCE_LIMIT, true],
      ['action', ev.action ?? '', ACTION_LIMIT, true],
      ['reason', ev.reason ?? '', REASON_LIMIT, true],
      ['message', ev.message ?? '', NOTE_LIMIT, false],
    ];
    for (const [path, value, limit, required] of limited) {
      if (required && value === '') errs.push(FieldError.required(path));
      if (byteLength(value) > limit) errs.push(FieldError.invalid(path, '', `can have at most ${limit} characters`));
    }
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(FieldError.invalid('namespace', ns, msg));
  return errs;
}

function validateSeries(ev: CoreEvent): FieldError[] {
  if (!ev.series) return [];
  const errs: FieldError[] = [];
  if ((ev.series.count ?? 0) < 2) errs.push(FieldError.invalid('series.count', '', 'should be at least 2'));
  if (isZero(ev.series.lastObservedTime)) errs.push(FieldError.required('series.lastObservedTime'));
  return errs;
}

/**
 * ValidateEventCreate. `strict` is true for writes through events.k8s.io/v1 (object metadata, validated there
 * too by Kubernetes, is left to the generic server).
 */
export function validateEventCreate(ev: CoreEvent, strict: boolean): FieldError[] {
  const errs = legacyValidateEvent(ev, strict);
  if (!strict) return errs;
  errs.push(...validateSeries(ev));
  if (isZero(ev.eventTime)) errs.push(FieldError.required('eventTime'));
  if (ev.type !== 'Normal' && ev.type !== 'Warning')
    errs.push(FieldError.invalid('type', '', `has invalid value: ${ev.type ?? ''}`));
  if (!isZero(ev.firstTimestamp)) errs.push(FieldError.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZero(ev.lastTimestamp)) errs.push(FieldError.invalid('lastTimestamp', '', 'needs to be unset'));
  if ((ev.count ?? 0) !== 0) errs.push(FieldError.invalid('count', '', 'needs to be unset'));
  if (ev.source?.component || ev.source?.host) errs.push(FieldError.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Microsecond-truncated instant: eventTime may change below microsecond precision (kubernetes#111928). */
function micros(ts: unknown): number | undefined {
  const t = parseTime(ts);
  if (t === undefined) return undefined;
  const frac = (/\.(\d+)/.exec(String(ts))?.[1] ?? '').padEnd(6, '0');
  return t * 1000 + Number(frac.slice(3, 6));
}

/** ValidateEventUpdate's events.k8s.io part: legacyValidateEvent(new), which it also runs, is left to the caller. */
export function validateEventUpdateStrict(ev: CoreEvent, old: CoreEvent): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(ev.series ?? null, old.series ?? null)) errs.push(...validateSeries(ev));

  const ref = (v: ObjectReference | null | undefined) => (v ? goValue(goStruct('ObjectReference', v as Record<string, unknown>, REF_FIELDS)) : null);
  const str = (v: string | undefined) => v ?? '';
  // [path, new, old, bad value as Go prints the new one]
  const checks: Array<[string, unknown, unknown, () => unknown]> = [
    ['involvedObject', ev.involvedObject ?? {}, old.involvedObject ?? {}, () => ref(ev.involvedObject ?? {})],
    ['reason', str(ev.reason), str(old.reason), () => str(ev.reason)],
    ['message', str(ev.message), str(old.message), () => str(ev.message)],
    ['source', ev.source ?? {}, old.source ?? {}, () => goValue(goStruct('EventSource', ev.source as Record<string, unknown>, SOURCE_FIELDS))],
    ['firstTimestamp', parseTime(ev.firstTimestamp), parseTime(old.firstTimestamp), () => goValue(goTimeString(ev.firstTimestamp))],
    ['lastTimestamp', parseTime(ev.lastTimestamp), parseTime(old.lastTimestamp), () => goValue(goTimeString(ev.lastTimestamp))],
    ['count', ev.count ?? 0, old.count ?? 0, () => ev.count ?? 0],
    // Kubernetes checks reason twice; the aggregated message shows it once.
    ['reason', str(ev.reason), str(old.reason), () => str(ev.reason)],
    ['type', str(ev.type), str(old.type), () => str(ev.type)],
    ['eventTime', micros(ev.eventTime), micros(old.eventTime), () => goValue(goTimeString(ev.eventTime))],
    ['action', str(ev.action), str(old.action), () => str(ev.action)],
    ['related', ev.related ?? null, old.related ?? null, () => ref(ev.related)],
    ['reportingController', str(ev.reportingComponent), str(old.reportingComponent), () => str(ev.reportingComponent)],
    ['reportingInstance', str(ev.reportingInstance), str(old.reportingInstance), () => str(ev.reportingInstance)],
  ];
  for (const [path, a, b, bad] of checks)
    if (!jsonEqual(a ?? null, b ?? null)) errs.push(FieldError.invalid(path, bad(), 'field is immutable'));
  return errs;
}

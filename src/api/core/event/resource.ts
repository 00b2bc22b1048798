// core/v1 Event: pkg/registry/core/event/strategy.go (no prepare hooks, create-on-update, selectable fields),
// validation in validation.ts, printEvent and its columns in pkg/printers/internalversion/printers.go.
import { s, type Definitions } from '../../../machinery/schema.js';
import { CORE, type ObjectReference } from '../common.js';
import { validateEventCreate } from './validation.js';
import { validatePathSegmentName } from '../../../machinery/validation.js';
import { age, parseTime } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { defineResource, type KObject, type TableColumn } from '../../types.js';

export interface EventSource {
  component?: string;
  host?: string;
}

/** core/v1 Event, the stored form of every event. Times are null when unset, as Go serialises them. */
export interface CoreEvent extends KObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string | null } | null;
  action?: string;
  related?: ObjectReference | null;
  reportingComponent?: string;
  reportingInstance?: string;
}

const doc = {
  involvedObject: 'The object that this event is about.',
  reason: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  message: 'A human-readable description of the status of this operation.',
  source: 'The component reporting this event. Should be a short machine understandable string.',
  firstTimestamp: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  lastTimestamp: 'The time at which the most recent occurrence of this event was recorded.',
  count: 'The number of times this event has occurred.',
  type: 'Type of this event (Normal, Warning), new types could be added in the future',
  fieldPath: 'The part of the object the event is about, as a field access path, e.g. "spec.containers{nginx}".',
};

export const coreEventDefinitions: Definitions = {
  [`${CORE}Event`]: s.obj(
    {
      action: s.str('What action was taken/failed regarding to the Regarding object.'),
      apiVersion: kindHeader().apiVersion,
      count: s.int32(doc.count),
      eventTime: s.microTime('Time when this Event was first observed.'),
      firstTimestamp: s.time(doc.firstTimestamp),
      involvedObject: s.ref(`${CORE}ObjectReference`, doc.involvedObject, { default: {} }),
      kind: kindHeader().kind,
      lastTimestamp: s.time(doc.lastTimestamp),
      message: s.str(doc.message),
      metadata: s.ref(META.ObjectMeta, kindHeader().metadata.description, { default: {} }),
      reason: s.str(doc.reason),
      related: s.ref(`${CORE}ObjectReference`, 'Optional secondary object for more complex actions.'),
      reportingComponent: s.str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.', { default: '' }),
      reportingInstance: s.str('ID of the controller instance, e.g. `kubelet-xyzf`.', { default: '' }),
      series: s.ref(`${CORE}EventSeries`, "Data about the Event series this event represents or nil if it's a singleton Event."),
      source: s.ref(`${CORE}EventSource`, doc.source, { default: {} }),
      type: s.str(doc.type),
    },
    {
      description:
        'Event is a report of an event somewhere in the cluster. Events have a limited retention time, and their triggers and messages may change over time; consumers should treat them as informative, best-effort, supplemental data and not rely on a given Reason meaning a consistent trigger.',
      required: ['metadata', 'involvedObject'],
    },
  ),
  [`${CORE}EventSource`]: s.obj(
    {
      component: s.str('Component from which the event is generated.'),
      host: s.str('Node name on which the event is generated.'),
    },
    { description: 'EventSource contains information for an event.' },
  ),
  [`${CORE}EventSeries`]: s.obj(
    {
      count: s.int32('Number of occurrences in this series up to the last heartbeat time'),
      lastObservedTime: s.microTime('Time of the last occurrence observed'),
    },
    { description: 'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.' },
  ),
  [`${CORE}EventList`]: listDefinition(`${CORE}Event`, 'EventList is a list of events.', 'List of events'),
};

const nonEmpty = (o: Record<string, unknown>, ...keys: string[]) => {
  // deleting a key the object does not have still takes V8's slow path: most of these are absent
  for (const k of keys) {
    const v = o[k];
    if ((v === '' || v === null || v === undefined) && Object.prototype.hasOwnProperty.call(o, k)) delete o[k];
  }
};
/** Go's metav1.Time marshals its zero value as null. */
const timeOrNull = (v: unknown): string | null => (parseTime(v) === undefined ? null : (v as string));

/** An ObjectReference as Go emits it: empty fields omitted. */
export function cleanRef(r: ObjectReference | null | undefined): ObjectReference {
  const out: Record<string, unknown> = { ...(r ?? {}) };
  nonEmpty(out, 'kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath');
  return out as ObjectReference;
}

/**
 * Puts a core/v1 event in the shape Kubernetes serialises: struct fields always present ({} or null times),
 * reportingComponent/reportingInstance always present, omitempty fields dropped when empty.
 */
export function normalizeCoreEvent(ev: CoreEvent): CoreEvent {
  ev.involvedObject = cleanRef(ev.involvedObject);
  const src: Record<string, unknown> = { ...(ev.source ?? {}) };
  nonEmpty(src, 'component', 'host');
  ev.source = src;
  ev.firstTimestamp = timeOrNull(ev.firstTimestamp);
  ev.lastTimestamp = timeOrNull(ev.lastTimestamp);
  ev.eventTime = timeOrNull(ev.eventTime);
  if (ev.series) {
    const series: Record<string, unknown> = { ...ev.series, lastObservedTime: timeOrNull(ev.series.lastObservedTime) };
    if (!series.count) delete series.count;
    ev.series = series as CoreEvent['series'];
  }
  if (ev.related) ev.related = cleanRef(ev.related);
  ev.reportingComponent ??= '';
  ev.reportingInstance ??= '';
  if (!ev.count) delete ev.count;
  nonEmpty(ev as Record<string, unknown>, 'reason', 'message', 'type', 'action', 'related', 'series');
  return ev;
}

/** The LAST SEEN / FIRST SEEN / COUNT logic of printEvent, which prefers series and eventTime data. */
function seen(ev: CoreEvent, now: number): { first: string; last: string; count: number } {
  const first = parseTime(ev.firstTimestamp) !== undefined ? age(ev.firstTimestamp, now) : age(ev.eventTime, now);
  let last = parseTime(ev.lastTimestamp) !== undefined ? age(ev.lastTimestamp, now) : first;
  let count = ev.count ?? 0;
  if (ev.series) {
    last = age(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) count = 1; // singleton events written through events.k8s.io carry no count
  return { first, last, count };
}

/** formatEventSource: component (or reportingController), then ", host" (or reportingInstance) when set. */
export function formatEventSource(ev: CoreEvent): string {
  const component = ev.source?.component || ev.reportingComponent || '';
  const instance = ev.source?.host || ev.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

/** kube's event table (both API groups print the same internal object): wide-only columns have priority 1. */
export function eventColumns<T extends KObject>(toCore: (o: T) => CoreEvent): TableColumn<T>[] {
  const col = (name: string, description: string, priority: number, cell: (ev: CoreEvent, now: number) => string | number): TableColumn<T> => ({
    name,
    type: 'string',
    description,
    priority,
    cell: (o, ctx) => cell(toCore(o), ctx.now),
  });
  const target = (ev: CoreEvent) => {
    const kind = (ev.involvedObject?.kind ?? '').toLowerCase();
    return ev.involvedObject?.name ? `${kind}/${ev.involvedObject.name}` : kind;
  };
  const c: TableColumn<T>[] = [
    col('Last Seen', doc.lastTimestamp, 0, (ev, now) => seen(ev, now).last),
    col('Type', doc.type, 0, (ev) => ev.type ?? ''),
    col('Reason', doc.reason, 0, (ev) => ev.reason ?? ''),
    col('Object', doc.involvedObject, 0, target),
    col('Subobject', doc.fieldPath, 1, (ev) => ev.involvedObject?.fieldPath ?? ''),
    col('Source', doc.source, 1, formatEventSource),
    col('Message', doc.message, 0, (ev) => (ev.message ?? '').trim()),
    col('First Seen', doc.firstTimestamp, 1, (ev, now) => seen(ev, now).first),
    col('Count', doc.count, 1, (ev, now) => seen(ev, now).count),
    col('Name', 'Name of the event.', 1, (ev) => ev.metadata.name ?? ''),
  ];
  c[9].format = 'name';
  return c;
}

export const coreEventResource = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  schemaRef: `${CORE}Event`,
  definitions: coreEventDefinitions,
  columns: eventColumns<CoreEvent>((ev) => ev),
  selectableFields: {
    'involvedObject.kind': (ev) => ev.involvedObject?.kind ?? '',
    'involvedObject.namespace': (ev) => ev.involvedObject?.namespace ?? '',
    'involvedObject.name': (ev) => ev.involvedObject?.name ?? '',
    'involvedObject.uid': (ev) => ev.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (ev) => ev.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (ev) => ev.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (ev) => ev.involvedObject?.fieldPath ?? '',
    reason: (ev) => ev.reason ?? '',
    reportingComponent: (ev) => ev.reportingComponent ?? '',
    source: (ev) => ev.source?.component || ev.reportingComponent || '',
    type: (ev) => ev.type ?? '',
  },
  strategy: {
    defaults: (ev) => void normalizeCoreEvent(ev),
    // core/v1 writes get the legacy checks only, on create and update alike.
    validate: (ev) => validateEventCreate(ev, false),
    // Events have no name rule of their own; only the path-segment check of the generic registry applies.
    validateName: validatePathSegmentName,
    allowCreateOnUpdate: true,
  },
});

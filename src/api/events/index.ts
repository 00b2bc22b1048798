// events.k8s.io/v1 Event: a second view of the core/v1 events (Kubernetes stores both as the internal core
// Event). Conversion as pkg/apis/events/v1/conversion.go; field selectors as its AddFieldLabelConversionsForEvent;
// validation is the core one with the strict events.k8s.io rules (api/core/event/validation.ts).
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE, type ObjectReference } from '../core/common.js';
import { cleanRef, eventColumns, normalizeCoreEvent, type CoreEvent, type EventSource } from '../core/event/resource.js';
import { validateEventCreate, validateEventUpdateStrict } from '../core/event/validation.js';
import { parseTime } from '../format.js';
import { kindHeader, listDefinition, META } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

const EV = 'io.k8s.api.events.v1.';

export interface EventsV1Event extends KObject {
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string | null };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: EventSource;
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
}

export const eventsV1Definitions: Definitions = {
  [`${EV}Event`]: s.obj(
    {
      action: s.str('action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
      apiVersion: kindHeader().apiVersion,
      deprecatedCount: s.int32('deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.'),
      deprecatedFirstTimestamp: s.time('deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
      deprecatedLastTimestamp: s.time('deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.'),
      deprecatedSource: s.ref(`${CORE}EventSource`, 'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.', {
        default: {},
      }),
      eventTime: s.microTime('eventTime is the time when this Event was first observed. It is required.'),
      kind: kindHeader().kind,
      metadata: s.ref(META.ObjectMeta, kindHeader().metadata.description, { default: {} }),
      note: s.str('note is a human-readable description of the status of this operation. Its maximum length is 1kB, but libraries should be prepared to handle values up to 64kB.'),
      reason: s.str('reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.'),
      regarding: s.ref(
        `${CORE}ObjectReference`,
        'regarding contains the object this Event is about. Usually it is an object the reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and emits this event because it acts on a change to a ReplicaSet.',
        { default: {} },
      ),
      related: s.ref(`${CORE}ObjectReference`, 'related is the optional secondary object for more complex actions, e.g. an object the regarding object created or deleted.'),
      reportingController: s.str('reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.'),
      reportingInstance: s.str('reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.'),
      series: s.ref(`${EV}EventSeries`, "series is data about the Event series this event represents or nil if it's a singleton Event."),
      type: s.str('type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.'),
    },
    {
      description:
        'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time, and their triggers and messages may change over time; consumers should not rely on a given reason meaning a consistent trigger, or on events with that reason continuing to exist.',
      required: ['eventTime'],
    },
  ),
  [`${EV}EventSeries`]: s.obj(
    {
      count: s.int32('count is the number of occurrences in this series up to the last heartbeat time.', { default: 0 }),
      lastObservedTime: s.microTime('lastObservedTime is the time when last Event from the series was seen before last heartbeat.'),
    },
    {
      description:
        'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time. How often series are updated depends on the event reporters; see the event reporting best practices in the KEP.',
      required: ['count', 'lastObservedTime'],
    },
  ),
  [`${EV}EventList`]: listDefinition(`${EV}Event`, 'EventList is a list of Event objects.', 'items is a list of schema objects.'),
};

const timeOrNull = (v: unknown): string | null => (parseTime(v) === undefined ? null : (v as string));

/** Convert_v1_Event_To_core_Event: regarding→involvedObject, note→message, deprecated* → the legacy fields. */
export function eventsV1ToCore(ev: EventsV1Event): CoreEvent {
  const { apiVersion: _a, kind: _k, metadata, regarding, note, deprecatedSource, deprecatedFirstTimestamp, deprecatedLastTimestamp, deprecatedCount, reportingController, ...rest } = structuredClone(ev);
  const core: CoreEvent = {
    ...rest,
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: regarding,
    message: note,
    source: deprecatedSource,
    firstTimestamp: deprecatedFirstTimestamp,
    lastTimestamp: deprecatedLastTimestamp,
    count: deprecatedCount,
    reportingComponent: reportingController,
  };
  return normalizeCoreEvent(core);
}

/** Convert_core_Event_To_v1_Event, output in the shape Kubernetes serialises events.k8s.io/v1 events. */
export function coreToEventsV1(stored: KObject): EventsV1Event {
  const c = normalizeCoreEvent(structuredClone(stored) as CoreEvent);
  const out: EventsV1Event = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: c.metadata,
    eventTime: timeOrNull(c.eventTime),
    regarding: cleanRef(c.involvedObject),
    deprecatedSource: { ...c.source },
    deprecatedFirstTimestamp: timeOrNull(c.firstTimestamp),
    deprecatedLastTimestamp: timeOrNull(c.lastTimestamp),
  };
  // The v1 EventSeries has no omitempty: count and lastObservedTime are always written.
  if (c.series) out.series = { count: c.series.count ?? 0, lastObservedTime: timeOrNull(c.series.lastObservedTime) };
  if (c.reportingComponent) out.reportingController = c.reportingComponent;
  if (c.reportingInstance) out.reportingInstance = c.reportingInstance;
  if (c.action) out.action = c.action;
  if (c.reason) out.reason = c.reason;
  if (c.related) out.related = cleanRef(c.related);
  if (c.message) out.note = c.message;
  if (c.type) out.type = c.type;
  if (c.count) out.deprecatedCount = c.count;
  return out;
}

export const eventsV1Resource = defineResource<EventsV1Event>({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  schemaRef: `${EV}Event`,
  definitions: eventsV1Definitions,
  columns: eventColumns<EventsV1Event>(eventsV1ToCore),
  // events.k8s.io field labels, mapped by Kubernetes onto the core selectable fields.
  selectableFields: {
    'regarding.kind': (ev) => ev.regarding?.kind ?? '',
    'regarding.namespace': (ev) => ev.regarding?.namespace ?? '',
    'regarding.name': (ev) => ev.regarding?.name ?? '',
    'regarding.uid': (ev) => ev.regarding?.uid ?? '',
    'regarding.apiVersion': (ev) => ev.regarding?.apiVersion ?? '',
    'regarding.resourceVersion': (ev) => ev.regarding?.resourceVersion ?? '',
    'regarding.fieldPath': (ev) => ev.regarding?.fieldPath ?? '',
    reason: (ev) => ev.reason ?? '',
    reportingController: (ev) => ev.reportingController ?? '',
    source: (ev) => ev.deprecatedSource?.component || ev.reportingController || '',
    type: (ev) => ev.type ?? '',
  },
  strategy: {
    // Decoding goes through the internal type, so a written event already has the shape a read returns.
    defaults(ev) {
      const shaped = coreToEventsV1(eventsV1ToCore(ev));
      for (const k of Object.keys(ev)) if (!(k in shaped)) delete ev[k];
      Object.assign(ev, shaped);
    },
    // Kubernetes runs the create-only strict checks on create only; the generic server here calls validate on
    // updates as well (see the report). validateUpdate adds ValidateEventUpdate's strict part.
    validate: (ev) => validateEventCreate(eventsV1ToCore(ev), true),
    validateUpdate: (ev, old) => validateEventUpdateStrict(eventsV1ToCore(ev), eventsV1ToCore(old)),
    allowCreateOnUpdate: true,
  },
  storedAs: { group: '', plural: 'events', toStored: eventsV1ToCore, fromStored: coreToEventsV1 },
});

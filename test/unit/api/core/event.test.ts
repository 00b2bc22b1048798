import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coreEventResource, normalizeCoreEvent, type CoreEvent } from '../../../../src/api/core/event/resource.js';
import { coreToEventsV1, eventsV1Resource, eventsV1ToCore, type EventsV1Event } from '../../../../src/api/events/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { errors } from '../../../../src/machinery/errors.js';

const core = coreEventResource.strategy;
const v1 = eventsV1Resource.strategy;
const now = Date.parse('2024-05-01T12:00:00Z');

/** A kubelet-style core/v1 event. */
function legacy(extra: Partial<CoreEvent> = {}): CoreEvent {
  return normalizeCoreEvent({
    metadata: { name: 'nginx.17c8e2a1b4f5', namespace: 'default', creationTimestamp: '2024-05-01T11:50:00Z' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'nginx', uid: 'u-1', apiVersion: 'v1', fieldPath: 'spec.containers{nginx}' },
    reason: 'Pulled',
    message: 'Successfully pulled image "nginx"  \n',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-05-01T11:50:00Z',
    lastTimestamp: '2024-05-01T11:55:00Z',
    count: 3,
    type: 'Normal',
    ...extra,
  });
}

/** An events.k8s.io/v1 event as client-go's new recorder writes it. */
function modern(extra: Partial<EventsV1Event> = {}): EventsV1Event {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web.1', namespace: 'default' },
    eventTime: '2024-05-01T11:59:00.123456Z',
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-7f9',
    action: 'Scale',
    reason: 'ScalingUp',
    regarding: { kind: 'Deployment', namespace: 'default', name: 'web', apiVersion: 'apps/v1' },
    note: 'Scaled up to 3',
    type: 'Normal',
    ...extra,
  };
}

const messages = (errs: ReturnType<NonNullable<typeof core.validate>>) => errs.map(String);

describe('core/v1 Event shape', () => {
  it('normalizes to what Kubernetes serialises', () => {
    const e = normalizeCoreEvent({ metadata: { name: 'a', namespace: 'default' }, reason: '', count: 0 });
    assert.deepEqual(e, {
      metadata: { name: 'a', namespace: 'default' },
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
  });
  it('has kube names and selectable fields', () => {
    assert.deepEqual(coreEventResource.shortNames, ['ev']);
    assert.equal(coreEventResource.strategy.allowCreateOnUpdate, true);
    const sf = coreEventResource.selectableFields!;
    const e = legacy();
    assert.equal(sf['involvedObject.name'](e), 'nginx');
    assert.equal(sf['involvedObject.fieldPath'](e), 'spec.containers{nginx}');
    assert.equal(sf.source(e), 'kubelet');
    assert.equal(sf.source(eventsV1ToCore(modern())), 'example.com/controller');
    assert.equal(sf.reportingComponent(eventsV1ToCore(modern())), 'example.com/controller');
    assert.equal(coreEventResource.strategy.validateName!('any thing', false).length, 0);
    assert.deepEqual(coreEventResource.strategy.validateName!('a/b', false), ["may not contain '/'"]);
  });
});

describe('core/v1 Event validation (legacy rules)', () => {
  it('accepts a kubelet event', () => assert.deepEqual(core.validate!(legacy()), []));

  it('requires involvedObject.namespace to match', () => {
    const e = legacy({ involvedObject: { kind: 'Pod', namespace: 'other', name: 'x' } });
    assert.equal(
      errors.invalid('Event', '', 'nginx.17c8e2a1b4f5', core.validate!(e)).message,
      'Event "nginx.17c8e2a1b4f5" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
    // Cluster-scoped objects: the event may live in "default" (or nowhere).
    assert.deepEqual(core.validate!(legacy({ involvedObject: { kind: 'Node', name: 'node-1' } })), []);
    const inKs = legacy({ involvedObject: { kind: 'Node', name: 'node-1' } });
    inKs.metadata.namespace = 'kube-system';
    assert.deepEqual(messages(core.validate!(inKs)), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });

  it('checks reporting fields when eventTime is set, naming reportingComponent', () => {
    const e = legacy({ eventTime: '2024-05-01T11:00:00.000000Z', reason: '' });
    assert.deepEqual(messages(core.validate!(e)), [
      'reportingComponent: Required value',
      'reportingComponent: Invalid value: "": name part must be non-empty',
      "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
    const long = legacy({
      eventTime: '2024-05-01T11:00:00Z',
      reportingComponent: 'kubelet',
      reportingInstance: 'n'.repeat(129),
      action: 'Pull',
      message: 'm'.repeat(1025),
    });
    assert.deepEqual(messages(core.validate!(long)), [
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
  });

  it('lets core/v1 updates change anything (legacy rules only, which validate applies)', () => {
    assert.equal(core.validateUpdate, undefined);
    assert.deepEqual(core.validate!(legacy({ message: 'other', count: 9 })), []);
  });
});

describe('events.k8s.io/v1 Event validation (strict rules)', () => {
  it('accepts a well-formed event', () => assert.deepEqual(v1.validate!(modern()), []));

  it('reports with core field names, reportingController spelled the events.k8s.io way', () => {
    const e = modern({ eventTime: null, type: 'Info', deprecatedCount: 2, deprecatedSource: { component: 'x' }, series: { count: 1, lastObservedTime: null } });
    assert.deepEqual(messages(v1.validate!(e)), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Info',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
    const noController = modern({ reportingController: '' });
    assert.deepEqual(messages(v1.validate!(noController)).slice(0, 1), ['reportingController: Required value']);
  });

  it('makes most fields immutable, printing bad values as Go does', () => {
    const old = modern();
    const e = modern({
      note: 'changed',
      regarding: { kind: 'Deployment', namespace: 'default', name: 'web2', apiVersion: 'apps/v1' },
      eventTime: '2024-05-01T11:59:01Z',
    });
    assert.equal(
      errors.invalid('Event', 'events.k8s.io', 'web.1', v1.validateUpdate!(e, old)).message,
      'Event.events.k8s.io "web.1" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:"Deployment", Namespace:"default", Name:"web2", UID:"", APIVersion:"apps/v1", ResourceVersion:"", FieldPath:""}: field is immutable, message: Invalid value: "changed": field is immutable, eventTime: Invalid value: 2024-05-01 11:59:01 +0000 UTC: field is immutable]',
    );
    // Sub-microsecond differences in eventTime are tolerated; series may change.
    const sameish = modern({ eventTime: '2024-05-01T11:59:00.123456789Z', series: { count: 2, lastObservedTime: '2024-05-01T11:59:30.000000Z' } });
    assert.deepEqual(v1.validateUpdate!(sameish, old), []);
  });
});

describe('conversion core/v1 ↔ events.k8s.io/v1', () => {
  it('maps fields as Kubernetes does', () => {
    const out = coreToEventsV1(legacy({ reportingComponent: 'kubelet', reportingInstance: 'node-1' }));
    assert.deepEqual(out, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'nginx.17c8e2a1b4f5', namespace: 'default', creationTimestamp: '2024-05-01T11:50:00Z' },
      eventTime: null,
      regarding: { kind: 'Pod', namespace: 'default', name: 'nginx', uid: 'u-1', apiVersion: 'v1', fieldPath: 'spec.containers{nginx}' },
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-05-01T11:50:00Z',
      deprecatedLastTimestamp: '2024-05-01T11:55:00Z',
      reportingController: 'kubelet',
      reportingInstance: 'node-1',
      reason: 'Pulled',
      note: 'Successfully pulled image "nginx"  \n',
      type: 'Normal',
      deprecatedCount: 3,
    });
  });

  it('round-trips core → events.k8s.io → core', () => {
    const c = legacy({
      series: { count: 4, lastObservedTime: '2024-05-01T11:58:00.000001Z' },
      related: { kind: 'Node', name: 'node-1' },
      action: 'Pulling',
      eventTime: '2024-05-01T11:50:00.5Z',
    });
    assert.deepEqual(eventsV1ToCore(coreToEventsV1(structuredClone(c) as KObject)), { ...c, apiVersion: 'v1', kind: 'Event' });
  });

  it('round-trips events.k8s.io → core → events.k8s.io', () => {
    const m = modern({ series: { count: 2, lastObservedTime: '2024-05-01T11:59:30.000000Z' }, related: { kind: 'ReplicaSet', name: 'web-1' } });
    const back = coreToEventsV1(eventsV1ToCore(m));
    assert.deepEqual(back, {
      ...m,
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
    const stored = eventsV1ToCore(m);
    assert.equal(stored.apiVersion, 'v1');
    assert.equal(stored.reportingComponent, 'example.com/controller');
    assert.equal(stored.message, 'Scaled up to 3');
    assert.deepEqual(stored.source, {});
    assert.equal(stored.firstTimestamp, null);
  });

  it('gives written events.k8s.io events their read shape in defaults', () => {
    const e = modern();
    v1.defaults!(e);
    assert.deepEqual(e, { ...modern(), deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
  });

  it('is wired as a second view of the core events', () => {
    assert.deepEqual(
      { group: eventsV1Resource.storedAs!.group, plural: eventsV1Resource.storedAs!.plural },
      { group: '', plural: 'events' },
    );
    const sf = eventsV1Resource.selectableFields!;
    assert.equal(sf['regarding.name'](modern()), 'web');
    assert.equal(sf.reportingController(modern()), 'example.com/controller');
    assert.equal(sf.source(modern()), 'example.com/controller');
  });
});

describe('event tables (printEvent)', () => {
  const names = ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name'];
  it('has kube columns, wide-only ones at priority 1', () => {
    assert.deepEqual(coreEventResource.columns.map((c) => c.name), names);
    assert.deepEqual(eventsV1Resource.columns.map((c) => c.name), names);
    assert.deepEqual(coreEventResource.columns.filter((c) => !c.priority).map((c) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
  });

  it('prints a legacy event', () => {
    assert.deepEqual(coreEventResource.columns.map((c) => c.cell(legacy(), { now })), [
      '5m',
      'Normal',
      'Pulled',
      'pod/nginx',
      'spec.containers{nginx}',
      'kubelet, node-1',
      'Successfully pulled image "nginx"',
      '10m',
      3,
      'nginx.17c8e2a1b4f5',
    ]);
  });

  it('prints an events.k8s.io event from eventTime and series, defaulting count to 1', () => {
    const cells = (e: EventsV1Event) => eventsV1Resource.columns.map((c) => c.cell(e, { now }));
    assert.deepEqual(cells(modern()), ['59s', 'Normal', 'ScalingUp', 'deployment/web', '', 'example.com/controller, controller-7f9', 'Scaled up to 3', '59s', 1, 'web.1']);
    const series = cells(modern({ series: { count: 7, lastObservedTime: '2024-05-01T11:59:50.000000Z' } }));
    assert.deepEqual([series[0], series[7], series[8]], ['10s', '59s', 7]);
    const bare = cells(modern({ eventTime: null, regarding: { kind: 'Node' } }));
    assert.deepEqual([bare[0], bare[3], bare[7]], ['<unknown>', 'node', '<unknown>']);
  });
});

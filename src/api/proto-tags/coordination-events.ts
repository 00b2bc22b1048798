// Protobuf field numbers of coordination.k8s.io/v1 and events.k8s.io/v1 types.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33.13.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const C = 'io.k8s.api.coordination.v1.';
const E = 'io.k8s.api.events.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const coordinationEventsProtoTags: ProtoTags = {
  [C + 'Lease']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [C + 'LeaseSpec']: {
    holderIdentity: k(1), leaseDurationSeconds: k(2), acquireTime: 3, renewTime: 4, leaseTransitions: k(5), strategy: k(6),
    preferredHolder: k(7),
  },
  [C + 'LeaseList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [E + 'Event']: {
    apiVersion: 0, kind: 0, metadata: 1, eventTime: 2, series: 3, reportingController: 4, reportingInstance: 5, action: 6,
    reason: 7, regarding: 8, related: 9, note: 10, type: 11, deprecatedSource: 12, deprecatedFirstTimestamp: 13,
    deprecatedLastTimestamp: 14, deprecatedCount: 15,
  },
  [E + 'EventSeries']: { count: k(1), lastObservedTime: 2 },
  [E + 'EventList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
};

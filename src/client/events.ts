// Events as controllers write them (client-go's EventRecorder + correlator): one core/v1 Event per involved object,
// reason and message; repeats within 10 minutes bump count and lastTimestamp instead of creating a new object.
import type { KObject } from '../api/types.js';
import { rfc3339 } from '../machinery/object.js';
import { StatusError } from '../machinery/errors.js';
import type { Client } from './types.js';

export type EventType = 'Normal' | 'Warning';

interface Seen {
  name: string;
  namespace: string;
  count: number;
  last: number;
}

const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly client: Client,
    readonly component: string,
    private readonly host = '',
    private readonly log: (line: string) => void = (l) => console.error(l),
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an event; never throws (events are best effort, as in Kubernetes). */
  event(obj: KObject, type: EventType, reason: string, message: string): void {
    void this.write(obj, type, reason, message).catch((e) => {
      this.log(`k1s: event ${reason} for ${obj.kind}/${obj.metadata.name}: ${(e as Error).message}`);
    });
  }

  /** The same, awaited (tests and shutdown paths). */
  async write(obj: KObject, type: EventType, reason: string, message: string): Promise<void> {
    const ns = obj.metadata.namespace || 'default';
    const key = [obj.metadata.uid, type, reason, message].join('\u0000');
    const t = this.now();
    const ts = rfc3339(t);
    const rc = this.client.resource('v1', 'events');
    const prev = this.seen.get(key);
    if (prev && t - prev.last < AGGREGATE_WINDOW_MS) {
      prev.count++;
      prev.last = t;
      try {
        await rc.patch(prev.namespace, prev.name, 'merge', { count: prev.count, lastTimestamp: ts });
        return;
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    if (this.seen.size > 4096) this.seen.clear();
    const name = `${obj.metadata.name}.${(BigInt(t) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`;
    await rc.create(ns, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: {
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        uid: obj.metadata.uid,
        apiVersion: obj.apiVersion,
        resourceVersion: obj.metadata.resourceVersion,
      },
      reason,
      message,
      source: this.host ? { component: this.component, host: this.host } : { component: this.component },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: this.component,
      reportingInstance: this.host,
    } as unknown as KObject);
    this.seen.set(key, { name, namespace: ns, count: 1, last: t });
  }
}

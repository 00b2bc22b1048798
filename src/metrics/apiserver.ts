// kube-apiserver's request, watch and admission families (k8s.io/apiserver endpoints/metrics and admission/metrics):
// the same names, label names, buckets and stability levels.
import { Counter, Gauge, Histogram, type GaugeCell } from './family.js';

const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];

/** The values of one request's labels, in kube's order (verb, dry_run, group, version, resource, subresource, scope, component). */
export type RequestLabels = readonly [verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string, component: string];

export type RequestKind = 'readOnly' | 'mutating';

/** the highest count of a kind of request in flight within the last second (kube's watermark, not the instant value) */
class Inflight {
  private current = 0;
  private max = 0;
  private since = 0;
  constructor(private readonly cell: GaugeCell) {}
  inc(now: number): void {
    this.current++;
    if (now - this.since > 1000) {
      this.since = now;
      this.max = this.current;
    } else if (this.current > this.max) this.max = this.current;
  }
  dec(): void {
    this.current--;
  }
  publish(now: number): void {
    this.cell.set(now - this.since > 1000 ? this.current : Math.max(this.max, this.current));
  }
}

export class ApiServerMetrics {
  readonly requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    stability: 'STABLE',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
  });
  readonly durations = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    stability: 'STABLE',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    buckets: REQUEST_BUCKETS,
  });
  readonly inflightGauge = new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    stability: 'STABLE',
    labelNames: ['request_kind'],
  });
  readonly watchEvents = new Counter({
    name: 'apiserver_watch_events_total',
    help: 'Number of events sent in watch clients',
    stability: 'ALPHA',
    labelNames: ['group', 'version', 'resource'],
  });
  readonly registeredWatchers = new Gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    stability: 'ALPHA',
    labelNames: ['group', 'version', 'resource'],
  });
  readonly admissionStep = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
  });
  readonly admissionController = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
  });
  readonly admissionWebhook = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: WEBHOOK_BUCKETS,
  });
  private readonly inflight: Record<RequestKind, Inflight> = {
    readOnly: new Inflight(this.inflightGauge.with('readOnly')),
    mutating: new Inflight(this.inflightGauge.with('mutating')),
  };

  constructor() {
    this.inflightGauge.collect = () => {
      const now = Date.now();
      this.inflight.readOnly.publish(now);
      this.inflight.mutating.publish(now);
    };
  }

  families() {
    return [this.requests, this.durations, this.inflightGauge, this.watchEvents, this.registeredWatchers, this.admissionStep, this.admissionController, this.admissionWebhook];
  }

  /** a request starts (long-running ones, watches, are not counted, as kube's max-inflight filter) */
  started(kind: RequestKind): void {
    this.inflight[kind].inc(Date.now());
  }

  finished(kind: RequestKind): void {
    this.inflight[kind].dec();
  }

  /** one finished request: its counter (with the HTTP code) and its latency */
  record(labels: RequestLabels, code: number, seconds: number): void {
    this.requests.with(...labels, String(code)).inc();
    this.durations.with(...labels).observe(seconds);
  }
}

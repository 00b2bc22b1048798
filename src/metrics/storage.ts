// The storage layer's families (k8s.io/apiserver storage/etcd3/metrics): kube names them after etcd; k1s records them
// for whichever store it runs on (SQLite by default).
import { Counter, Gauge, Histogram, type HistogramCell, type CounterCell } from './family.js';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export class StorageMetrics {
  readonly durations = new Histogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    stability: 'ALPHA',
    labelNames: ['operation', 'type'],
    buckets: BUCKETS,
  });
  readonly requests = new Counter({
    name: 'etcd_requests_total',
    help: 'Etcd request counts for each operation and object type.',
    stability: 'ALPHA',
    labelNames: ['operation', 'type'],
  });
  readonly errors = new Counter({
    name: 'etcd_request_errors_total',
    help: 'Etcd failed request counts for each operation and object type.',
    stability: 'ALPHA',
    labelNames: ['operation', 'type'],
  });
  /** set at each scrape by whoever knows the resources (the API server's registry) */
  readonly objects = new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    stability: 'STABLE',
    labelNames: ['resource'],
  });
  readonly dbSize = new Gauge({
    name: 'apiserver_storage_size_bytes',
    help: 'Size of the storage database file physically allocated in bytes.',
    stability: 'STABLE',
    labelNames: ['storage_cluster_id'],
  });
  private readonly cells = new Map<string, { d: HistogramCell; n: CounterCell }>();

  families() {
    return [this.durations, this.requests, this.errors, this.objects, this.dbSize];
  }

  /** one storage request of `operation` on objects of `type` (kube's group-resource string: pods, deployments.apps) */
  record(operation: string, type: string, seconds: number, failed = false): void {
    const k = `${operation}\u0000${type}`;
    let c = this.cells.get(k);
    if (!c) this.cells.set(k, (c = { d: this.durations.with(operation, type), n: this.requests.with(operation, type) }));
    c.d.observe(seconds);
    c.n.inc();
    if (failed) this.errors.with(operation, type).inc();
  }
}

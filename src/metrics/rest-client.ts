// client-go's rest_client families (component-base/metrics/prometheus/restclient): every request a component's
// client makes, by host, method and code.
import { Counter, Histogram } from './family.js';

export class RestClientMetrics {
  readonly requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    stability: 'ALPHA',
    labelNames: ['code', 'host', 'method'],
  });
  readonly durations = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    stability: 'ALPHA',
    labelNames: ['host', 'verb'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0],
  });

  families() {
    return [this.requests, this.durations];
  }

  /** code: the HTTP status, or '<error>' when no response came (client-go's word) */
  record(host: string, method: string, code: number | '<error>', seconds: number): void {
    this.requests.with(String(code), host, method).inc();
    this.durations.with(host, method).observe(seconds);
  }
}

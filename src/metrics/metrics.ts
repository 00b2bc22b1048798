// The metrics of one cluster: every component's families in one prom-client Registry (kube serves them on each
// component's own port; k1s is one process and serves them all on the API server's /metrics). One instance per
// cluster, never a module-level registry: several clusters may run in one process.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { Gauge } from './family.js';
import { ApiServerMetrics } from './apiserver.js';
import { StorageMetrics } from './storage.js';
import { WorkQueueFamilies } from './workqueue.js';
import { SchedulerMetrics } from './scheduler.js';
import { RestClientMetrics } from './rest-client.js';

// require() rather than import: a CommonJS package, loaded at the first scrape
const prom = () => createRequire(import.meta.url)('prom-client') as typeof PromClient;

export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_TEXT = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

export interface MetricsOptions {
  /** /version's fields: kubernetes_build_info's labels */
  version: Record<string, string>;
  /** process_* and nodejs_* (prom-client's default metrics; default on) */
  processMetrics?: boolean;
}

interface Exposed {
  name: string;
  type: string;
  get(): Promise<{ name: string } & Record<string, unknown>>;
}

export class Metrics {
  readonly apiserver = new ApiServerMetrics();
  readonly storage = new StorageMetrics();
  readonly workqueue = new WorkQueueFamilies();
  readonly scheduler = new SchedulerMetrics();
  readonly restClient = new RestClientMetrics();
  private exposed?: PromClient.Registry;

  constructor(private readonly opts: MetricsOptions) {}

  /**
   * The prom-client registry, made at the first scrape: recording needs no prom-client, and loading it (~40 ms)
   * stays off the start-up path. The process figures it adds (GC, event-loop delay) count from then on.
   */
  get registry(): PromClient.Registry {
    return (this.exposed ??= componentRegistry([
      ...this.apiserver.families(), ...this.storage.families(), ...this.workqueue.families(), ...this.scheduler.families(), ...this.restClient.families(),
    ], this.opts));
  }

  /** The exposition the Accept header asks for (renderRegistry). */
  render(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    return renderRegistry(this.registry, accept);
  }
}

/** kubernetes_build_info from /version's fields */
function buildInfo(v: Record<string, string>): Gauge {
  const build = new Gauge({
    name: 'kubernetes_build_info',
    help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    stability: 'ALPHA',
    labelNames: ['build_date', 'compiler', 'git_commit', 'git_tree_state', 'git_version', 'go_version', 'major', 'minor', 'platform'],
  });
  build.with(v.buildDate ?? '', v.compiler ?? '', v.gitCommit ?? '', v.gitTreeState ?? '', v.gitVersion ?? '', v.goVersion ?? '', v.major ?? '', v.minor ?? '', v.platform ?? '').set(1);
  return build;
}

/** A component's registry (each kube component has its own): its families, build info and the process figures. */
export function componentRegistry(families: readonly { name: string; type: string }[], opts: MetricsOptions): PromClient.Registry {
  const p = prom();
  const registry = new p.Registry();
  for (const f of [buildInfo(opts.version), ...families]) registry.registerMetric(f as unknown as PromClient.Metric);
  if (opts.processMetrics !== false) p.collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The exposition the Accept header asks for: OpenMetrics 1.0 for `application/openmetrics-text`, else the
 * Prometheus text format 0.0.4.
 */
export async function renderRegistry(registry: PromClient.Registry, accept: string | undefined): Promise<{ contentType: string; body: string }> {
  if (!wantsOpenMetrics(accept)) return { contentType: PROMETHEUS_TEXT, body: await registry.metrics() };
  const p = prom();
  // a registry of views: prom-client renames an OpenMetrics registry's counters in place (drops `_total`), which
  // must not change what the Prometheus registry prints
  const om = new (p.Registry as unknown as new (type: string) => PromClient.Registry)(p.Registry.OPENMETRICS_CONTENT_TYPE);
  for (const m of registry.getMetricsAsArray() as unknown as Exposed[]) {
    const family = m.type === 'counter' ? m.name.replace(/_total$/, '') : m.name;
    const view: Exposed = { name: family, type: m.type, get: async () => ({ ...(await m.get()), name: family }) };
    om.registerMetric(view as unknown as PromClient.Metric);
  }
  return { contentType: OPENMETRICS_TEXT, body: await om.metrics() };
}

/** Whether an Accept header lists application/openmetrics-text (with a q above 0). */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().split(';').map((s) => s.trim());
    if (type?.toLowerCase() !== 'application/openmetrics-text') return false;
    const q = params.find((x) => x.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

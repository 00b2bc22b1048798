// metrics-server's scrape loop inside the API server process: every resolution (15 s, its --metric-resolution
// default) it GETs /metrics/resource from the kubelet of each real node (simulated ones are skipped: their usage is
// computed from objects) and records the samples in a RealUsageStore, which the metrics.k8s.io API reads. When a
// scrape finds series with a single point (a new pod, a node just seen), the next pass comes after `firstWindowMs`
// instead, and a request for usage not known yet brings the next pass forward to `firstWindowMs` from now, so
// `kubectl top` has a rate seconds after a pod starts rather than up to two resolutions later.
import type { Client } from '../../client/types.js';
import { Informer } from '../../client/informer.js';
import type { KObject } from '../../api/types.js';
import { parseResourceMetrics, type RealUsageStore } from '../../api/metrics/real-usage.js';
import { kubeletEndpoint, KubeletConnection, type KubeletClientTls } from '../../apiserver/streams/kubelet-connection.js';

export interface KubeletMetricsScraperOptions {
  client: Client;
  /** the API server's kubelet client identity */
  kubeletClient: KubeletClientTls;
  usage: RealUsageStore;
  /** nodes whose usage is not scraped (simulated nodes) */
  skipNode: (node: KObject) => boolean;
  resolutionMs?: number;
  firstWindowMs?: number;
  /** per-kubelet request timeout (metrics-server: 0.9 × resolution, at most 10 s) */
  timeoutMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

export const DEFAULT_METRIC_RESOLUTION_MS = 15_000;

export class KubeletMetricsScraper {
  private readonly kubelet: KubeletConnection;
  /** nodes, so which ones are real is known as soon as they register (not only at the next pass) */
  private readonly nodes: Informer;
  private timer: NodeJS.Timeout | undefined;
  /** when the pending pass fires (ms since the epoch; 0 while a pass runs) */
  private nextAt = 0;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** the last error logged per node, so a down kubelet is reported once, not every pass */
  private readonly lastError = new Map<string, string>();

  constructor(private readonly opts: KubeletMetricsScraperOptions) {
    this.kubelet = new KubeletConnection(opts.kubeletClient);
    opts.usage.onMiss(() => this.soon());
    this.nodes = new Informer(opts.client, 'v1', 'nodes', { log: opts.log });
    const changed = () => this.opts.usage.setRealNodes(this.realNodes().map((n) => n.metadata.name ?? ''));
    this.nodes.addHandler({
      add: (n) => {
        changed();
        if (!opts.skipNode(n)) this.soon();
      },
      update: changed,
      delete: changed,
    });
  }

  private realNodes(): KObject[] {
    return this.nodes.list().filter((n) => !this.opts.skipNode(n));
  }

  /** Brings the pending pass forward to firstWindowMs from now (never while one runs). */
  private soon(): void {
    const at = Date.now() + (this.opts.firstWindowMs ?? 2000);
    if (this.stopped || this.nextAt === 0 || this.nextAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(this.opts.firstWindowMs ?? 2000);
  }

  /** Resolves once the nodes are known (real nodes' pods never show simulated usage); the first pass follows. */
  async start(): Promise<void> {
    await this.nodes.start();
    this.opts.usage.setRealNodes(this.realNodes().map((n) => n.metadata.name ?? ''));
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nodes.stop();
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.nextAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.nextAt = 0;
      this.running = this.scrapeAll()
        .catch((e) => this.opts.log?.(`k1s: metrics: ${(e as Error).message}`))
        .finally(() => {
          const resolution = this.opts.resolutionMs ?? DEFAULT_METRIC_RESOLUTION_MS;
          this.schedule(this.opts.usage.hasFreshSeries() ? Math.min(resolution, this.opts.firstWindowMs ?? 2000) : resolution);
        });
    }, ms);
    this.timer.unref?.();
  }

  /** One pass over every real node. */
  async scrapeAll(): Promise<void> {
    await Promise.all(this.realNodes().map((n) => this.scrapeNode(n)));
  }

  private async scrapeNode(node: KObject): Promise<void> {
    const name = node.metadata.name ?? '';
    try {
      const text = await this.fetch(node);
      this.opts.usage.record(name, parseResourceMetrics(text, (this.opts.now ?? Date.now)()));
      if (this.lastError.delete(name)) this.opts.log?.(`k1s: metrics: scraping node ${name} works again`);
    } catch (e) {
      const msg = (e as Error).message;
      if (this.lastError.get(name) !== msg) this.opts.log?.(`k1s: metrics: failed to scrape node ${name}: ${msg}`);
      this.lastError.set(name, msg);
    }
  }

  private async fetch(node: KObject): Promise<string> {
    const ep = kubeletEndpoint(node);
    const resolution = this.opts.resolutionMs ?? DEFAULT_METRIC_RESOLUTION_MS;
    const signal = AbortSignal.timeout(this.opts.timeoutMs ?? Math.min(10_000, resolution * 0.9));
    const res = await this.kubelet.get(ep, '/metrics/resource', signal);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (res.statusCode !== 200) throw new Error(`request failed, status: "${res.statusCode} ${res.statusMessage ?? ''}"`);
    return body;
  }
}

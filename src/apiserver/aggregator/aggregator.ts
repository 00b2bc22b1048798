// The aggregation layer of one API server: the APIServices in force, their autoregistration, availability,
// remote discovery and the proxy to extension API servers, started and stopped together.
import type { Registry } from '../registry/registry.js';
import { compareVersions } from '../discovery/documents.js';
import { APIServiceCache } from './apiservice-cache.js';
import { AutoRegistration } from './autoregister.js';
import { AvailabilityController } from './availability.js';
import type { ProxyClientCert } from './backend.js';
import { AggregatorProxy } from './proxy.js';
import { RemoteDiscovery } from './remote-discovery.js';

export interface AggregatorOptions {
  /** the front-proxy client certificate presented to extension API servers (none: they see no client certificate) */
  clientCert?: ProxyClientCert;
  /** how often remote APIServices are checked besides on changes (default 30 s) */
  resyncMs?: number;
  log?: (msg: string) => void;
}

export class Aggregator {
  readonly cache: APIServiceCache;
  readonly autoregistration: AutoRegistration;
  private availability?: AvailabilityController;
  private remoteDiscovery?: RemoteDiscovery;
  private aggregatorProxy?: AggregatorProxy;
  private started = false;

  constructor(
    private readonly registry: Registry,
    private readonly opts: AggregatorOptions = {},
  ) {
    this.cache = new APIServiceCache(registry);
    this.autoregistration = new AutoRegistration(registry, this.cache, opts.log);
  }

  /** Sets the client certificate; before start only. */
  useClientCert(cert: ProxyClientCert): void {
    if (this.started) throw new Error('the aggregator is running already');
    this.opts.clientCert = cert;
  }

  /** Follows the stored APIServices and registers the local ones; call once the CRDs are served. */
  async start(): Promise<void> {
    this.started = true;
    const { clientCert, log } = this.opts;
    await this.cache.start();
    this.availability = new AvailabilityController(this.registry, this.cache, { clientCert, log, resyncMs: this.opts.resyncMs });
    this.remoteDiscovery = new RemoteDiscovery(this.registry, this.cache, compareVersions, clientCert);
    this.aggregatorProxy = new AggregatorProxy(this.registry, this.cache, clientCert, (name) => this.availability?.enqueue(name));
    await this.autoregistration.start();
    this.availability.start();
    this.remoteDiscovery.start();
  }

  stop(): void {
    this.autoregistration.stop();
    this.availability?.stop();
    this.remoteDiscovery?.stop();
    this.cache.stop();
  }

  /** The proxy (undefined before start: then nothing is proxied). */
  get proxy(): AggregatorProxy | undefined {
    return this.aggregatorProxy;
  }

  get discovery(): RemoteDiscovery | undefined {
    return this.remoteDiscovery;
  }

  /** Settles once the work under way (autoregistration, availability checks) is done; for tests. */
  async idle(): Promise<void> {
    await this.autoregistration.idle();
    await this.availability?.idle();
  }
}

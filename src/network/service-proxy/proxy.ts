// The node's service proxy (kube-proxy in iptables mode): Services and EndpointSlices informers feed a batched
// sync that rewrites k1s' chains in one iptables-restore transaction. Changes inside one batch window (default
// 10 ms) are applied together; a change during a sync triggers another right after it.
import type { Client } from '../../client/types.js';
import { Informer } from '../../client/informer.js';
import { ConntrackCleaner } from './conntrack.js';
import { buildServicePorts, type ServicePortInfo } from './model.js';
import { buildProxyRules, chainContents, restoreText, type ChainContents, type ProxyRules } from './rules.js';
import { ensureProxySysctls, iptablesRestore, readHostChains, removeProxyChains } from './iptables.js';

export interface ServiceProxyOptions {
  client: Client;
  nodeName: string;
  /** the pod network (masquerade traffic from outside it to cluster IPs); default 10.42.0.0/16 */
  clusterCIDR?: string;
  masqueradeAll?: boolean;
  /** chain prefix; default K1S (tests use their own so proxies in one host stay apart) */
  prefix?: string;
  /** how long a change waits for others to join its sync (kube-proxy's minSyncPeriod); default 10 ms */
  batchMs?: number;
  /** full re-check of the jumps from built-in chains (someone may flush them); default 60 s */
  resyncMs?: number;
  /** NodePorts answer on 127.0.0.1 (sets route_localnet); default true */
  localhostNodePorts?: boolean;
  /** flush stale UDP conntrack entries after endpoint changes (default true; needs the conntrack tool) */
  conntrackCleanup?: boolean;
  log?: (line: string) => void;
}

export interface SyncStats {
  syncs: number;
  failures: number;
  lastSyncMs: number;
  lastRules: number;
  /** `iptables-restore` lines the last sync wrote (a partial sync writes only changed chains) */
  lastWrittenLines: number;
  /** when the last successful sync finished (Date.now()) */
  lastSyncAt: number;
  /** `conntrack -D` filters applied for stale UDP flows since start */
  conntrackDeletes: number;
}

export class ServiceProxy {
  readonly prefix: string;
  private readonly services: Informer;
  private readonly slices: Informer;
  private timer?: NodeJS.Timeout;
  private resyncTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private dirty = false;
  private stopped = false;
  private checkHost = true;
  private known = { nat: [] as string[], filter: [] as string[] };
  private readonly syncWaiters: Array<() => void> = [];
  private applied?: ProxyRules;
  /** what the host has in k1s' chains after the last sync (undefined: unknown, next sync rewrites everything) */
  private written?: { nat: ChainContents; filter: ChainContents };
  private readonly appliedWaiters = new Set<() => void>();
  readonly stats: SyncStats = { syncs: 0, failures: 0, lastSyncMs: 0, lastRules: 0, lastWrittenLines: 0, lastSyncAt: 0, conntrackDeletes: 0 };
  private readonly conntrack?: ConntrackCleaner;

  private constructor(private readonly opts: ServiceProxyOptions) {
    this.prefix = opts.prefix ?? 'K1S';
    const log = opts.log;
    // only flows of this pod network: other k1s clusters on the machine may use the same Service IPs
    if (opts.conntrackCleanup !== false) this.conntrack = new ConntrackCleaner({ scope: [opts.clusterCIDR ?? '10.42.0.0/16'], log });
    this.services = new Informer(opts.client, 'v1', 'services', { log });
    this.slices = new Informer(opts.client, 'discovery.k8s.io/v1', 'endpointslices', { log });
    const changed = { add: () => this.queueSync(), update: () => this.queueSync(), delete: () => this.queueSync() };
    this.services.addHandler(changed);
    this.slices.addHandler(changed);
  }

  /** Starts the informers and resolves after the first sync programmed the host. */
  static async start(opts: ServiceProxyOptions): Promise<ServiceProxy> {
    const proxy = new ServiceProxy(opts);
    for (const p of await ensureProxySysctls({ localhostNodePorts: opts.localhostNodePorts ?? true })) opts.log?.(`k1s: service proxy: ${p}`);
    await Promise.all([proxy.services.start(), proxy.slices.start()]);
    await Promise.all([proxy.services.waitForSync(), proxy.slices.waitForSync()]);
    await proxy.syncNow();
    proxy.resyncTimer = setInterval(() => {
      proxy.checkHost = true;
      proxy.queueSync();
    }, opts.resyncMs ?? 60_000);
    proxy.resyncTimer.unref();
    return proxy;
  }

  /** The rules the current caches ask for (what the next sync writes). */
  desiredRules(): ProxyRules {
    return this.rulesFor(this.desiredPorts());
  }

  private desiredPorts(): ServicePortInfo[] {
    return buildServicePorts(this.services.list(), this.slices.list(), { nodeName: this.opts.nodeName });
  }

  private rulesFor(ports: ServicePortInfo[]): ProxyRules {
    return buildProxyRules(ports, { prefix: this.prefix, clusterCIDR: this.opts.clusterCIDR ?? '10.42.0.0/16', masqueradeAll: this.opts.masqueradeAll });
  }

  /** Resolves after a sync that started after this call has finished (tests, `k1s start` readiness). */
  async syncNow(): Promise<void> {
    const done = new Promise<void>((resolve) => this.syncWaiters.push(resolve));
    this.queueSync(0);
    await done;
  }

  private queueSync(delay = this.opts.batchMs ?? 10): void {
    if (this.stopped) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    if (this.timer && delay > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.sync().finally(() => {
        this.running = undefined;
        if (this.dirty) {
          this.dirty = false;
          this.queueSync(0);
        }
      });
    }, delay);
  }

  private async sync(): Promise<void> {
    const waiters = this.syncWaiters.splice(0);
    const t0 = performance.now();
    try {
      if (this.stopped) return;
      const ports = this.desiredPorts();
      const rules = this.rulesFor(ports);
      let missingJumps: Awaited<ReturnType<typeof readHostChains>>['missingJumps'] = [];
      if (this.checkHost) {
        const host = await readHostChains(this.prefix);
        this.known = { nat: union(this.known.nat, host.nat), filter: union(this.known.filter, host.filter) };
        missingJumps = host.missingJumps;
        this.written = undefined;
      }
      const text = restoreText(rules, { stale: this.known, missingJumps, previous: this.written });
      if (text) await iptablesRestore(text);
      this.stats.lastWrittenLines = text ? text.split('\n').length - 1 : 0;
      this.written = { nat: chainContents(rules.nat), filter: chainContents(rules.filter) };
      this.checkHost = false;
      this.known = { nat: rules.nat.chains, filter: rules.filter.chains };
      this.applied = rules;
      for (const w of [...this.appliedWaiters]) w();
      this.stats.syncs++;
      this.stats.lastRules = rules.nat.rules.length + rules.filter.rules.length;
      this.stats.lastSyncMs = performance.now() - t0;
      this.stats.lastSyncAt = Date.now();
      // after the rules: new packets of a flushed flow must meet the new DNAT
      await this.cleanConntrack(ports);
    } catch (e) {
      // a failed transaction changed nothing; re-read the host and try again shortly
      this.stats.failures++;
      this.checkHost = true;
      this.written = undefined;
      this.opts.log?.(`k1s: service proxy: sync failed: ${(e as Error).message}`);
      if (!this.stopped) setTimeout(() => this.queueSync(0), 1000).unref();
    } finally {
      for (const w of waiters) w();
    }
  }

  private async cleanConntrack(ports: ServicePortInfo[]): Promise<void> {
    try {
      const filters = (await this.conntrack?.cleanup(ports)) ?? [];
      this.stats.conntrackDeletes += filters.length;
    } catch (e) {
      this.opts.log?.(`k1s: service proxy: conntrack cleanup: ${(e as Error).message}`);
    }
  }

  /** Whether the rules on the host DNAT connections to `ip:port` (the Service has usable endpoints). */
  routes(ip: string, port: number, protocol = 'TCP'): boolean {
    const match = ` -p ${protocol.toLowerCase()} -d ${ip} --dport ${port} -j `;
    return !!this.applied?.nat.rules.some((l) => l.startsWith(`-A ${this.prefix}-SERVICES `) && l.includes(match));
  }

  /** Resolves once `routes(ip, port, protocol)` holds; rejects after `timeoutMs` (default 5 s). */
  whenRouted(ip: string, port: number, opts: { protocol?: string; timeoutMs?: number } = {}): Promise<void> {
    if (this.routes(ip, port, opts.protocol)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!this.routes(ip, port, opts.protocol)) return;
        clearTimeout(timer);
        this.appliedWaiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.appliedWaiters.delete(check);
        reject(new Error(`service proxy: ${ip}:${port}/${opts.protocol ?? 'TCP'} not routed after ${opts.timeoutMs ?? 5000} ms`));
      }, opts.timeoutMs ?? 5000);
      this.appliedWaiters.add(check);
    });
  }

  /** Stops watching and removes every rule and chain of the prefix (Services stop answering on this node). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.resyncTimer);
    this.services.stop();
    this.slices.stop();
    await this.running?.catch(() => undefined);
    await removeProxyChains({ prefix: this.prefix }).catch((e) => this.opts.log?.(`k1s: service proxy: cleanup: ${(e as Error).message}`));
  }
}

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

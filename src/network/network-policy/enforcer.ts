// The node's NetworkPolicy enforcer: pods, namespaces and NetworkPolicies informers feed a debounced sync that
// compiles per-pod rules for this node's pods and rewrites only the changed chains in one iptables-restore
// transaction (a change reaches the host within the batch window plus one restore, well under 100 ms). Stopping
// removes every chain of the prefix and the jumps into it.
import type { Pod } from '../../api/core/pod/types.js';
import type { NetworkPolicy } from '../../api/networking/networkpolicy/validation.js';
import { Informer } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import { compileNetworkPolicies, type PodPolicy } from './model.js';
import { buildPolicyChains, policyChainPrefix, policyJumps, restorePlan, type PolicyChains } from './rules.js';
import { ensureProxySysctls, iptablesRestore, iptablesSave, removeProxyChains } from '../service-proxy/iptables.js';

export interface NetworkPolicyEnforcerOptions {
  client: Client;
  nodeName: string;
  /** the pod network's bridge (default cni0); it also picks the chain prefix */
  bridge?: string;
  /** chain prefix (default from the bridge: K1NP / K1NP<hash>) */
  prefix?: string;
  /** how long a change waits for others to join its sync; default 10 ms */
  batchMs?: number;
  /** full re-check of the host (someone may flush our jumps or chains); default 60 s */
  resyncMs?: number;
  log?: (line: string) => void;
}

export interface EnforcerStats {
  syncs: number;
  failures: number;
  lastSyncMs: number;
  /** chains written by the last sync that wrote anything */
  lastWrittenChains: number;
  /** isolated pods of this node after the last sync */
  isolatedPods: number;
  lastSyncAt: number;
}

export class NetworkPolicyEnforcer {
  readonly prefix: string;
  readonly bridge: string;
  private readonly pods: Informer;
  private readonly namespaces: Informer;
  private readonly policies: Informer;
  private timer?: NodeJS.Timeout;
  private resyncTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private dirty = false;
  private stopped = false;
  private checkHost = true;
  /** what the host holds in our chains after the last successful sync (undefined: unknown) */
  private written?: PolicyChains;
  private readonly syncWaiters: Array<() => void> = [];
  private compiled: PodPolicy[] = [];
  readonly stats: EnforcerStats = { syncs: 0, failures: 0, lastSyncMs: 0, lastWrittenChains: 0, isolatedPods: 0, lastSyncAt: 0 };

  private constructor(private readonly opts: NetworkPolicyEnforcerOptions) {
    this.bridge = opts.bridge ?? 'cni0';
    this.prefix = opts.prefix ?? policyChainPrefix(opts.bridge);
    const log = opts.log;
    this.pods = new Informer(opts.client, 'v1', 'pods', { log });
    this.namespaces = new Informer(opts.client, 'v1', 'namespaces', { log });
    this.policies = new Informer(opts.client, 'networking.k8s.io/v1', 'networkpolicies', { log });
    const changed = { add: () => this.queueSync(), update: () => this.queueSync(), delete: () => this.queueSync() };
    for (const inf of [this.pods, this.namespaces, this.policies]) inf.addHandler(changed);
  }

  /** Starts the informers and resolves after the first sync programmed the host. */
  static async start(opts: NetworkPolicyEnforcerOptions): Promise<NetworkPolicyEnforcer> {
    const enforcer = new NetworkPolicyEnforcer(opts);
    // bridged pod-to-pod traffic only meets iptables with br_netfilter on
    for (const p of await ensureProxySysctls({ localhostNodePorts: false })) opts.log?.(`k1s: network policy: ${p}`);
    const informers = [enforcer.pods, enforcer.namespaces, enforcer.policies];
    await Promise.all(informers.map((i) => i.start()));
    await Promise.all(informers.map((i) => i.waitForSync()));
    await enforcer.syncNow();
    enforcer.resyncTimer = setInterval(() => {
      enforcer.checkHost = true;
      enforcer.queueSync();
    }, opts.resyncMs ?? 60_000);
    enforcer.resyncTimer.unref();
    return enforcer;
  }

  /** The per-pod policy of this node's isolated pods, as the last sync compiled it. */
  podPolicies(): PodPolicy[] {
    return this.compiled;
  }

  /** Resolves after a sync that started after this call has finished. */
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
      const compiled = compileNetworkPolicies({
        policies: this.policies.list() as NetworkPolicy[],
        pods: this.pods.list() as Pod[],
        namespaces: this.namespaces.list(),
        nodeName: this.opts.nodeName,
      });
      const desired = buildPolicyChains(compiled, { prefix: this.prefix, bridge: this.bridge });
      let stale = [...(this.written?.keys() ?? [])];
      let missingJumps: ReturnType<typeof policyJumps> = [];
      if (this.checkHost || !this.written) {
        const host = await iptablesSave('filter');
        stale = host.chains.filter((c) => c.startsWith(`${this.prefix}-`));
        missingJumps = policyJumps(this.prefix).filter(
          (j) => !host.rules.some((r) => r.startsWith(`-A ${j.chain} `) && new RegExp(`\\s-j\\s+${j.target}(\\s|$)`).test(r)),
        );
        this.written = undefined;
      }
      const plan = restorePlan(desired, { previous: this.written, stale, missingJumps });
      if (plan.text) await iptablesRestore(plan.text);
      if (plan.text) this.stats.lastWrittenChains = plan.written.length;
      this.written = desired;
      this.checkHost = false;
      this.compiled = compiled;
      this.stats.syncs++;
      this.stats.isolatedPods = compiled.length;
      this.stats.lastSyncMs = performance.now() - t0;
      this.stats.lastSyncAt = Date.now();
    } catch (e) {
      // a failed transaction changed nothing; re-read the host and try again shortly
      this.stats.failures++;
      this.checkHost = true;
      this.written = undefined;
      this.opts.log?.(`k1s: network policy: sync failed: ${(e as Error).message}`);
      if (!this.stopped) setTimeout(() => this.queueSync(0), 1000).unref();
    } finally {
      for (const w of waiters) w();
    }
  }

  /** Stops watching and removes every chain of the prefix: pods of this node are no longer isolated. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.resyncTimer);
    for (const inf of [this.pods, this.namespaces, this.policies]) inf.stop();
    await this.running?.catch(() => undefined);
    await removeNetworkPolicyChains({ prefix: this.prefix }).catch((e) => this.opts.log?.(`k1s: network policy: cleanup: ${(e as Error).message}`));
  }
}

/** Starts the enforcer for a node; on hosts where iptables cannot be programmed it logs why and returns undefined. */
export async function startNodeNetworkPolicy(opts: NetworkPolicyEnforcerOptions): Promise<NetworkPolicyEnforcer | undefined> {
  try {
    const enforcer = await NetworkPolicyEnforcer.start(opts);
    if (enforcer.stats.failures > 0) {
      await enforcer.stop();
      throw new Error('the first iptables sync failed');
    }
    return enforcer;
  } catch (e) {
    opts.log?.(`k1s: agent: network policy enforcement not started: ${(e as Error).message}; NetworkPolicies are not enforced on this node`);
    return undefined;
  }
}

/** What `k1s delete` / host cleanup runs: removes the policy chains of a pod network and the jumps into them. */
export function removeNetworkPolicyChains(opts: { bridge?: string; prefix?: string } = {}): Promise<string[]> {
  return removeProxyChains({ prefix: opts.prefix ?? policyChainPrefix(opts.bridge) });
}

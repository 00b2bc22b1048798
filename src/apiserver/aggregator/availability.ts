// The Available condition of every APIService (kube-aggregator controllers/status: the local and the remote
// AvailableConditionController): Local ones are always available; one with a Service is checked (the Service,
// its port and endpoints, then a GET of its /apis/<group>/<version> as system:kube-aggregator in system:masters,
// TLS unverified, 5 s) on every change of APIServices, Services or EndpointSlices and every 30 s. The status is
// written only when it changed.
import {
  availableCondition,
  isLocal,
  localAvailableCondition,
  setCondition,
  type APIService,
  type APIServiceCondition,
} from '../../api/apiregistration/index.js';
import { clone, deepEqual } from '../../machinery/object.js';
import type { Watch } from '../../storage/types.js';
import { newContext } from '../context.js';
import type { Registry } from '../registry/registry.js';
import type { APIServiceCache } from './apiservice-cache.js';
import { authProxyHeaders, fetchBackend, tlsOptions, type ProxyClientCert } from './backend.js';
import { authority, resolveService } from './service-resolver.js';

const system = { name: 'system:apiserver', groups: ['system:masters'] };
const aggregatorUser = { name: 'system:kube-aggregator', groups: ['system:masters'] };
export const RESYNC_MS = 30_000;
const CHECK_TIMEOUT_MS = 5_000;

const nowRfc3339 = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export interface AvailabilityOptions {
  clientCert?: ProxyClientCert;
  resyncMs?: number;
  log?: (msg: string) => void;
}

/** The condition a check of `o` finds. */
export async function checkAvailability(registry: Registry, o: APIService, clientCert?: ProxyClientCert): Promise<APIServiceCondition> {
  const now = nowRfc3339();
  if (isLocal(o)) return localAvailableCondition(now);
  const spec = o.spec ?? {};
  const r = await resolveService(registry, spec.service!);
  if (!r.ok) return { type: 'Available', status: r.status, lastTransitionTime: now, reason: r.reason, message: r.message };
  const path = o.metadata.name === 'v1.' ? `/api/${spec.version}` : `/apis/${spec.group}/${spec.version}`;
  const url = `https://${authority(r.host, r.port)}${path}`;
  const headers = authProxyHeaders(aggregatorUser);
  let problem: string | undefined;
  try {
    const res = await fetchBackend(url, r.host, r.port, { ...tlsOptions(o, clientCert, false), headers, timeoutMs: CHECK_TIMEOUT_MS });
    // anything in the 200s or 300s passes
    if (res.status < 200 || res.status >= 300) problem = `bad status from ${url}: ${res.status}`;
  } catch (e) {
    problem = (e as Error).message;
  }
  if (problem) return { type: 'Available', status: 'False', lastTransitionTime: now, reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${problem}` };
  return { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Passed', message: 'all checks passed' };
}

export class AvailabilityController {
  private readonly watches: Watch[] = [];
  private readonly pending = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly cache: APIServiceCache,
    private readonly opts: AvailabilityOptions = {},
  ) {}

  start(): void {
    this.unsubscribe = this.cache.onChange((name) => this.enqueue(name));
    // a Service or its endpoints changing may change any remote APIService's answer
    for (const [group, plural] of [['', 'services'], ['discovery.k8s.io', 'endpointslices']] as const) {
      const rs = this.registry.mustLookup(group, 'v1', plural);
      this.watches.push(this.registry.store.watch(rs.keyPrefix, { afterRevision: this.registry.store.currentRevision() }, () => this.enqueueRemotes()));
    }
    for (const o of this.cache.all()) this.enqueue(o.metadata.name ?? '');
    this.timer = setInterval(() => this.enqueueRemotes(), this.opts.resyncMs ?? RESYNC_MS);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const w of this.watches) w.stop();
    clearInterval(this.timer);
  }

  /** Checks an APIService again soon (the proxy calls this when its backend fails). */
  enqueue(name: string): void {
    if (this.stopped || !name) return;
    if (this.running.has(name)) {
      this.pending.add(name);
      return;
    }
    const run = this.sync(name)
      .catch((e) => this.opts.log?.(`k1s: availability of APIService ${name}: ${(e as Error).message}`))
      .finally(() => {
        this.running.delete(name);
        if (this.pending.delete(name)) this.enqueue(name);
      });
    this.running.set(name, run);
  }

  /** Settles when the checks under way are done. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }

  private enqueueRemotes(): void {
    for (const o of this.cache.remotes()) this.enqueue(o.metadata.name ?? '');
  }

  private async sync(name: string): Promise<void> {
    const o = this.cache.get(name);
    if (!o) return;
    const condition = await checkAvailability(this.registry, o, this.opts.clientCert);
    const next = clone(o);
    setCondition(next, condition);
    if (deepEqual(next.status, o.status)) return;
    const was = availableCondition(o);
    if (was?.status !== condition.status) this.opts.log?.(`k1s: APIService ${name} Available ${was?.status ?? 'Unknown'} → ${condition.status} (${condition.reason})`);
    await this.cache.store
      .guaranteedUpdate(newContext(system), '', name, (cur) => {
        if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
        const updated = clone(cur) as APIService;
        setCondition(updated, condition);
        return updated;
      }, { subresource: 'status' })
      .catch((e) => {
        if ((e as { code?: number }).code !== 404) throw e;
      });
  }
}

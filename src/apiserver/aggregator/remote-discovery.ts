// Discovery of the group versions served by extension API servers (kube-aggregator's discovery manager): each
// remote APIService's /apis/<group>/<version> is fetched as system:kube-aggregator, cached, and fetched again when
// the APIService changes and every minute. The merged /apis and aggregated discovery list every remote group;
// a version whose server is unavailable or failed its last fetch is marked Stale (with what was fetched before),
// so clients report that group and go on with the others.
import { isAvailable, type APIService } from '../../api/apiregistration/index.js';
import type { APIServiceCache } from './apiservice-cache.js';
import { authProxyHeaders, fetchBackend, tlsOptions, type ProxyClientCert } from './backend.js';
import type { Registry } from '../registry/registry.js';
import { authority, resolveService } from './service-resolver.js';
import type { APIResource, RemoteDiscoverySource, RemoteGroup } from '../discovery/remote-groups.js';

const REFRESH_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;
const aggregatorUser = { name: 'system:kube-aggregator', groups: ['system:masters'] };

export class RemoteDiscovery implements RemoteDiscoverySource {
  private readonly fetched = new Map<string, { resources?: APIResource[]; ok: boolean }>();
  private gen = 0;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(
    private readonly registry: Registry,
    private readonly cache: APIServiceCache,
    private readonly compareVersions: (a: string, b: string) => number,
    private readonly clientCert?: ProxyClientCert,
  ) {}

  start(): void {
    this.unsubscribe = this.cache.onChange((name) => {
      this.gen++;
      const o = this.cache.get(name);
      if (!o) this.fetched.delete(name);
      else void this.refresh(o);
    });
    for (const o of this.cache.remotes()) void this.refresh(o);
    this.timer = setInterval(() => this.cache.remotes().forEach((o) => void this.refresh(o)), REFRESH_MS);
    this.timer.unref?.();
  }

  stop(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  generation(): number {
    return this.gen;
  }

  groups(): RemoteGroup[] {
    const by = new Map<string, RemoteGroup>();
    for (const o of this.cache.remotes()) {
      const spec = o.spec!;
      const g = by.get(spec.group!) ?? { name: spec.group!, priority: 0, versions: [] };
      g.priority = Math.max(g.priority, spec.groupPriorityMinimum ?? 0);
      const f = this.fetched.get(o.metadata.name ?? '');
      g.versions.push({ version: spec.version ?? '', versionPriority: spec.versionPriority ?? 0, resources: f?.resources, stale: !isAvailable(o) || !f?.ok });
      by.set(g.name, g);
    }
    for (const g of by.values()) g.versions.sort((a, b) => b.versionPriority - a.versionPriority || this.compareVersions(a.version, b.version));
    return [...by.values()];
  }

  private async refresh(o: APIService): Promise<void> {
    const name = o.metadata.name ?? '';
    if (!o.spec?.service || !isAvailable(o)) return;
    const prev = this.fetched.get(name);
    let next: { resources?: APIResource[]; ok: boolean };
    try {
      const r = await resolveService(this.registry, o.spec.service);
      if (!r.ok) throw new Error(r.message);
      const url = `https://${authority(r.host, r.port)}/apis/${o.spec.group}/${o.spec.version}`;
      const headers = { ...authProxyHeaders(aggregatorUser), Accept: 'application/json' };
      const res = await fetchBackend(url, r.host, r.port, { ...tlsOptions(o, this.clientCert), headers, timeoutMs: FETCH_TIMEOUT_MS });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      const list = JSON.parse(res.body.toString()) as { resources?: APIResource[] };
      next = { resources: Array.isArray(list.resources) ? list.resources : [], ok: true };
    } catch {
      next = { resources: prev?.resources, ok: false };
    }
    if (!this.cache.get(name)) return; // deleted meanwhile
    if (JSON.stringify(prev) !== JSON.stringify(next)) {
      this.fetched.set(name, next);
      this.gen++;
    }
  }
}

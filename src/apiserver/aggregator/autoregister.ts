// Local APIServices for the group versions this server serves itself, as kube-apiserver's autoregistration
// (kube-aggregator controllers/autoregister and crdregistration): built-in ones are synced once per start (label
// automanaged=onstart: created when missing, their spec set, dropped when no longer served), those of CRDs all the
// time (automanaged=true: created, updated and deleted as CRD versions come and go). APIServices without the label
// are never touched.
import { AUTOMANAGED_LABEL, CRD_PRIORITY, apiServiceName, builtinPriority, type APIService } from '../../api/apiregistration/index.js';
import { deepEqual } from '../../machinery/object.js';
import { newContext } from '../context.js';
import type { Registry } from '../registry/registry.js';
import type { APIServiceCache } from './apiservice-cache.js';

const system = { name: 'system:apiserver', groups: ['system:masters'] };
const ON_START = 'onstart';
const ALWAYS = 'true';
/** served by the aggregator itself, so it has no APIService (kube lists only its delegates' group versions) */
const OWN_GROUP = 'apiregistration.k8s.io';

type Desired = Map<string, APIService>;

function localAPIService(group: string, version: string, priority: { group: number; version: number }, managed: string): APIService {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: managed } },
    spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

/** What should exist: built-in group versions (kube skips ones missing from its priority table) and CRD ones. */
export function desiredAPIServices(registry: Registry): { onStart: Desired; always: Desired } {
  const onStart: Desired = new Map();
  const always: Desired = new Map();
  for (const d of registry.definitions) {
    if (d.group === OWN_GROUP) continue;
    const name = apiServiceName(d.group, d.version);
    if (d.custom) {
      if (!onStart.has(name)) always.set(name, localAPIService(d.group, d.version, CRD_PRIORITY, ALWAYS));
      continue;
    }
    const p = builtinPriority(d.group, d.version);
    if (!p) continue;
    always.delete(name);
    onStart.set(name, localAPIService(d.group, d.version, p, ON_START));
  }
  return { onStart, always };
}

const managedAs = (o: APIService | undefined) => o?.metadata.labels?.[AUTOMANAGED_LABEL];
const specOf = (o: APIService) => {
  const { group, version, groupPriorityMinimum, versionPriority, service, caBundle, insecureSkipTLSVerify } = o.spec ?? {};
  return { group: group ?? '', version: version ?? '', groupPriorityMinimum, versionPriority, service: service ?? null, caBundle: caBundle ?? '', insecureSkipTLSVerify: !!insecureSkipTLSVerify };
};

export class AutoRegistration {
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly cache: APIServiceCache,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  /** The start-up sync of every managed APIService, then CRD ones whenever the served resources change. */
  async start(): Promise<void> {
    const { onStart, always } = desiredAPIServices(this.registry);
    const names = new Set([...onStart.keys(), ...always.keys(), ...this.cache.all().map((o) => o.metadata.name ?? '')]);
    await Promise.all([...names].map((n) => this.sync(n, onStart.get(n) ?? always.get(n), true)));
    this.unsubscribe = this.registry.onResourcesChanged(() => this.enqueue());
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** Settles when the syncs asked for so far are done. */
  idle(): Promise<void> {
    return this.queue;
  }

  private enqueue(): void {
    this.queue = this.queue.then(() => this.syncAlways()).catch((e) => this.log(`k1s: APIService autoregistration failed: ${(e as Error).message}`));
  }

  private async syncAlways(): Promise<void> {
    if (this.stopped) return;
    const { always } = desiredAPIServices(this.registry);
    const names = new Set([...always.keys(), ...this.cache.all().filter((o) => managedAs(o) === ALWAYS).map((o) => o.metadata.name ?? '')]);
    await Promise.all([...names].map((n) => this.sync(n, always.get(n), false)));
  }

  /** checkAPIService's table: create what is missing, leave unmanaged ones, update or delete managed ones. */
  private async sync(name: string, desired: APIService | undefined, atStart: boolean): Promise<void> {
    const rs = this.cache.store;
    const ctx = newContext(system);
    let current: APIService | undefined;
    try {
      current = (await rs.get('', name)) as APIService;
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
    try {
      if (!current) {
        if (desired) await rs.create(ctx, '', desired);
        return;
      }
      const managed = managedAs(current);
      if (managed !== ON_START && managed !== ALWAYS) return;
      if (managed === ON_START && !atStart) return;
      if (!desired) {
        await rs.delete(ctx, '', name, {});
        return;
      }
      if (deepEqual(specOf(current), specOf(desired))) return;
      await rs.guaranteedUpdate(ctx, '', name, (cur) => ({ ...cur!, spec: desired.spec }), { subresource: '' });
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code === 404 || code === 409) return; // raced with someone else's change; the next sync sees it
      throw e;
    }
  }
}

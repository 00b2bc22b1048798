// An informer: a list + watch cache of one resource with event handlers and indexes (client-go's shared informer).
// Handlers run synchronously on each event, so they must only enqueue keys; controllers read the cache.
import type { KObject } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';
import { IndexedCache, objectKey, type InformerHandler } from './indexed-cache.js';
import type { Client, ClientWatchEvent } from './types.js';

export { objectKey, type IndexFunc, type InformerHandler } from './indexed-cache.js';

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** what to log through when the watch fails (default console.error) */
  log?: (line: string) => void;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export class Informer extends IndexedCache {
  private watch?: { stop(): void };
  private synced = false;
  private stopped = false;
  private syncWaiters: (() => void)[] = [];
  private starting?: Promise<void>;
  private lastRV = '';
  private restartTimer?: NodeJS.Timeout;
  /** failed lists in a row: the next retry waits longer */
  private failures = 0;

  constructor(
    private readonly client: Client,
    readonly apiVersion: string,
    readonly plural: string,
    private readonly opts: InformerOptions = {},
  ) {
    super((e) => console.error(`k1s: informer ${plural} handler:`, e));
    this.addIndex('namespace', (o) => [o.metadata.namespace ?? '']);
  }

  addHandler(h: InformerHandler): void {
    this.handlers.push(h);
    // A late handler sees what is already cached, as client-go replays adds to new handlers.
    if (this.synced) for (const o of this.items.values()) h.add?.(o);
  }

  start(): Promise<void> {
    // a failing first list (an object the server cannot decrypt) is retried, as a reflector does: starting waits
    // for the cache to sync instead of failing whoever started it
    this.starting ??= this.listAndWatch().catch((e) => {
      this.failed(e);
      return this.waitForSync();
    });
    return this.starting;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((res) => this.syncWaiters.push(res));
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    if (this.restartTimer) clearTimeout(this.restartTimer);
  }

  /** Everything cached, or everything in one namespace. */
  list(namespace?: string): KObject[] {
    if (namespace === undefined) return [...this.items.values()];
    return this.byIndex('namespace', namespace);
  }

  /** The resourceVersion the cache has seen up to. */
  get resourceVersion(): string {
    return this.lastRV;
  }

  private rc() {
    return this.client.resource(this.apiVersion, this.plural);
  }

  private async listAndWatch(): Promise<void> {
    if (this.stopped) return;
    const ns = this.opts.namespace ?? '';
    const list = await this.rc().list(ns, { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector });
    const seen = new Set<string>();
    for (const o of list.items) {
      const key = objectKey(o);
      seen.add(key);
      this.apply(key, o);
    }
    for (const key of [...this.items.keys()]) if (!seen.has(key)) this.drop(key);
    this.lastRV = list.metadata.resourceVersion ?? '';
    this.synced = true;
    for (const w of this.syncWaiters.splice(0)) w();
    if (this.stopped) return;
    this.watch = await this.rc().watch(
      ns,
      { resourceVersion: this.lastRV, allowWatchBookmarks: true, labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector },
      (ev) => this.onEvent(ev),
    );
  }

  private onEvent(ev: ClientWatchEvent): void {
    if (this.stopped) return;
    if (ev.type === 'ERROR') {
      // 410 Expired and other watch failures: relist (deletes seen as missing keys), then watch again
      const st = ev.object as unknown as { message?: string };
      (this.opts.log ?? console.error)(`k1s: informer ${this.plural}: watch ended (${st.message ?? 'error'}); relisting`);
      this.restart();
      return;
    }
    if (ev.object.metadata.resourceVersion) this.lastRV = ev.object.metadata.resourceVersion;
    if (ev.type === 'BOOKMARK') return;
    const key = objectKey(ev.object);
    if (ev.type === 'DELETED') this.drop(key);
    else this.apply(key, ev.object);
  }

  private restart(): void {
    this.watch?.stop();
    this.watch = undefined;
    if (this.restartTimer || this.stopped) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.listAndWatch().then(
        () => (this.failures = 0),
        (e) => this.failed(e),
      );
    }, Math.min(200 * 2 ** this.failures, 30_000));
    this.restartTimer.unref?.();
  }

  /** Logs a failed list or watch and tries again later, backing off up to 30 s. */
  private failed(e: unknown): void {
    (this.opts.log ?? console.error)(`k1s: informer ${this.plural}: ${e instanceof StatusError ? e.message : e}`);
    this.failures++;
    this.restart();
  }

  private apply(key: string, obj: KObject): void {
    const old = this.items.get(key);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.store(key, obj);
  }
}

/** One informer per resource, shared by every controller of a cluster (SharedInformerFactory). */
export class InformerFactory {
  private readonly informers = new Map<string, Informer>();

  constructor(
    private readonly client: Client,
    private readonly log?: (line: string) => void,
  ) {}

  informer(apiVersion: string, plural: string): Informer {
    const k = `${apiVersion}/${plural}`;
    let inf = this.informers.get(k);
    if (!inf) this.informers.set(k, (inf = new Informer(this.client, apiVersion, plural, { log: this.log })));
    return inf;
  }

  /** Starts every informer created so far and waits until all have listed. */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}

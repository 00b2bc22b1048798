// One etcd watch stream (a gRPC bidi stream) carrying every etcd watcher of a store: the store's own watch of its
// whole prefix, and the few watchers that start further back than the store's memory of recent events. When the
// stream breaks (the member went down, lost its leader) it is opened again, on the next member, and each watcher
// resumes from the revision after the last one it was given, so nothing is lost or repeated.
import type { ClientDuplexStream } from '@grpc/grpc-js';
import type { EtcdClient, RawKeyValue } from './client.js';

export interface RawEvent {
  type: 'PUT' | 'DELETE';
  kv: RawKeyValue;
  prev_kv: RawKeyValue | null;
}

export interface StreamWatcher {
  key: Buffer;
  rangeEnd: Buffer;
  /** the revision to resume from: the one after the last event delivered */
  next: number;
  onEvents(events: RawEvent[]): void;
  /** etcd ended the watcher: its start revision is compacted (compactRevision > 0) or it refused it */
  onCanceled(reason: string, compactRevision: number): void;
}

interface WatchResponse {
  header: { revision: number } | null;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: RawEvent[];
}

export interface WatchStreamOptions {
  /** a revision etcd has reached (headers, progress notifications) */
  onRevision: (rev: number) => void;
  /** how often etcd is asked for its progress (default 5 s) */
  progressIntervalMs?: number;
  log?: (line: string) => void;
}

export class WatchStream {
  private stream: ClientDuplexStream<unknown, WatchResponse> | undefined;
  private endpoint = '';
  private readonly watchers = new Map<number, StreamWatcher>();
  private nextId = 1;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private backoffMs = 100;
  /** since the stream failed and until it works again: said once, not at every retry */
  private failing = false;
  private readonly progress: NodeJS.Timeout;

  constructor(
    private readonly client: EtcdClient,
    private readonly opts: WatchStreamOptions,
  ) {
    this.progress = setInterval(() => this.stream?.write({ progress_request: {} }), opts.progressIntervalMs ?? 5000);
    this.progress.unref();
  }

  add(w: StreamWatcher): number {
    const id = this.nextId++;
    this.watchers.set(id, w);
    if (this.stream) this.create(id, w);
    else if (!this.retry) this.connect();
    return id;
  }

  remove(id: number): void {
    if (this.watchers.delete(id)) this.stream?.write({ cancel_request: { watch_id: id } });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.progress);
    clearTimeout(this.retry);
    this.watchers.clear();
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }

  private connect(): void {
    this.retry = undefined;
    if (this.closed) return;
    let stream: ClientDuplexStream<unknown, WatchResponse>;
    try {
      stream = this.client.openWatch();
    } catch (e) {
      this.broken(e);
      return;
    }
    this.stream = stream;
    this.endpoint = this.client.endpoint;
    let ended = false;
    const end = (e: unknown) => {
      if (ended) return;
      ended = true;
      if (this.stream === stream) this.broken(e);
    };
    stream.on('data', (r: WatchResponse) => {
      this.backoffMs = 100;
      if (this.failing) {
        this.failing = false;
        this.opts.log?.(`k1s etcd: watch stream open again on ${this.endpoint}`);
      }
      this.response(r);
    });
    stream.on('error', end);
    stream.on('end', () => end(new Error('the watch stream ended')));
    for (const [id, w] of this.watchers) this.create(id, w);
  }

  private create(id: number, w: StreamWatcher): void {
    this.stream!.write({
      create_request: { key: w.key, range_end: w.rangeEnd, start_revision: w.next, prev_kv: true, watch_id: id, progress_notify: true },
    });
  }

  private response(r: WatchResponse): void {
    if (r.header?.revision) this.opts.onRevision(r.header.revision);
    const w = this.watchers.get(r.watch_id);
    if (!w) return; // a progress notification (watch_id -1), or a watcher removed meanwhile
    if (r.canceled) {
      this.watchers.delete(r.watch_id);
      w.onCanceled(r.cancel_reason, r.compact_revision);
      return;
    }
    if (!r.events.length) return;
    w.next = r.events[r.events.length - 1]!.kv.mod_revision + 1;
    w.onEvents(r.events);
  }

  /** The stream failed: open another one, on the next member, after a short backoff. */
  private broken(e: unknown): void {
    this.stream = undefined;
    if (this.closed) return;
    this.client.failover(this.endpoint);
    if (!this.failing) {
      this.failing = true;
      const msg = e instanceof Error ? e.message : String(e);
      this.opts.log?.(`k1s etcd: watch stream on ${this.endpoint} failed (${msg}); reconnecting`);
    }
    this.retry = setTimeout(() => this.connect(), this.backoffMs);
    this.retry.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, 2000);
  }
}

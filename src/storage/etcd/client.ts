// etcd's v3 gRPC API over @grpc/grpc-js (already k1s' CRI client), one channel per endpoint. Calls go to the
// endpoint that answered last; when it is unreachable they move on to the next one, so a cluster keeps serving
// while one member is down. Every call has a deadline: an unreachable etcd fails requests promptly instead of
// holding them, and grpc-js reconnects by itself once a member is back.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { StoreError } from '../types.js';
import { ETCD_API_PROTO } from './proto.js';

export interface EtcdConnectionOptions {
  /** http(s)://host:port, several for a cluster */
  endpoints: string[];
  /** PEM files for https endpoints (k3s' --datastore-cafile, --datastore-certfile, --datastore-keyfile) */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** deadline of each call (default 10 s) */
  timeoutMs?: number;
}

export interface RawKeyValue {
  key: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
  value: Buffer;
}

export interface Header {
  revision: number;
}

const LOADER: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };

let definition: protoLoader.PackageDefinition | undefined;
function etcdPackage(): protoLoader.PackageDefinition {
  definition ??= protoLoader.fromJSON(protobuf.parse(ETCD_API_PROTO, { keepCase: true }).root.toJSON(), LOADER);
  return definition;
}

type Unary = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;
type ServiceClient = grpc.Client & Record<string, Unary>;
type WatchClient = grpc.Client & { Watch(meta: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientDuplexStream<unknown, unknown> };

interface Member {
  endpoint: string;
  kv: ServiceClient;
  watch: WatchClient;
  maintenance: ServiceClient;
}

/** The grpc-js target and credentials of http(s)://host:port. */
export function parseEndpoint(endpoint: string): { target: string; tls: boolean } {
  let u: URL;
  try {
    u = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
  } catch {
    throw new Error(`invalid etcd endpoint ${JSON.stringify(endpoint)}: want http(s)://host:port`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`invalid etcd endpoint ${JSON.stringify(endpoint)}: want http(s)://host:port`);
  return { target: `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || '2379'}`, tls: u.protocol === 'https:' };
}

/** grpc status codes after which the same call may go to another member */
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);

export class EtcdClient {
  private readonly members: Member[];
  private current = 0;
  readonly timeoutMs: number;
  private closed = false;

  constructor(opts: EtcdConnectionOptions) {
    if (!opts.endpoints.length) throw new Error('no etcd endpoint');
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    const pkg = grpc.loadPackageDefinition(etcdPackage()) as unknown as Record<string, Record<string, grpc.ServiceClientConstructor>>;
    const api = pkg.etcdserverpb!;
    const read = (f: string | undefined) => (f ? readFileSync(f) : undefined);
    const ca = read(opts.caFile);
    const cert = read(opts.certFile);
    const key = read(opts.keyFile);
    if (!!cert !== !!key) throw new Error('an etcd client certificate needs both --datastore-certfile and --datastore-keyfile');
    const channelOptions: grpc.ChannelOptions = {
      // a watch response carries a whole batch of events: no 4 MiB ceiling
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 2000,
    };
    this.members = opts.endpoints.map((endpoint) => {
      const { target, tls } = parseEndpoint(endpoint);
      const creds = tls ? grpc.credentials.createSsl(ca ?? null, key ?? null, cert ?? null) : grpc.credentials.createInsecure();
      // one channel per member, shared by its three services
      const kv = new api.KV!(target, creds, channelOptions) as unknown as ServiceClient;
      const channelOverride = kv.getChannel();
      return {
        endpoint,
        kv,
        watch: new api.Watch!(target, creds, { ...channelOptions, channelOverride }) as unknown as WatchClient,
        maintenance: new api.Maintenance!(target, creds, { ...channelOptions, channelOverride }) as unknown as ServiceClient,
      };
    });
  }

  get endpoints(): string[] {
    return this.members.map((m) => m.endpoint);
  }

  /** The member calls go to now (the watch stream too). */
  get endpoint(): string {
    return this.members[this.current]!.endpoint;
  }

  range(req: object): Promise<{ header: Header; kvs: RawKeyValue[]; more: boolean; count: number }> {
    return this.call('kv', 'Range', req);
  }

  txn(req: object): Promise<{ header: Header; succeeded: boolean; responses: Record<string, any>[] }> {
    return this.call('kv', 'Txn', req);
  }

  deleteRange(req: object): Promise<{ header: Header; deleted: number; prev_kvs: RawKeyValue[] }> {
    return this.call('kv', 'DeleteRange', req);
  }

  /** Not physical, as kube-apiserver's compactor: etcd answers once the compaction is recorded and frees the space
   *  in the background, so a long compaction never holds up the caller (reads of compacted revisions fail at once). */
  compact(revision: number): Promise<{ header: Header }> {
    return this.call('kv', 'Compact', { revision, physical: false });
  }

  /** Status of the member calls go to: its db size, its revision (through the header). */
  status(): Promise<{ header: Header; dbSize: number; version: string; leader: number }> {
    return this.call('maintenance', 'Status', {});
  }

  /** A new watch stream on the current member; `hasleader` makes a member that lost its leader end it. */
  openWatch(): grpc.ClientDuplexStream<any, any> {
    const meta = new grpc.Metadata();
    meta.set('hasleader', 'true');
    return this.members[this.current]!.watch.Watch(meta);
  }

  /** The watch stream's member failed: the next stream (and calls) try the next member. */
  failover(endpoint: string): void {
    if (this.members[this.current]!.endpoint === endpoint && this.members.length > 1) {
      this.current = (this.current + 1) % this.members.length;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const m of this.members) m.kv.close();
  }

  /**
   * One call, tried on each member in turn while they are unreachable or without a leader (an election after the
   * leader died), pausing after each round, within one deadline overall. One try may not take it all: a member
   * that does not answer at all leaves time for the others.
   */
  private async call<T>(service: 'kv' | 'maintenance', method: string, req: object): Promise<T> {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
    const deadline = Date.now() + this.timeoutMs;
    const n = this.members.length;
    let lastErr: grpc.ServiceError | undefined;
    let last = this.endpoint;
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const i = this.current;
      const m = this.members[i]!;
      last = m.endpoint;
      const perTry = n > 1 ? Math.min(left, Math.max(1000, this.timeoutMs / n)) : left;
      try {
        return await new Promise<T>((resolve, reject) => {
          m[service][method]!(req, new grpc.Metadata(), { deadline: Date.now() + perTry }, (err, res) =>
            err ? reject(err) : resolve(res as T),
          );
        });
      } catch (e) {
        const err = e as grpc.ServiceError;
        if (!RETRYABLE.has(err.code)) throw toStoreError(err, m.endpoint);
        lastErr = err;
        if (this.current === i) this.current = (i + 1) % n;
      }
      if (this.closed) throw new StoreError('Closed', 'the store is closed');
      if ((attempt + 1) % n === 0) await new Promise((r) => setTimeout(r, Math.max(0, Math.min(200, deadline - Date.now()))));
    }
    throw lastErr ? toStoreError(lastErr, last) : new StoreError('Unavailable', `etcd ${last}: no answer within ${this.timeoutMs} ms`);
  }
}

/** etcd's errors as the store's: compaction and future revisions are results callers handle; the rest is etcd down. */
export function toStoreError(err: grpc.ServiceError, endpoint: string): Error {
  const msg = err.details || err.message;
  if (msg.includes('required revision has been compacted')) return new StoreError('Compacted', msg);
  if (msg.includes('required revision is a future revision')) return new StoreError('FutureRevision', msg);
  return new StoreError('Unavailable', `etcd ${endpoint}: ${grpc.status[err.code] ?? err.code}: ${msg}`);
}

// containerd's content and image store, as the registry sees it: blobs are read straight from the content
// directory (immutable, content-addressed files that containerd renames into place on commit, so a reader never
// sees half a blob and an open file outlives a garbage collection), while everything that changes containerd's
// metadata (new blobs, labels, image names) goes through its gRPC API, which is the only way the k8s.io namespace,
// the garbage collector and the CRI plugin (which learns about images from events) hear of it.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { CONTAINERD_API_PROTO, CONTAINERD_IMAGES_PROTO, CONTAINERD_LEASES_PROTO } from './containerd-api-proto.js';
import { criTarget } from './cri-client.js';
import { CRI_NAMESPACE } from './images.js';

export interface StoreDescriptor {
  mediaType: string;
  digest: string;
  size: number;
}

export interface StoreImage {
  name: string;
  target: StoreDescriptor;
  labels: Record<string, string>;
}

export interface BlobInfo {
  digest: string;
  size: number;
  labels: Record<string, string>;
}

/** A failed containerd call, with its gRPC status code. */
export class ContainerdError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
  ) {
    super(`containerd ${method}: ${grpc.status[code] ?? code}: ${details}`);
    this.name = 'ContainerdError';
  }
}

const LOADER: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
/** a lease keeps what is pushed before its manifest this long (a client that never pushes the manifest leaves garbage) */
const LEASE_EXPIRY_MS = 24 * 3600_000;
/** a new lease is taken after this long, so that old ones expire and let their blobs go */
const LEASE_ROTATE_MS = 3600_000;
const CHUNK = 1 << 20;

type Unary = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;
type Service = grpc.Client & Record<string, Unary> & { Write(meta: grpc.Metadata): grpc.ClientDuplexStream<unknown, unknown> };

let definitions: Record<string, grpc.ServiceClientConstructor> | undefined;
function services(): Record<string, grpc.ServiceClientConstructor> {
  if (definitions) return definitions;
  const load = (text: string) => grpc.loadPackageDefinition(protoLoader.fromJSON(protobuf.parse(text, { keepCase: true }).root.toJSON(), LOADER));
  const get = (pkg: grpc.GrpcObject, dotted: string) => dotted.split('.').reduce((o, k) => (o as grpc.GrpcObject)[k] as grpc.GrpcObject, pkg) as unknown as grpc.ServiceClientConstructor;
  definitions = {
    content: get(load(CONTAINERD_API_PROTO), 'containerd.services.content.v1.Content'),
    images: get(load(CONTAINERD_IMAGES_PROTO), 'containerd.services.images.v1.Images'),
    leases: get(load(CONTAINERD_LEASES_PROTO), 'containerd.services.leases.v1.Leases'),
  };
  return definitions;
}

export interface ContainerdStoreOptions {
  /** containerd's socket (unix:// prefix allowed) */
  address: string;
  /** containerd's root directory (its content store is <root>/io.containerd.content.v1.content) */
  root: string;
  namespace?: string;
  timeoutMs?: number;
}

export class ContainerdStore {
  private readonly content: Service;
  private readonly images: Service;
  private readonly leases: Service;
  private readonly namespace: string;
  private readonly timeoutMs: number;
  private readonly blobDir: string;
  private lease: { id: string; at: number } | undefined;

  constructor(opts: ContainerdStoreOptions) {
    const s = services();
    const target = criTarget(opts.address.startsWith('/') ? `unix://${opts.address}` : opts.address);
    const creds = grpc.credentials.createInsecure();
    const channel = { 'grpc.max_receive_message_length': 16 << 20, 'grpc.max_send_message_length': 16 << 20, 'grpc.initial_reconnect_backoff_ms': 20, 'grpc.max_reconnect_backoff_ms': 50 };
    this.content = new s.content!(target, creds, channel) as unknown as Service;
    const shared = { ...channel, channelOverride: this.content.getChannel() };
    this.images = new s.images!(target, creds, shared) as unknown as Service;
    this.leases = new s.leases!(target, creds, shared) as unknown as Service;
    this.namespace = opts.namespace ?? CRI_NAMESPACE;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.blobDir = path.join(opts.root, 'io.containerd.content.v1.content', 'blobs');
  }

  close(): void {
    this.content.close();
  }

  private meta(lease?: string): grpc.Metadata {
    const m = new grpc.Metadata();
    m.set('containerd-namespace', this.namespace);
    if (lease) m.set('containerd-lease', lease);
    return m;
  }

  private call<T>(svc: Service, method: string, req: unknown, meta = this.meta()): Promise<T> {
    return new Promise((resolve, reject) => {
      svc[method]!.call(svc, req, meta, { deadline: Date.now() + this.timeoutMs }, (err, res) => {
        if (err) reject(new ContainerdError(method, err.code, err.details));
        else resolve(res as T);
      });
    });
  }

  /** The blob's size and labels in this namespace; undefined when the namespace does not have it. */
  async info(digest: string): Promise<BlobInfo | undefined> {
    try {
      const { info } = await this.call<{ info: { digest: string; size: number; labels: Record<string, string> } }>(this.content, 'Info', { digest });
      return { digest: info.digest, size: Number(info.size), labels: info.labels ?? {} };
    } catch (e) {
      if (e instanceof ContainerdError && e.code === grpc.status.NOT_FOUND) return undefined;
      throw e;
    }
  }

  /** Where a committed blob lives on disk (read-only use; check info() first: the file may belong to another namespace). */
  blobPath(digest: string): string {
    const [alg, hex] = digest.split(':');
    return path.join(this.blobDir, alg!, hex!);
  }

  async readBlob(digest: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of createReadStream(this.blobPath(digest))) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async setLabels(digest: string, labels: Record<string, string>): Promise<void> {
    const paths = Object.keys(labels).map((k) => `labels.${k}`);
    if (paths.length) await this.call(this.content, 'Update', { info: { digest, labels }, update_mask: { paths } });
  }

  /**
   * Commits a blob (from a file or a buffer) under the registry's lease, containerd checking size and digest;
   * a blob the namespace already has is left as it is (its labels are added).
   */
  async writeBlob(desc: { digest: string; size: number }, source: string | Buffer, labels: Record<string, string> = {}): Promise<void> {
    if (await this.info(desc.digest)) {
      await this.setLabels(desc.digest, labels);
      return;
    }
    const lease = await this.currentLease();
    const ref = `k1s-registry-${randomUUID()}`;
    const stream = this.content.Write(this.meta(lease));
    const done = new Promise<void>((resolve, reject) => {
      stream.on('data', () => {});
      stream.on('error', (err: grpc.ServiceError) => {
        if (err.code === grpc.status.ALREADY_EXISTS) resolve();
        else reject(new ContainerdError('Write', err.code, err.details));
      });
      stream.on('end', () => resolve());
    });
    done.catch(() => undefined);
    const send = async (msg: unknown) => {
      if (!stream.write(msg)) await new Promise((r) => stream.once('drain', r));
    };
    try {
      let offset = 0;
      const chunks = typeof source === 'string' ? createReadStream(source, { highWaterMark: CHUNK }) : [source];
      for await (const c of chunks) {
        const data = c as Buffer;
        for (let i = 0; i < data.length; i += CHUNK) {
          const part = data.subarray(i, i + CHUNK);
          await send({ action: 'WRITE', ref, offset, data: part, total: desc.size });
          offset += part.length;
        }
      }
      await send({ action: 'COMMIT', ref, offset, total: desc.size, expected: desc.digest, labels });
      stream.end();
    } catch (e) {
      stream.cancel();
      throw e;
    }
    await done;
  }

  async getImage(name: string): Promise<StoreImage | undefined> {
    try {
      const { image } = await this.call<{ image: RawImage }>(this.images, 'Get', { name });
      return fromRaw(image);
    } catch (e) {
      if (e instanceof ContainerdError && e.code === grpc.status.NOT_FOUND) return undefined;
      throw e;
    }
  }

  /** images whose name matches containerd filters (e.g. `name~=^docker\.io/library/busybox:`), or all */
  async listImages(filters: string[] = []): Promise<StoreImage[]> {
    const { images } = await this.call<{ images: RawImage[] }>(this.images, 'List', { filters });
    return images.map(fromRaw);
  }

  /** Points a name at a manifest (creates it, or moves an existing name as a re-tag does). */
  async putImage(name: string, target: StoreDescriptor): Promise<void> {
    const image = { name, target: { media_type: target.mediaType, digest: target.digest, size: target.size } };
    try {
      await this.call(this.images, 'Create', { image });
    } catch (e) {
      if (!(e instanceof ContainerdError && e.code === grpc.status.ALREADY_EXISTS)) throw e;
      await this.call(this.images, 'Update', { image, update_mask: { paths: ['target'] } });
    }
  }

  async deleteImage(name: string): Promise<void> {
    await this.call(this.images, 'Delete', { name, sync: false });
  }

  /** The lease new blobs are committed under: rotated hourly, each expiring a day after it was taken. */
  private async currentLease(): Promise<string> {
    const now = Date.now();
    if (this.lease && now - this.lease.at < LEASE_ROTATE_MS) return this.lease.id;
    const id = `k1s-registry-${now}`;
    const expire = new Date(now + LEASE_EXPIRY_MS).toISOString();
    await this.call(this.leases, 'Create', { id, labels: { 'containerd.io/gc.expire': expire } });
    this.lease = { id, at: now };
    return id;
  }
}

interface RawImage {
  name: string;
  labels: Record<string, string>;
  target: { media_type: string; digest: string; size: number };
}

const fromRaw = (i: RawImage): StoreImage => ({
  name: i.name,
  labels: i.labels ?? {},
  target: { mediaType: i.target?.media_type ?? '', digest: i.target?.digest ?? '', size: Number(i.target?.size ?? 0) },
});

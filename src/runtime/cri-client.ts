// A promise-based CRI v1 client over @grpc/grpc-js (RuntimeService + ImageService on one channel).
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { CRI_API_PROTO } from './cri-api-proto.js';
import type * as cri from './cri-types.js';

/** A failed CRI call: `code` is the gRPC status (grpc.status.NOT_FOUND = 5, UNAVAILABLE = 14, …). */
export class CriError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
  ) {
    super(`CRI ${method}: ${grpc.status[code] ?? code}: ${details}`);
    this.name = 'CriError';
  }
}

export const isCriNotFound = (e: unknown): boolean => e instanceof CriError && e.code === grpc.status.NOT_FOUND;

const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** The parsed proto never changes: build it once per process (a pure, immutable derivation). */
let packageDefinition: protoLoader.PackageDefinition | undefined;
function criPackage(): protoLoader.PackageDefinition {
  packageDefinition ??= protoLoader.fromJSON(protobuf.parse(CRI_API_PROTO, { keepCase: true }).root.toJSON(), LOADER_OPTIONS);
  return packageDefinition;
}

type Unary = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;
type ServiceClient = grpc.Client & Record<string, Unary>;

export interface CriClientOptions {
  /** deadline of ordinary calls (default 30 s); pulls get 2 min, StopContainer its timeout + 30 s */
  timeoutMs?: number;
  /** deadline of PullImage (default 2 min) */
  pullTimeoutMs?: number;
}

const SECOND = 1000;

/** `unix:///run/x.sock`, `unix:/run/x.sock` or `/run/x.sock` → the grpc-js target. */
export function criTarget(endpoint: string): string {
  if (endpoint.startsWith('unix://')) return `unix:${endpoint.slice('unix://'.length)}`;
  if (endpoint.startsWith('unix:')) return endpoint;
  if (endpoint.startsWith('/')) return `unix:${endpoint}`;
  return endpoint;
}

export class CriClient {
  private readonly runtime: ServiceClient;
  private readonly image: ServiceClient;
  private readonly timeoutMs: number;
  private readonly pullTimeoutMs: number;

  constructor(
    readonly endpoint: string,
    opts: CriClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 30 * SECOND;
    this.pullTimeoutMs = opts.pullTimeoutMs ?? 120 * SECOND;
    const loaded = grpc.loadPackageDefinition(criPackage()) as unknown as {
      runtime: { v1: Record<'RuntimeService' | 'ImageService', grpc.ServiceClientConstructor> };
    };
    const channelOptions: grpc.ChannelOptions = {
      // reconnect within ~100 ms after a containerd restart instead of grpc-js' default ~1 s
      'grpc.initial_reconnect_backoff_ms': 20,
      'grpc.max_reconnect_backoff_ms': 50,
      'grpc.max_receive_message_length': 16 * 1024 * 1024,
      'grpc.max_send_message_length': 16 * 1024 * 1024,
    };
    const target = criTarget(endpoint);
    const creds = grpc.credentials.createInsecure();
    this.runtime = new loaded.runtime.v1.RuntimeService(target, creds, channelOptions) as unknown as ServiceClient;
    this.image = new loaded.runtime.v1.ImageService(target, creds, {
      ...channelOptions,
      channelOverride: this.runtime.getChannel(),
    }) as unknown as ServiceClient;
  }

  close(): void {
    this.image.close();
    this.runtime.close();
  }

  private call<Res>(client: ServiceClient, method: string, req: object, timeoutMs = this.timeoutMs): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const fn = client[method];
      fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) reject(new CriError(method, err.code ?? grpc.status.UNKNOWN, err.details || err.message));
        else resolve(res as Res);
      });
    });
  }

  private rt<Res>(method: string, req: object, timeoutMs?: number): Promise<Res> {
    return this.call<Res>(this.runtime, method, req, timeoutMs);
  }

  // ---- RuntimeService
  version(req: cri.VersionRequest = {}): Promise<cri.VersionResponse> {
    return this.rt('Version', req);
  }
  status(req: cri.StatusRequest = {}): Promise<cri.StatusResponse> {
    return this.rt('Status', req);
  }
  runPodSandbox(req: cri.RunPodSandboxRequest): Promise<cri.RunPodSandboxResponse> {
    return this.rt('RunPodSandbox', req);
  }
  stopPodSandbox(req: cri.PodSandboxIdRequest): Promise<cri.Empty> {
    return this.rt('StopPodSandbox', req);
  }
  removePodSandbox(req: cri.PodSandboxIdRequest): Promise<cri.Empty> {
    return this.rt('RemovePodSandbox', req);
  }
  podSandboxStatus(req: cri.PodSandboxStatusRequest): Promise<cri.PodSandboxStatusResponse> {
    return this.rt('PodSandboxStatus', req);
  }
  listPodSandbox(req: cri.ListPodSandboxRequest = {}): Promise<cri.ListPodSandboxResponse> {
    return this.rt('ListPodSandbox', req);
  }
  createContainer(req: cri.CreateContainerRequest): Promise<cri.CreateContainerResponse> {
    return this.rt('CreateContainer', req);
  }
  startContainer(req: cri.ContainerIdRequest): Promise<cri.Empty> {
    return this.rt('StartContainer', req);
  }
  /** waits up to `timeout` s for the container to exit before SIGKILL, so the deadline is timeout + 30 s */
  stopContainer(req: cri.StopContainerRequest): Promise<cri.Empty> {
    return this.rt('StopContainer', req, Number(req.timeout ?? 0) * SECOND + this.timeoutMs);
  }
  removeContainer(req: cri.ContainerIdRequest): Promise<cri.Empty> {
    return this.rt('RemoveContainer', req);
  }
  listContainers(req: cri.ListContainersRequest = {}): Promise<cri.ListContainersResponse> {
    return this.rt('ListContainers', req);
  }
  containerStatus(req: cri.ContainerStatusRequest): Promise<cri.ContainerStatusResponse> {
    return this.rt('ContainerStatus', req);
  }
  updateContainerResources(req: cri.UpdateContainerResourcesRequest): Promise<cri.Empty> {
    return this.rt('UpdateContainerResources', req);
  }
  reopenContainerLog(req: cri.ContainerIdRequest): Promise<cri.Empty> {
    return this.rt('ReopenContainerLog', req);
  }
  /** runs a command to completion; the deadline is its own timeout (if any) + 30 s */
  execSync(req: cri.ExecSyncRequest): Promise<cri.ExecSyncResponse> {
    return this.rt('ExecSync', req, Number(req.timeout ?? 0) * SECOND + this.timeoutMs);
  }
  exec(req: cri.ExecRequest): Promise<cri.StreamUrlResponse> {
    return this.rt('Exec', req);
  }
  attach(req: cri.AttachRequest): Promise<cri.StreamUrlResponse> {
    return this.rt('Attach', req);
  }
  portForward(req: cri.PortForwardRequest): Promise<cri.StreamUrlResponse> {
    return this.rt('PortForward', req);
  }
  containerStats(req: cri.ContainerIdRequest): Promise<cri.ContainerStatsResponse> {
    return this.rt('ContainerStats', req);
  }
  listContainerStats(req: cri.ListContainerStatsRequest = {}): Promise<cri.ListContainerStatsResponse> {
    return this.rt('ListContainerStats', req);
  }
  podSandboxStats(req: cri.PodSandboxIdRequest): Promise<cri.PodSandboxStatsResponse> {
    return this.rt('PodSandboxStats', req);
  }
  listPodSandboxStats(req: cri.ListPodSandboxStatsRequest = {}): Promise<cri.ListPodSandboxStatsResponse> {
    return this.rt('ListPodSandboxStats', req);
  }

  // ---- ImageService
  listImages(req: cri.ListImagesRequest = {}): Promise<cri.ListImagesResponse> {
    return this.call(this.image, 'ListImages', req);
  }
  imageStatus(req: cri.ImageStatusRequest): Promise<cri.ImageStatusResponse> {
    return this.call(this.image, 'ImageStatus', req);
  }
  pullImage(req: cri.PullImageRequest): Promise<cri.PullImageResponse> {
    return this.call(this.image, 'PullImage', req, this.pullTimeoutMs);
  }
  removeImage(req: cri.RemoveImageRequest): Promise<cri.Empty> {
    return this.call(this.image, 'RemoveImage', req);
  }
  imageFsInfo(): Promise<cri.ImageFsInfoResponse> {
    return this.call(this.image, 'ImageFsInfo', {});
  }

  /**
   * Resolves once Status reports RuntimeReady (and NetworkReady when `network` is set);
   * rejects after `timeoutMs` with the last error or the unready condition's reason, or once `signal` aborts.
   */
  async waitReady(
    timeoutMs: number,
    opts: { network?: boolean; intervalMs?: number; signal?: AbortSignal } = {},
  ): Promise<cri.StatusResponse> {
    const until = Date.now() + timeoutMs;
    let last = 'no answer yet';
    let answered = false;
    for (;;) {
      if (opts.signal?.aborted) throw new Error(`waiting for the CRI runtime at ${this.endpoint} was cancelled`);
      // each attempt gets at least 50 ms so a last, truncated attempt cannot hide why it was not ready
      const deadline = Math.max(until - Date.now(), 50);
      try {
        const res = await this.rt<cri.StatusResponse>('Status', {}, deadline);
        const unready = unreadyConditions(res, opts);
        if (unready.length === 0) return res;
        answered = true;
        last = unready.map((c) => `${c.type}=false (${c.reason}: ${c.message})`).join('; ');
      } catch (e) {
        if (!answered) last = (e as Error).message;
      }
      const left = until - Date.now();
      if (left <= 0) throw new Error(`CRI runtime at ${this.endpoint} not ready after ${timeoutMs} ms: ${last}`);
      await new Promise((r) => setTimeout(r, Math.min(opts.intervalMs ?? 20, left)));
    }
  }
}

/** The conditions k1s needs that are not true; a missing condition counts as not ready. */
export function unreadyConditions(res: cri.StatusResponse, opts: { network?: boolean } = {}): cri.RuntimeCondition[] {
  const wanted = opts.network ? ['RuntimeReady', 'NetworkReady'] : ['RuntimeReady'];
  const conds = res.status?.conditions ?? [];
  return wanted.flatMap((type) => {
    const c = conds.find((x) => x.type === type);
    if (c?.status) return [];
    return [c ?? { type, status: false, reason: 'ConditionMissing', message: `runtime did not report ${type}` }];
  });
}

// Image pulls of a real node (kuberuntime's image manager): credentials from the pod's imagePullSecrets
// (kubernetes.io/dockerconfigjson or dockercfg) matched by registry host, the back-off key, and kube's failures.
import type { Container, Pod } from '../../api/core/pod/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { CriError, type CriClient } from '../../runtime/cri-client.js';
import type { AuthConfig, Image, PodSandboxConfig } from '../../runtime/cri-types.js';
import { Backoff, goDuration } from '../backoff.js';
import type { RuntimeEvent, RuntimeFailure } from '../runtime.js';

/** The registry host of an image reference (docker.io for Docker Hub short names). */
export function registryHost(image: string): string {
  const first = image.split('/')[0];
  if (!image.includes('/') || !(first.includes('.') || first.includes(':') || first === 'localhost')) return 'docker.io';
  return first;
}

/** The host a docker config key names: "https://index.docker.io/v1/" → docker.io, "reg.example:5000" → itself. */
function keyHost(key: string): string {
  const host = key.replace(/^https?:\/\//, '').split('/')[0];
  return host === 'index.docker.io' || host === 'registry-1.docker.io' ? 'docker.io' : host;
}

interface DockerAuth {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
}

/** The first credentials of the pod's pull secrets for the image's registry (undefined: pull anonymously). */
export async function imagePullAuth(client: Client, pod: Pod, image: string): Promise<AuthConfig | undefined> {
  const host = registryHost(image);
  for (const ref of pod.spec?.imagePullSecrets ?? []) {
    if (!ref.name) continue;
    let secret: { type?: string; data?: Record<string, string> };
    try {
      secret = (await client.resource('v1', 'secrets').get(pod.metadata.namespace!, ref.name)) as typeof secret;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) continue;
      throw e;
    }
    const raw = secret.data?.['.dockerconfigjson'] ?? secret.data?.['.dockercfg'];
    if (!raw) continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    const auths = (secret.data?.['.dockerconfigjson'] ? parsed.auths : parsed) as Record<string, DockerAuth> | undefined;
    for (const [key, a] of Object.entries(auths ?? {})) {
      if (keyHost(key) !== host) continue;
      const out: AuthConfig = { server_address: key };
      if (a.username) out.username = a.username;
      if (a.password) out.password = a.password;
      if (a.auth) out.auth = a.auth;
      if (a.identitytoken) out.identity_token = a.identitytoken;
      if (a.registrytoken) out.registry_token = a.registrytoken;
      return out;
    }
  }
  return undefined;
}

/** The image manager backs off per pod and image. */
export function imagePullBackoffKey(pod: Pod, image: string): string {
  return `${pod.metadata.uid}_${image}`;
}

/** Go's codes.Code names, by gRPC status number */
const GO_CODES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];

/** "rpc error: code = NotFound desc = …", as Go's gRPC errors print */
export const rpcMessage = (e: unknown): string => (e instanceof CriError ? `rpc error: code = ${GO_CODES[e.code] ?? `Code(${e.code})`} desc = ${e.details}` : (e as Error).message);

/** how long a prefetched ImageStatus stands in for asking again */
const PREFETCH_MS = 2000;

export interface EnsuredImage {
  /** the image id (config digest) to create containers from */
  ref: string;
  uid?: number;
  username?: string;
}

/** the image manager's events (Pulling, Pulled, Failed, BackOff, ErrImageNeverPull) */
export type ImageEventSink = (event: RuntimeEvent) => void;

/** kube's default pull policy: Always for :latest or no tag (unless pinned by digest), else IfNotPresent */
export function defaultPullPolicy(image: string): string {
  const name = image.split('@')[0];
  const tagless = !/:[^/]+$/.test(name) || name.endsWith(':latest');
  return tagless && !image.includes('@') ? 'Always' : 'IfNotPresent';
}

/**
 * EnsureImageExists: the pull policy, pulls with the pod's credentials, a back-off per pod and image, and the image
 * manager's events with its messages. The waiting message of ImagePullBackOff carries the last pull error.
 */
export class ImagePuller {
  private readonly backoff = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
  /** back-off key → when its last pull failed */
  private readonly failedAt = new Map<string, number>();
  /** back-off key → "ErrImagePull: <message>" of its last failed pull */
  private readonly lastError = new Map<string, string>();
  /** image → an ImageStatus asked ahead (while the sandbox is made), used once by the next ensure within PREFETCH_MS */
  private readonly prefetched = new Map<string, { at: number; status: Promise<Image | undefined> }>();

  constructor(
    private readonly cri: CriClient,
    private readonly client: Client,
  ) {}

  /**
   * Asks ImageStatus for these images now, so that the next ensure of each (the pod's first container starts,
   * right after RunPodSandbox) need not wait for it: the check overlaps the sandbox's creation.
   */
  prefetch(images: Iterable<string>): void {
    const now = Date.now();
    for (const [image, pre] of this.prefetched) if (now - pre.at > PREFETCH_MS) this.prefetched.delete(image);
    for (const image of new Set(images)) {
      if (!image) continue;
      const status = this.imageStatus(image);
      status.catch(() => undefined); // an unused failed prefetch is no unhandled rejection; ensure asks again
      this.prefetched.set(image, { at: now, status });
    }
  }

  /** the prefetched status if fresh (once), else ImageStatus now */
  private async firstStatus(image: string): Promise<Image | undefined> {
    const pre = this.prefetched.get(image);
    if (pre) {
      this.prefetched.delete(image);
      if (Date.now() - pre.at <= PREFETCH_MS) {
        const img = await pre.status.catch(() => null);
        if (img !== null) return img;
      }
    }
    return this.imageStatus(image);
  }

  private async imageStatus(image: string): Promise<Image | undefined> {
    return (await this.cri.imageStatus({ image: { image } })).image ?? undefined;
  }

  async ensure(pod: Pod, c: Container, sandboxConfig: () => PodSandboxConfig, emit: ImageEventSink = () => {}): Promise<EnsuredImage | RuntimeFailure> {
    const image = c.image ?? '';
    const policy = c.imagePullPolicy ?? defaultPullPolicy(image);
    let img = await this.firstStatus(image);
    if (img && policy !== 'Always') {
      emit({ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine` });
    } else {
      if (policy === 'Never') {
        const message = `Container image "${image}" is not present with pull policy of Never`;
        emit({ type: 'Warning', reason: 'ErrImageNeverPull', message });
        return { reason: 'ErrImageNeverPull', message };
      }
      const key = imagePullBackoffKey(pod, image);
      const failed = this.failedAt.get(key);
      if (failed !== undefined && this.backoff.isInBackOffSince(key, failed)) {
        const message = `Back-off pulling image "${image}"`;
        emit({ type: 'Normal', reason: 'BackOff', message });
        const prev = this.lastError.get(key);
        return { reason: 'ImagePullBackOff', message: prev ? `${message}: ${prev}` : message };
      }
      this.lastError.delete(key);
      emit({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"` });
      const started = Date.now();
      try {
        const auth = await imagePullAuth(this.client, pod, image);
        await this.cri.pullImage({ image: { image }, auth, sandbox_config: sandboxConfig() });
        // pulls are not queued here (kube's parallel puller): the pull took as long as the wait for it
        const took = goDuration(Date.now() - started);
        img = await this.imageStatus(image);
        const size = img ? String(img.size ?? 0) : '0';
        emit({ type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.` });
        this.backoff.reset(key);
        this.failedAt.delete(key);
      } catch (e) {
        const now = Date.now();
        const err = rpcMessage(e);
        emit({ type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${err}` });
        this.backoff.next(key, now);
        this.failedAt.set(key, now);
        const failure = evalPullError(image, err);
        this.lastError.set(key, `${failure.reason}: ${failure.message}`);
        return failure;
      }
      if (!img) return { reason: 'ErrImagePull', message: `image "${image}" is not present after pulling it` };
    }
    const uid = img.uid?.value;
    return { ref: img.id, uid: uid !== undefined && uid !== null ? Number(uid) : undefined, username: img.username || undefined };
  }
}

/** evalCRIPullErr: a runtime's "RegistryUnavailable: …" becomes its own reason; anything else is ErrImagePull. */
export function evalPullError(image: string, err: string): RuntimeFailure {
  const m = /^(?:rpc error: code = \w+ desc = )?RegistryUnavailable(.*)$/s.exec(err);
  if (m) return { reason: 'RegistryUnavailable', message: `image pull failed for ${image} because the registry is unavailable${m[1]}` };
  return { reason: 'ErrImagePull', message: err };
}

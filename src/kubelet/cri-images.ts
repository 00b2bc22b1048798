// Image pulls of a real node (kuberuntime's image manager): credentials from the pod's imagePullSecrets
// (kubernetes.io/dockerconfigjson or dockercfg) matched by registry host, the back-off key, and kube's failures.
import type { Container, Pod } from '../api/core-pod-types.js';
import type { Client } from '../client/types.js';
import { StatusError } from '../machinery/errors.js';
import { CriError, type CriClient } from '../runtime/cri-client.js';
import type { AuthConfig, PodSandboxConfig } from '../runtime/cri-types.js';
import { Backoff } from './backoff.js';
import type { RuntimeFailure } from './runtime.js';

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

/** ErrImagePull with the runtime's error, as the kubelet's status shows it. */
export function pullFailure(image: string, err: string): RuntimeFailure {
  return { reason: 'ErrImagePull', message: `Failed to pull image "${image}": ${err}` };
}

/** "rpc error: code = NotFound desc = …", as Go's gRPC errors print */
export const rpcMessage = (e: unknown): string => (e instanceof CriError ? `rpc error: code = ${e.message.split(':')[1]?.trim() ?? e.code} desc = ${e.details}` : (e as Error).message);

export interface EnsuredImage {
  /** the image id (config digest) to create containers from */
  ref: string;
  uid?: number;
  username?: string;
}

/** EnsureImageExists: the pull policy, pulls with the pod's credentials, and a back-off per pod and image. */
export class ImagePuller {
  private readonly backoff = new Backoff({ initialMs: 10_000, maxMs: 300_000 });
  /** back-off key → when its last pull failed */
  private readonly failedAt = new Map<string, number>();

  constructor(
    private readonly cri: CriClient,
    private readonly client: Client,
  ) {}

  async ensure(pod: Pod, c: Container, sandboxConfig: () => PodSandboxConfig): Promise<EnsuredImage | RuntimeFailure> {
    const image = c.image ?? '';
    const name = image.split('@')[0];
    const tagless = !/:[^/]+$/.test(name) || name.endsWith(':latest');
    const policy = c.imagePullPolicy ?? (tagless && !image.includes('@') ? 'Always' : 'IfNotPresent');
    const status = async () => (await this.cri.imageStatus({ image: { image } })).image;
    let img = await status();
    if (!img || policy === 'Always') {
      if (policy === 'Never') return { reason: 'ErrImageNeverPull', message: `Container image "${image}" is not present with pull policy of Never` };
      const key = imagePullBackoffKey(pod, image);
      const now = Date.now();
      const failed = this.failedAt.get(key);
      if (failed !== undefined && this.backoff.isInBackOffSince(key, failed)) return { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` };
      try {
        const auth = await imagePullAuth(this.client, pod, image);
        await this.cri.pullImage({ image: { image }, auth, sandbox_config: sandboxConfig() });
        this.backoff.reset(key);
        this.failedAt.delete(key);
        img = await status();
      } catch (e) {
        this.backoff.next(key, now);
        this.failedAt.set(key, now);
        return pullFailure(image, rpcMessage(e));
      }
      if (!img) return { reason: 'ErrImagePull', message: `image "${image}" is not present after pulling it` };
    }
    const uid = img.uid?.value;
    return { ref: img.id, uid: uid !== undefined && uid !== null ? Number(uid) : undefined, username: img.username || undefined };
  }
}

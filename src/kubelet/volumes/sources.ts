// Payloads of the API-backed volumes, as the kubelet's plugins compute them: configMap and secret (MakePayload:
// items, defaultMode/mode, optional), downwardAPI (CollectData) and projected (its sources in order, including
// serviceAccountToken through the TokenRequest API with the token manager's refresh rule).
import path from 'node:path';
import type { Container, Pod } from '../../api/core/pod/types.js';
import type { KObject } from '../../api/types.js';
import type { Service } from '../../api/core/service/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import type { ConfigMapLike, EnvContext, SecretLike } from '../pods/container-env.js';
import { downwardFieldValue, resourceFieldValue } from '../pods/container-env.js';
import type { FileProjection, Payload } from './atomic-writer.js';

export const DEFAULT_MODE = 0o644;

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef: { apiVersion: 'v1'; kind: 'Pod'; name: string; uid: string };
}
export interface TokenResult {
  token: string;
  /** RFC 3339 */
  expirationTimestamp?: string;
}

export interface SourceContext {
  getConfigMap(namespace: string, name: string): Promise<ConfigMapLike | undefined>;
  getSecret(namespace: string, name: string): Promise<SecretLike | undefined>;
  /** POST serviceaccounts/<name>/token in the namespace */
  requestToken(namespace: string, serviceAccountName: string, spec: TokenRequestSpec): Promise<TokenResult>;
  nodeAllocatable: Record<string, string | number>;
}

type Obj = Record<string, unknown>;
interface KeyToPath {
  key?: string;
  path?: string;
  mode?: number;
}

/** utilerrors.NewAggregate's message. */
export function aggregate(errors: string[]): string | undefined {
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const b64 = (s: string): Buffer => Buffer.from(s, 'base64');

/** configmap.MakePayload (data and binaryData) / secret.MakePayload. */
export function keyedPayload(
  kind: 'configmap' | 'secret',
  entries: Map<string, Buffer>,
  items: KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): Payload | { error: string } {
  const out: Payload = new Map();
  if (!items || items.length === 0) {
    for (const [k, data] of entries) out.set(k, { data, mode: defaultMode });
    return out;
  }
  for (const it of items) {
    const data = entries.get(it.key ?? '');
    if (!data) {
      if (optional) continue;
      return { error: kind === 'configmap' ? `configmap references non-existent config key: ${it.key}` : `secret references non-existent secret key: ${it.key}` };
    }
    out.set(it.path ?? '', { data, mode: it.mode ?? defaultMode });
  }
  return out;
}

function configMapEntries(cm: ConfigMapLike): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(cm.data ?? {})) m.set(k, utf8(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) m.set(k, b64(v));
  return m;
}
const secretEntries = (s: SecretLike): Map<string, Buffer> => new Map(Object.entries(s.data ?? {}).map(([k, v]) => [k, b64(v)]));

type Result = { payload: Payload } | { error: string };

export async function configMapPayload(ctx: SourceContext, pod: Pod, src: Obj, defaultMode: number): Promise<Result> {
  const name = String(src.name ?? '');
  const optional = src.optional === true;
  const cm = await ctx.getConfigMap(pod.metadata?.namespace ?? '', name);
  if (!cm && !optional) return { error: `configmap "${name}" not found` };
  const p = keyedPayload('configmap', configMapEntries(cm ?? {}), src.items as KeyToPath[], defaultMode, optional);
  return p instanceof Map ? { payload: p } : p;
}

export async function secretPayload(ctx: SourceContext, pod: Pod, src: Obj, defaultMode: number): Promise<Result> {
  const name = String(src.secretName ?? src.name ?? '');
  const optional = src.optional === true;
  const s = await ctx.getSecret(pod.metadata?.namespace ?? '', name);
  if (!s && !optional) return { error: `secret "${name}" not found` };
  const p = keyedPayload('secret', secretEntries(s ?? {}), src.items as KeyToPath[], defaultMode, optional);
  return p instanceof Map ? { payload: p } : p;
}

interface DownwardItem {
  path?: string;
  mode?: number;
  fieldRef?: { fieldPath?: string };
  resourceFieldRef?: { containerName?: string; resource?: string; divisor?: string | number };
}

/** downwardapi.CollectData: metadata fields and container resources; errors are aggregated. */
export function downwardAPIPayload(pod: Pod, items: DownwardItem[], defaultMode: number, allocatable: Record<string, string | number>): Result {
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const it of items) {
    const f: FileProjection = { data: Buffer.alloc(0), mode: it.mode ?? defaultMode };
    if (it.fieldRef) {
      const fp = it.fieldRef.fieldPath ?? '';
      // the volume reads the object itself (fieldpath.ExtractFieldPathAsString): only metadata fields exist there
      const r = fp.startsWith('metadata.') ? downwardFieldValue(pod, fp, { podIPs: [], hostIPs: [] }) : { error: `unsupported fieldPath: ${fp}` };
      if ('error' in r) errors.push(r.error);
      else f.data = utf8(r.value);
    } else if (it.resourceFieldRef) {
      const cname = it.resourceFieldRef.containerName ?? '';
      const c = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((x) => x.name === cname);
      if (!c) errors.push(`container ${cname} not found`);
      else {
        const r = resourceFieldValue(pod, c as Container, it.resourceFieldRef, allocatable);
        if ('error' in r) errors.push(r.error);
        else f.data = utf8(r.value);
      }
    }
    payload.set(path.posix.normalize(it.path ?? ''), f);
  }
  const error = aggregate(errors);
  return error ? { error } : { payload };
}

interface CachedToken {
  result: TokenResult;
  expirationSeconds: number;
  jitterMs: number;
}

/** The kubelet token manager's cache: a token is re-requested after 80% of its TTL (or 24 h), with a small jitter. */
export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  constructor(private readonly now: () => number = Date.now) {}

  async get(ctx: SourceContext, ns: string, sa: string, spec: TokenRequestSpec): Promise<TokenResult> {
    const key = JSON.stringify([ns, sa, spec.audiences ?? [], spec.expirationSeconds ?? 0, spec.boundObjectRef.uid]);
    const cached = this.tokens.get(key);
    if (cached && !this.requiresRefresh(cached)) return cached.result;
    const result = await ctx.requestToken(ns, sa, spec);
    this.tokens.set(key, { result, expirationSeconds: spec.expirationSeconds ?? 3600, jitterMs: Math.floor(Math.random() * 10) * 1000 });
    return result;
  }

  /** Drops the tokens bound to a pod (its volumes are torn down). */
  forgetPod(uid: string): void {
    for (const k of this.tokens.keys()) if ((JSON.parse(k) as unknown[])[4] === uid) this.tokens.delete(k);
  }

  private requiresRefresh(t: CachedToken): boolean {
    if (!t.result.expirationTimestamp) return true;
    const exp = Date.parse(t.result.expirationTimestamp);
    const iat = exp - t.expirationSeconds * 1000;
    const now = this.now();
    if (now > iat + 24 * 3600_000 - t.jitterMs) return true;
    return now > exp - Math.floor((t.expirationSeconds * 20) / 100) * 1000 - t.jitterMs;
  }
}

/** projected: every source in order into one payload; the errors of all sources aggregated. */
export async function projectedPayload(ctx: SourceContext, tokens: TokenCache, pod: Pod, src: Obj): Promise<Result> {
  const defaultMode = typeof src.defaultMode === 'number' ? src.defaultMode : DEFAULT_MODE;
  const payload: Payload = new Map();
  const errors: string[] = [];
  const merge = (r: Result): void => {
    if ('error' in r) errors.push(r.error);
    else for (const [k, v] of r.payload) payload.set(k, v);
  };
  // the sources are read side by side (a token request beside the configMap read) and merged in their order
  const token = async (t: { audience?: string; expirationSeconds?: number; path?: string }): Promise<Result> => {
    try {
      const r = await tokens.get(ctx, pod.metadata?.namespace ?? '', pod.spec?.serviceAccountName ?? 'default', {
        audiences: t.audience ? [t.audience] : undefined,
        expirationSeconds: t.expirationSeconds ?? 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      });
      // a token owned by the pod's user (or group-readable through fsGroup) is 0600, as kube writes it
      const fsUser = fsUserOf(pod);
      const mode = fsUser !== undefined || pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
      return { payload: new Map([[t.path ?? 'token', { data: utf8(r.token), mode, fsUser }]]) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const results = await Promise.all(
    ((src.sources ?? []) as Obj[]).map(async (s): Promise<Result | undefined> => {
      if (s.configMap) return configMapPayload(ctx, pod, s.configMap as Obj, defaultMode);
      if (s.secret) return secretPayload(ctx, pod, s.secret as Obj, defaultMode);
      if (s.downwardAPI) return downwardAPIPayload(pod, ((s.downwardAPI as Obj).items ?? []) as DownwardItem[], defaultMode, ctx.nodeAllocatable);
      if (s.serviceAccountToken) return token(s.serviceAccountToken as { audience?: string; expirationSeconds?: number; path?: string });
      return undefined;
    }),
  );
  for (const r of results) if (r) merge(r);
  const error = aggregate(errors);
  return error ? { error } : { payload };
}

/** util.FsUserFrom: the one effective runAsUser shared by every container, if there is one. */
function fsUserOf(pod: Pod): number | undefined {
  const podUser = pod.spec?.securityContext?.runAsUser;
  let user: number | undefined;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])]) {
    const u = c.securityContext?.runAsUser ?? podUser;
    if (u === undefined || (user !== undefined && user !== u)) return undefined;
    user = u;
  }
  return user;
}

// ---- backing the contexts with the API client ------------------------------------------------------------------

/** Reads through the client; NotFound becomes undefined as the contexts expect. */
export function clientSourceContext(
  client: Client,
  node: { nodeAllocatable: Record<string, string | number>; hostIPs: string[] },
): SourceContext & EnvContext {
  const getOrUndefined = async <T>(apiVersion: string, plural: string, ns: string, name: string): Promise<T | undefined> => {
    try {
      return (await client.resource(apiVersion, plural).get(ns, name)) as T;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  };
  return {
    getConfigMap: (ns, name) => getOrUndefined<ConfigMapLike>('v1', 'configmaps', ns, name),
    getSecret: (ns, name) => getOrUndefined<SecretLike>('v1', 'secrets', ns, name),
    async listServices(ns) {
      return (await client.resource('v1', 'services').list(ns)).items as Service[];
    },
    async requestToken(ns, sa, spec) {
      const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: sa, namespace: ns }, spec };
      const res = (await client.resource('v1', 'serviceaccounts').create(ns, body as KObject, { subresource: 'token' })) as KObject & {
        status?: { token?: string; expirationTimestamp?: string };
      };
      return { token: res.status?.token ?? '', expirationTimestamp: res.status?.expirationTimestamp };
    },
    nodeAllocatable: node.nodeAllocatable,
    hostIPs: node.hostIPs,
  };
}

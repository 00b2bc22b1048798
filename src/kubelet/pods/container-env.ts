// A container's environment as the 1.33 kubelet builds it (kubelet_pods.go makeEnvironmentVariables): envFrom first,
// then env in declared order (later wins, `$(VAR)` expanded against what is defined so far and the service
// variables), then the service variables not already set. Missing sources fail with the kubelet's own messages,
// which become the CreateContainerConfigError message.
import type { Container, Pod } from '../../api/core/pod/types.js';
import type { Service } from '../../api/core/service/types.js';
import { expand, mappingFor } from './env-expansion.js';
import { Quantity } from '../../machinery/quantity.js';

export interface ConfigMapLike {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}
export interface SecretLike {
  /** base64, as the API serves it */
  data?: Record<string, string>;
}

export interface EnvContext {
  /** undefined when the object does not exist (NotFound); other errors are thrown. */
  getConfigMap(namespace: string, name: string): Promise<ConfigMapLike | undefined>;
  getSecret(namespace: string, name: string): Promise<SecretLike | undefined>;
  listServices(namespace: string): Promise<Service[]>;
  /** node status.allocatable: the default for unset limits in resourceFieldRef */
  nodeAllocatable: Record<string, string | number>;
  /** the node's IPs (status.hostIP / hostIPs) */
  hostIPs: string[];
}

export interface EnvVarKV {
  name: string;
  value: string;
}
export type EnvFailure = { reason: 'CreateContainerConfigError'; message: string };
export type EnvResult = { env: EnvVarKV[] } | { failure: EnvFailure };

const fail = (message: string): { failure: EnvFailure } => ({ failure: { reason: 'CreateContainerConfigError', message } });

/** kubelet/envvars makeEnvVariableName */
function envName(s: string): string {
  const n = s.replace(/[.-]/g, '_').toUpperCase();
  return /^[0-9]/.test(n) ? '_' + n : n;
}

const isServiceIPSet = (s: Service): boolean => !!s.spec?.clusterIP && s.spec.clusterIP !== 'None';
const joinHostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** envvars.FromServices for one service: `_SERVICE_HOST/_PORT[_<name>]` and the Docker link variables. */
export function serviceEnvVars(svc: Service): EnvVarKV[] {
  const ip = svc.spec?.clusterIP ?? '';
  const ports = svc.spec?.ports ?? [];
  const prefix = envName(svc.metadata?.name ?? '');
  const out: EnvVarKV[] = [{ name: `${prefix}_SERVICE_HOST`, value: ip }];
  if (ports.length === 0) return out;
  out.push({ name: `${prefix}_SERVICE_PORT`, value: String(ports[0].port) });
  for (const p of ports) if (p.name) out.push({ name: `${prefix}_SERVICE_PORT_${envName(p.name)}`, value: String(p.port) });
  ports.forEach((p, i) => {
    const proto = (p.protocol || 'TCP').toLowerCase();
    const url = `${proto}://${joinHostPort(ip, Number(p.port))}`;
    if (i === 0) out.push({ name: `${prefix}_PORT`, value: url });
    const pp = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
    out.push(
      { name: pp, value: url },
      { name: `${pp}_PROTO`, value: proto },
      { name: `${pp}_PORT`, value: String(p.port) },
      { name: `${pp}_ADDR`, value: ip },
    );
  });
  return out;
}

/**
 * getServiceEnvVarMap: the `kubernetes` service of `default` always, the pod namespace's services with a cluster IP
 * when enableServiceLinks. Sorted by service name so the result is stable (kube's order is a Go map's).
 */
export async function serviceEnvMap(ctx: EnvContext, namespace: string, enableServiceLinks: boolean): Promise<Map<string, string>> {
  const byName = new Map<string, Service>();
  const defaults = await ctx.listServices('default');
  for (const s of defaults) if (s.metadata?.name === 'kubernetes' && isServiceIPSet(s)) byName.set('kubernetes', s);
  if (enableServiceLinks) {
    const own = namespace === 'default' ? defaults : await ctx.listServices(namespace);
    for (const s of own) {
      const name = s.metadata?.name ?? '';
      if (!isServiceIPSet(s) || (namespace === 'default' && name === 'kubernetes')) continue;
      byName.set(name, s); // a `kubernetes` service of the pod's own namespace wins, as in kube
    }
  }
  const m = new Map<string, string>();
  for (const name of [...byName.keys()].sort()) for (const e of serviceEnvVars(byName.get(name)!)) m.set(e.name, e.value);
  return m;
}

const b64 = (v: string): string => Buffer.from(v, 'base64').toString('utf8');

/** Caches the objects one container's env reads, so each is fetched once (as the kubelet does). */
class SourceCache {
  private readonly configMaps = new Map<string, ConfigMapLike | undefined>();
  private readonly secrets = new Map<string, SecretLike | undefined>();
  constructor(
    private readonly ctx: EnvContext,
    private readonly ns: string,
  ) {}
  async configMap(name: string): Promise<ConfigMapLike | undefined> {
    if (!this.configMaps.has(name)) this.configMaps.set(name, await this.ctx.getConfigMap(this.ns, name));
    return this.configMaps.get(name);
  }
  async secret(name: string): Promise<SecretLike | undefined> {
    if (!this.secrets.has(name)) this.secrets.set(name, await this.ctx.getSecret(this.ns, name));
    return this.secrets.get(name);
  }
}

type EnvFrom = { prefix?: string; configMapRef?: { name?: string; optional?: boolean }; secretRef?: { name?: string; optional?: boolean } };

export interface ResolveEnvOptions {
  /** the sandbox's IPs once known (status.podIP/podIPs); defaults to pod.status.podIPs */
  podIPs?: string[];
}

/** makeEnvironmentVariables. Errors thrown by the context (not NotFound) become the failure message too. */
export async function resolveContainerEnv(ctx: EnvContext, pod: Pod, container: Container, opts: ResolveEnvOptions = {}): Promise<EnvResult> {
  try {
    return await resolve(ctx, pod, container, opts);
  } catch (e) {
    return fail((e as Error).message);
  }
}

async function resolve(ctx: EnvContext, pod: Pod, container: Container, opts: ResolveEnvOptions): Promise<EnvResult> {
  const ns = pod.metadata?.namespace ?? 'default';
  const serviceEnv = await serviceEnvMap(ctx, ns, pod.spec?.enableServiceLinks !== false);
  const cache = new SourceCache(ctx, ns);
  const env = new Map<string, string>();

  for (const from of (container.envFrom ?? []) as EnvFrom[]) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const name = from.configMapRef.name ?? '';
      const cm = await cache.configMap(name);
      if (!cm) {
        if (from.configMapRef.optional) continue;
        return fail(`configmap "${name}" not found`);
      }
      for (const [k, v] of Object.entries(cm.data ?? {})) env.set(prefix + k, v);
    } else if (from.secretRef) {
      const name = from.secretRef.name ?? '';
      const s = await cache.secret(name);
      if (!s) {
        if (from.secretRef.optional) continue;
        return fail(`secret "${name}" not found`);
      }
      for (const [k, v] of Object.entries(s.data ?? {})) env.set(prefix + k, b64(v));
    }
  }

  const mapping = mappingFor(env, serviceEnv);
  const podIPs = opts.podIPs ?? (pod.status?.podIPs ?? []).map((p) => p.ip ?? '').filter(Boolean);
  for (const ev of container.env ?? []) {
    const name = ev.name ?? '';
    let value = ev.value ?? '';
    const from = ev.valueFrom;
    if (value !== '') {
      value = expand(value, mapping);
    } else if (from?.fieldRef) {
      const r = downwardFieldValue(pod, from.fieldRef.fieldPath ?? '', { podIPs, hostIPs: ctx.hostIPs });
      if ('error' in r) return fail(r.error);
      value = r.value;
    } else if (from?.resourceFieldRef) {
      const r = resourceFieldValue(pod, container, from.resourceFieldRef, ctx.nodeAllocatable);
      if ('error' in r) return fail(r.error);
      value = r.value;
    } else if (from?.configMapKeyRef) {
      const { name: cmName = '', key = '', optional } = from.configMapKeyRef;
      const cm = await cache.configMap(cmName);
      if (!cm) {
        if (optional) continue;
        return fail(`configmap "${cmName}" not found`);
      }
      const v = cm.data?.[key];
      if (v === undefined) {
        if (optional) continue;
        return fail(`couldn't find key ${key} in ConfigMap ${ns}/${cmName}`);
      }
      value = v;
    } else if (from?.secretKeyRef) {
      const { name: sName = '', key = '', optional } = from.secretKeyRef;
      const s = await cache.secret(sName);
      if (!s) {
        if (optional) continue;
        return fail(`secret "${sName}" not found`);
      }
      const v = s.data?.[key];
      if (v === undefined) {
        if (optional) continue;
        return fail(`couldn't find key ${key} in Secret ${ns}/${sName}`);
      }
      value = b64(v);
    }
    env.set(name, value);
  }

  const out: EnvVarKV[] = [...env].map(([name, value]) => ({ name, value }));
  for (const [name, value] of serviceEnv) if (!env.has(name)) out.push({ name, value });
  return { env: out };
}

// ---- downward API values (shared with the downwardAPI volume) --------------------------------------------------

const DOWNWARD_FIELDS = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName',
  'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs',
]);

/** Go's %q for the label/annotation dumps of the downward API. */
function goQuote(s: string): string {
  const esc: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v' };
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (esc[ch]) out += esc[ch];
    else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

/** fieldpath.FormatMap: sorted `k="v"` lines. */
export function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${goQuote(m![k])}`)
    .join('\n');
}

export interface DownwardIPs {
  podIPs: string[];
  hostIPs: string[];
}

/** podFieldSelectorRuntimeValue + fieldpath.ExtractFieldPathAsString. */
export function downwardFieldValue(pod: Pod, fieldPath: string, ips: DownwardIPs): { value: string } | { error: string } {
  const sub = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (sub) {
    const m = (sub[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations) ?? {};
    return { value: m[sub[2]] ?? '' };
  }
  if (!DOWNWARD_FIELDS.has(fieldPath)) return { error: `field label not supported: ${fieldPath}` };
  switch (fieldPath) {
    case 'spec.nodeName':
      return { value: pod.spec?.nodeName ?? '' };
    case 'spec.serviceAccountName':
      return { value: pod.spec?.serviceAccountName ?? '' };
    case 'status.hostIP':
      return { value: ips.hostIPs[0] ?? '' };
    case 'status.hostIPs':
      return { value: ips.hostIPs.join(',') };
    case 'status.podIP':
      return { value: ips.podIPs[0] ?? '' };
    case 'status.podIPs':
      return { value: ips.podIPs.join(',') };
    case 'metadata.annotations':
      return { value: formatMap(pod.metadata?.annotations) };
    case 'metadata.labels':
      return { value: formatMap(pod.metadata?.labels) };
    case 'metadata.name':
      return { value: pod.metadata?.name ?? '' };
    case 'metadata.namespace':
      return { value: pod.metadata?.namespace ?? '' };
    case 'metadata.uid':
      return { value: pod.metadata?.uid ?? '' };
  }
  return { error: `unsupported fieldPath: ${fieldPath}` };
}

const DEFAULTED_LIMITS = ['cpu', 'memory', 'ephemeral-storage'];

function quantity(v: unknown): Quantity | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  try {
    return Quantity.fromJSON(v);
  } catch {
    return undefined;
  }
}

/** Ceil of q / divisor, in milli units for cpu and in units otherwise (resource.convertResource*ToString). */
function divide(q: Quantity | undefined, divisor: Quantity, milli: boolean): string {
  const num = q ? (milli ? q.scaledValue(-3) : q.scaledValue(0)) : 0n;
  const den = milli ? divisor.scaledValue(-3) : divisor.scaledValue(0);
  if (den === 0n) return num === 0n ? 'NaN' : num > 0n ? '+Inf' : '-Inf';
  const quo = num / den;
  const ceil = num % den !== 0n && num > 0n === den > 0n ? quo + 1n : quo;
  return ceil.toString();
}

/**
 * resourceFieldRef: the named (or current) container's requests/limits, unset limits defaulted to node allocatable
 * (defaultPodLimitsForDownwardAPI), divided by the divisor (default 1) and rounded up.
 */
export function resourceFieldValue(
  pod: Pod,
  current: Container,
  ref: { containerName?: string; resource?: string; divisor?: string | number },
  allocatable: Record<string, string | number>,
): { value: string } | { error: string } {
  let c: Container | undefined = current;
  if (ref.containerName) {
    c = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((x) => x.name === ref.containerName);
    if (!c) return { error: `container ${ref.containerName} not found` };
  }
  const divisor = quantity(ref.divisor);
  const div = divisor && !divisor.isZero() ? divisor : Quantity.parse('1');
  const res = ref.resource ?? '';
  const dot = res.indexOf('.');
  const kind = res.slice(0, dot);
  const name = res.slice(dot + 1);
  if ((kind !== 'limits' && kind !== 'requests') || !(DEFAULTED_LIMITS.includes(name) || name.startsWith('hugepages-'))) {
    return { error: `unsupported container resource : ${res}` };
  }
  let q = quantity((kind === 'limits' ? c.resources?.limits : c.resources?.requests)?.[name]);
  if (!q && kind === 'limits' && DEFAULTED_LIMITS.includes(name)) q = quantity(allocatable[name]);
  return { value: divide(q, div, name === 'cpu') };
}

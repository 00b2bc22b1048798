// kube-controller-manager's bootstrapsigner (pkg/controller/bootstrap/bootstrapsigner.go): keeps one
// jws-kubeconfig-<token-id> entry in kube-public/cluster-info per valid bootstrap token allowed for signing
// (usage-bootstrap-signing: "true", not expired, not being deleted) and drops the entries of tokens gone or expired.
// A joining node checks the kubeconfig it fetched without TLS trust against the entry of its own token.
import type { KObject } from '../api/types.js';
import type { Informer } from '../client/informer.js';
import type { ReconcileResult } from '../client/workqueue.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';
import { StatusError } from '../machinery/errors.js';
import { BOOTSTRAP_TOKEN_PATTERN, BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE } from '../apiserver/auth/bootstrap-token.js';
import { detachedJws } from '../pki/bootstrap-jws.js';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const CLUSTER_INFO_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';
/** the one key of the queue: everything is decided over the whole set of tokens */
const KEY = `${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`;

interface Secret extends KObject {
  type?: string;
  data?: Record<string, string>;
}
type ConfigMap = KObject & { data?: Record<string, string> };

const text = (s: Secret, k: string) => (s.data?.[k] === undefined ? undefined : Buffer.from(s.data[k]!, 'base64').toString('utf8'));

/** validateSecretForSigning: the token's id, secret and expiry (ms, or undefined: never) when it may sign */
export function signingToken(s: Secret, now: number): { id: string; secret: string; expires?: number } | undefined {
  if (s.metadata.namespace !== 'kube-system' || s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || s.metadata.deletionTimestamp) return undefined;
  const id = text(s, 'token-id');
  const secret = text(s, 'token-secret');
  if (!id || !secret || !BOOTSTRAP_TOKEN_PATTERN.test(`${id}.${secret}`) || s.metadata.name !== `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`) return undefined;
  if (text(s, 'usage-bootstrap-signing') !== 'true') return undefined;
  const exp = text(s, 'expiration');
  const expires = exp === undefined ? undefined : Date.parse(exp);
  if (expires !== undefined && (Number.isNaN(expires) || expires <= now)) return undefined;
  return { id, secret, expires };
}

/** The ConfigMap's data with exactly the signatures `tokens` make over its kubeconfig. */
export function signedData(data: Record<string, string>, tokens: { id: string; secret: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_KEY_PREFIX)) out[k] = v;
  const content = data[CLUSTER_INFO_KEY];
  if (content === undefined) return out;
  for (const t of tokens) out[`${JWS_KEY_PREFIX}${t.id}`] = detachedJws(content, t.id, t.secret);
  return out;
}

const sameData = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

class BootstrapSigner extends Reconciler {
  readonly name = 'bootstrapsigner';
  private secrets!: Informer;
  private configMaps!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 1 });
  }

  setup(): void {
    this.secrets = this.informer('v1', 'secrets');
    this.configMaps = this.informer('v1', 'configmaps');
    const onSecret = (o: KObject) => {
      if (o.metadata.namespace === 'kube-system' && (o as Secret).type === BOOTSTRAP_TOKEN_SECRET_TYPE) this.enqueue(KEY);
    };
    this.secrets.addHandler({ add: onSecret, update: (_, o) => onSecret(o), delete: onSecret });
    const onConfigMap = (o: KObject) => {
      if (o.metadata.namespace === CLUSTER_INFO_NAMESPACE && o.metadata.name === CLUSTER_INFO_NAME) this.enqueue(KEY);
    };
    this.configMaps.addHandler({ add: onConfigMap, update: (_, o) => onConfigMap(o) });
  }

  async reconcile(): Promise<ReconcileResult | void> {
    const cm = this.configMaps.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME) as ConfigMap | undefined;
    if (!cm) return;
    const now = this.ctx.now();
    const tokens = this.secrets.list('kube-system').flatMap((s) => signingToken(s as Secret, now) ?? []);
    const data = signedData(cm.data ?? {}, tokens);
    if (!sameData(data, cm.data ?? {})) {
      try {
        await this.ctx.client.resource('v1', 'configmaps').update(CLUSTER_INFO_NAMESPACE, { ...cm, data } as KObject);
      } catch (e) {
        // a newer ConfigMap is in the cache soon and queues the key again
        if (!(e instanceof StatusError && (e.code === 409 || e.code === 404))) throw e;
      }
    }
    // the signature of a token goes when the token expires, not only when the tokencleaner deletes it
    const next = Math.min(...tokens.map((t) => t.expires ?? Infinity));
    if (Number.isFinite(next)) return { requeueAfterMs: Math.max(next - now, 1) };
  }
}

export function bootstrapSigner(): ControllerFactory {
  return (ctx) => new BootstrapSigner(ctx);
}

// kube-controller-manager's tokencleaner (pkg/controller/bootstrap/tokencleaner.go): deletes a bootstrap token's
// Secret (kube-system, type bootstrap.kubernetes.io/token) once its `expiration` has passed, checking the live
// object first, and requeues each token for its expiry instead of polling.
import type { Informer } from '../client/informer.js';
import type { ReconcileResult } from '../client/workqueue.js';
import { splitKey } from '../client/informer.js';
import { StatusError } from '../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';
import type { KObject } from '../api/types.js';
import { BOOTSTRAP_TOKEN_SECRET_TYPE } from '../apiserver/auth/bootstrap-token.js';

interface Secret extends KObject {
  type?: string;
  data?: Record<string, string>;
}

/** ms since the epoch when the token expires; undefined: never (or not a bootstrap token of kube-system) */
export function tokenExpiry(s: Secret): number | undefined {
  if (s.metadata.namespace !== 'kube-system' || s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || s.metadata.deletionTimestamp) return undefined;
  const raw = s.data?.expiration;
  if (raw === undefined) return undefined;
  // an unparsable expiration is treated as expired, as kube's isSecretExpired does
  const at = Date.parse(Buffer.from(raw, 'base64').toString('utf8'));
  return Number.isNaN(at) ? 0 : at;
}

class BootstrapTokenCleaner extends Reconciler {
  readonly name = 'tokencleaner';
  private secrets!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 1 });
  }

  setup(): void {
    this.secrets = this.informer('v1', 'secrets');
    const consider = (s: Secret) => {
      if (tokenExpiry(s) !== undefined) this.enqueueObject(s);
    };
    this.secrets.addHandler({ add: (s) => consider(s as Secret), update: (_, s) => consider(s as Secret) });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.secrets.getByKey(key) as Secret | undefined;
    const at = cached && tokenExpiry(cached);
    if (at === undefined) return;
    if (at > this.ctx.now()) return { requeueAfterMs: at - this.ctx.now() };
    const { namespace, name } = splitKey(key);
    const secrets = this.ctx.client.resource('v1', 'secrets');
    let fresh: Secret;
    try {
      fresh = (await secrets.get(namespace, name)) as Secret;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
    const freshAt = tokenExpiry(fresh);
    if (freshAt === undefined) return;
    if (freshAt > this.ctx.now()) return { requeueAfterMs: freshAt - this.ctx.now() };
    try {
      await secrets.delete(namespace, name, { preconditions: { uid: fresh.metadata.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }
}

export function bootstrapTokenCleaner(): ControllerFactory {
  return (ctx) => new BootstrapTokenCleaner(ctx);
}

// ServiceAccounts controller (pkg/controller/serviceaccount/serviceaccounts_controller.go): every active namespace
// has a ServiceAccount named "default", re-created if someone deletes it.
import type { KObject } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';
import { splitKey } from '../client/informer.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';

export interface ServiceAccountControllerOptions {
  /** the ServiceAccounts every namespace gets (default ["default"]) */
  names?: string[];
}

class ServiceAccountsController extends Reconciler {
  readonly name = 'serviceaccount';
  private readonly names: string[];

  constructor(ctx: ControllerContext, opts: ServiceAccountControllerOptions) {
    super(ctx);
    this.names = opts.names ?? ['default'];
  }

  setup(): void {
    const nss = this.informer('v1', 'namespaces');
    nss.addHandler({ add: (o) => this.enqueueObject(o), update: (_, o) => this.enqueueObject(o) });
    this.informer('v1', 'serviceaccounts').addHandler({
      delete: (o) => this.names.includes(o.metadata.name!) && this.enqueue(o.metadata.namespace!),
    });
  }

  async reconcile(key: string): Promise<void> {
    const ns = this.informer('v1', 'namespaces').get('', splitKey(key).name);
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase !== 'Active') return;
    const sas = this.informer('v1', 'serviceaccounts');
    const nsName = ns.metadata.name!;
    for (const name of this.names) {
      if (sas.get(nsName, name)) continue;
      try {
        await this.ctx.client.resource('v1', 'serviceaccounts').create(nsName, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } as KObject);
      } catch (e) {
        // already there (cache behind) or the namespace started terminating meanwhile
        if (e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404)) continue;
        throw e;
      }
    }
  }
}

/** Creates the `default` ServiceAccount in every active namespace. */
export function serviceAccountController(opts: ServiceAccountControllerOptions = {}): ControllerFactory {
  return (ctx) => new ServiceAccountsController(ctx, opts);
}

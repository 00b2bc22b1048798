// Root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher): a ConfigMap kube-root-ca.crt in
// every namespace holding the cluster CA under `ca.crt`, put back when deleted or edited.
import type { KObject } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';
import { clone, deepEqual } from '../machinery/object.js';
import { splitKey } from '../client/informer.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

export interface RootCAPublisherOptions {
  /** the cluster CA certificate(s), PEM */
  caPem: string;
}

class RootCAPublisher extends Reconciler {
  readonly name = 'root-ca-cert-publisher';

  constructor(
    ctx: ControllerContext,
    private readonly opts: RootCAPublisherOptions,
  ) {
    super(ctx);
  }

  setup(): void {
    this.informer('v1', 'namespaces').addHandler({ add: (o) => this.enqueueObject(o), update: (_, o) => this.enqueueObject(o) });
    const ours = (o: KObject) => o.metadata.name === ROOT_CA_CONFIGMAP && this.enqueue(o.metadata.namespace!);
    this.informer('v1', 'configmaps').addHandler({ update: (_, o) => ours(o), delete: ours });
  }

  async reconcile(key: string): Promise<void> {
    const ns = this.informer('v1', 'namespaces').get('', splitKey(key).name);
    if (!ns || ns.metadata.deletionTimestamp) return;
    const nsName = ns.metadata.name!;
    const rc = this.ctx.client.resource('v1', 'configmaps');
    const data = { 'ca.crt': this.opts.caPem };
    const cm = this.informer('v1', 'configmaps').get(nsName, ROOT_CA_CONFIGMAP);
    try {
      if (!cm) {
        await rc.create(nsName, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
          data,
        } as KObject);
        return;
      }
      if (deepEqual((cm as { data?: unknown }).data, data) && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] === DESCRIPTION) return;
      const next = clone(cm) as KObject & { data?: Record<string, string> };
      next.data = data;
      next.metadata.annotations = { ...next.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
      await rc.update(nsName, next);
    } catch (e) {
      // a create racing the cache, or a namespace that began terminating: the next event brings us back
      if (e instanceof StatusError && ((e.code === 409 && !cm) || e.code === 403 || e.code === 404)) return;
      throw e;
    }
  }
}

/** Publishes `caPem` as ConfigMap kube-root-ca.crt (key ca.crt) in every namespace. */
export function rootCAPublisherController(opts: RootCAPublisherOptions): ControllerFactory {
  return (ctx) => new RootCAPublisher(ctx, opts);
}

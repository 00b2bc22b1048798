// Objects every cluster has from its first start.
import type { LocalClient } from '../client/local.js';
import { StatusError } from '../machinery/errors.js';

export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function bootstrapNamespaces(client: LocalClient): Promise<void> {
  const ns = client.resource('v1', 'namespaces');
  for (const name of systemNamespaces) {
    try {
      await ns.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
}

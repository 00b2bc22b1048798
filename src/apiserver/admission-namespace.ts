// NamespaceLifecycle: no new objects in missing or terminating namespaces; the system namespaces cannot be deleted.
import { errors, StatusError } from '../machinery/errors.js';
import type { AdmissionPlugin } from './admission.js';
import type { ResourceStore } from './resource-store.js';

const immortal = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceLifecycle(namespaces: () => ResourceStore): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async admit({ store, operation, object, namespace }) {
      if (store.def.plural === 'namespaces' && store.def.group === '') {
        if (operation === 'DELETE' && immortal.has(object.metadata.name ?? '')) {
          throw errors.forbidden(store.gr, object.metadata.name!, `namespaces "${object.metadata.name}" is forbidden: this namespace may not be deleted`);
        }
        return;
      }
      if (!store.def.namespaced || operation !== 'CREATE') return;
      let ns;
      try {
        ns = await namespaces().get('', namespace);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
        throw e;
      }
      if (ns.metadata.deletionTimestamp) {
        const name = object.metadata.name ?? object.metadata.generateName ?? '';
        throw errors.forbidden(
          store.gr,
          name,
          `${store.gr.group ? `${store.gr.resource}.${store.gr.group}` : store.gr.resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        );
      }
    },
  };
}

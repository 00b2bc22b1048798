// NamespaceLifecycle: no new objects in missing or terminating namespaces; the system namespaces cannot be deleted.
import { errors } from '../../machinery/errors.js';
import type { AdmissionPlugin } from './chain.js';
import { NamespaceStates } from './namespace-states.js';
import type { ResourceStore } from '../registry/store.js';

const immortal = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceLifecycle(namespaces: () => ResourceStore): AdmissionPlugin {
  const states = new NamespaceStates(namespaces);
  return {
    name: 'NamespaceLifecycle',
    // Not async: a create in a namespace the states already know is decided without a promise.
    admit({ store, operation, object, namespace }) {
      if (store.def.plural === 'namespaces' && store.def.group === '') {
        if (operation === 'DELETE' && immortal.has(object.metadata.name ?? '')) {
          throw errors.forbidden(store.gr, object.metadata.name!, `namespaces "${object.metadata.name}" is forbidden: this namespace may not be deleted`);
        }
        return;
      }
      if (!store.def.namespaced || operation !== 'CREATE') return;
      const check = (terminating: boolean | undefined): void => {
        if (terminating === undefined) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
        if (terminating) {
          const name = object.metadata.name ?? object.metadata.generateName ?? '';
          throw errors.forbidden(
            store.gr,
            name,
            `${store.gr.group ? `${store.gr.resource}.${store.gr.group}` : store.gr.resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
          );
        }
      };
      const known = states.known(namespace);
      if (known !== undefined) return check(known);
      return states.terminating(namespace).then(check);
    },
  };
}

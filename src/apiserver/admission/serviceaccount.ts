// ServiceAccount admission (plugin/pkg/admission/serviceaccount) for pod CREATE: the pod names a ServiceAccount
// (default "default") that must exist, and unless automount is off for the pod or the account, gets the projected
// kube-api-access-xxxxx token volume mounted in every container. Mirror pods are left alone but may not name one.
import type { Pod } from '../../api/core/pod/types.js';
import { MIRROR_POD_ANNOTATION } from '../../api/core/pod/admission.js';
import { injectServiceAccountVolume, shouldAutomountToken } from '../../api/core/pod/resource.js';
import { syncServiceAccountAlias } from '../../api/core/pod/defaults.js';
import type { KObject } from '../../api/types.js';
import { errors, StatusError } from '../../machinery/errors.js';
import { randomSuffix } from '../../machinery/object.js';
import type { AdmissionPlugin } from './chain.js';
import { AdmissionCache } from './cache.js';
import type { ResourceStore } from '../registry/store.js';

export interface ServiceAccountAdmissionOptions {
  /** the n-character random suffix of the volume name (tests may fix it) */
  rand?: (n: number) => string;
}

export function serviceAccountAdmission(serviceAccounts: () => ResourceStore, opts: ServiceAccountAdmissionOptions = {}): AdmissionPlugin {
  const cache = new AdmissionCache(serviceAccounts);
  return {
    name: 'ServiceAccount',
    admit({ store, operation, object, namespace }) {
      if (operation !== 'CREATE' || store.def.group !== '' || store.def.plural !== 'pods' || object.kind !== 'Pod') return;
      const pod = object as Pod;
      const spec = (pod.spec ??= {});
      const forbidden = (why: string) => errors.forbidden(store.gr, pod.metadata.name ?? '', `pods "${pod.metadata.name ?? ''}" is forbidden: ${why}`);
      // the kubelet deletes a mirror pod whose spec differs from its file, so it is never changed
      if ((pod.metadata.annotations ?? {})[MIRROR_POD_ANNOTATION] !== undefined) {
        if (spec.serviceAccountName) throw forbidden('a mirror pod may not reference service accounts');
        return;
      }
      if (!spec.serviceAccountName) {
        spec.serviceAccountName = 'default';
        syncServiceAccountAlias(spec);
      }
      const saName = spec.serviceAccountName;
      // the account as the cache has it (no promise, no store read); a miss asks the store
      const cached = cache.inNamespace(namespace)?.get(saName);
      if (cached) {
        if (shouldAutomountToken(pod, cached as { automountServiceAccountToken?: boolean })) injectServiceAccountVolume(pod, opts.rand ?? randomSuffix);
        return;
      }
      return serviceAccounts()
        .get(namespace, saName)
        .then(
          (sa: KObject) => {
            if (shouldAutomountToken(pod, sa as { automountServiceAccountToken?: boolean })) injectServiceAccountVolume(pod, opts.rand ?? randomSuffix);
          },
          (e: unknown) => {
            const why = e instanceof StatusError && e.code === 404 ? `serviceaccount "${saName}" not found` : (e as Error).message;
            throw forbidden(`error looking up service account ${namespace}/${saName}: ${why}`);
          },
        );
    },
  };
}

// Storage admission plugins (plugin/pkg/admission/storage): DefaultStorageClass gives a new claim without
// storageClassName the default class (the newest when several are marked default); StorageObjectInUseProtection puts
// the pvc-/pv-protection finalizers on new claims and volumes; PersistentVolumeClaimResize lets a claim grow only
// when it is bound and its class allows expansion.
import type { KObject } from '../../api/types.js';
import { errors } from '../../machinery/errors.js';
import { quantityOf } from '../../api/core/persistentvolume/util.js';
import {
  PVC_PROTECTION_FINALIZER, PV_PROTECTION_FINALIZER, claimClassName, claimHasNoClass, defaultClassOf, type Claim, type Class,
} from '../../api/core/persistentvolume/claims.js';
import type { AdmissionPlugin } from './chain.js';
import { listObjects } from '../registry/list.js';
import type { ResourceStore } from '../registry/store.js';

const isCore = (store: ResourceStore, plural: string) => store.def.group === '' && store.def.plural === plural;

export function defaultStorageClassAdmission(classes: () => ResourceStore): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    admit({ store, operation, object }) {
      if (operation !== 'CREATE' || !isCore(store, 'persistentvolumeclaims')) return;
      const claim = object as Claim;
      if (!claimHasNoClass(claim)) return;
      return listObjects(classes(), '', {}).then((list) => {
        const def = defaultClassOf(list.items as Class[]);
        if (def) (claim.spec ??= {}).storageClassName = def.metadata.name;
      });
    },
  };
}

export function storageObjectInUseProtectionAdmission(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    admit({ store, operation, object }) {
      if (operation !== 'CREATE') return;
      const finalizer = isCore(store, 'persistentvolumeclaims') ? PVC_PROTECTION_FINALIZER : isCore(store, 'persistentvolumes') ? PV_PROTECTION_FINALIZER : '';
      if (!finalizer) return;
      const list = (object.metadata.finalizers ??= []);
      if (!list.includes(finalizer)) list.push(finalizer);
    },
  };
}

export function persistentVolumeClaimResizeAdmission(classes: () => ResourceStore): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    admit({ store, operation, object, old }) {
      if (operation !== 'UPDATE' || !old || !isCore(store, 'persistentvolumeclaims')) return;
      const claim = object as Claim;
      const prev = old as Claim;
      const grown = quantityOf(claim.spec?.resources?.requests?.storage).cmp(quantityOf(prev.spec?.resources?.requests?.storage)) > 0;
      if (!grown) return;
      const name = claim.metadata.name ?? '';
      const forbid = (why: string) => errors.forbidden(store.gr, name, `persistentvolumeclaims "${name}" is forbidden: ${why}`);
      if (prev.status?.phase !== 'Bound') throw forbid('Only bound persistent volume claims can be expanded');
      const refuse = forbid('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      const cls = claimClassName(claim);
      if (!cls || cls !== claimClassName(prev)) throw refuse;
      return classes()
        .get('', cls)
        .then(
          (sc: KObject) => {
            if ((sc as Class).allowVolumeExpansion !== true) throw refuse;
          },
          () => {
            throw refuse;
          },
        );
    },
  };
}

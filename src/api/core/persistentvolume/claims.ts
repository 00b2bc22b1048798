// What the PV controller, the protection controllers, the local-path provisioner and storage admission share:
// annotation names, the claim/volume shapes they read, the default StorageClass (kube 1.26+: the newest of several
// defaults) and checkVolumeSatisfyClaim's reasons a pre-bound volume cannot take a claim.
import type { KObject } from '../../types.js';
import { storageClassOf } from './util.js';
import { quantityOf } from './util.js';
import { accessModesSatisfied } from './matching.js';
import type { ObjectRef, PersistentVolume, PersistentVolumeClaim, StorageClass } from './types.js';

export type Claim = PersistentVolumeClaim;
export type Volume = PersistentVolume;
export type Class = StorageClass;

export {
  ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, NOT_SUPPORTED_PROVISIONER,
} from './matching.js';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_MIGRATED_TO = 'pv.kubernetes.io/migrated-to';
export const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** the component name kube-controller-manager's PV controller records events as */
export const PV_CONTROLLER_COMPONENT = 'persistentvolume-controller';




export const claimClassName = (c: Claim): string => storageClassOf(c, c.spec?.storageClassName);
export const volumeClassName = (v: Volume): string => storageClassOf(v, v.spec?.storageClassName);
export const claimKeyOf = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;
export const hasAnn = (o: KObject, k: string): boolean => !!o.metadata.annotations && Object.prototype.hasOwnProperty.call(o.metadata.annotations, k);

/** IsDefaultAnnotation: the GA or the beta annotation set to "true". */
export function isDefaultClass(sc: Class): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[ANN_DEFAULT_CLASS] === 'true' || a[ANN_BETA_DEFAULT_CLASS] === 'true';
}

/** GetDefaultClass: the newest default class (by creationTimestamp, then name), as kube does since 1.26. */
export function defaultClassOf(classes: Class[]): Class | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort((a, b) => {
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    if (ta !== tb) return ta > tb ? -1 : 1;
    return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
  });
  return defaults[0];
}

/** A claim with no class at all (field unset, no beta annotation): the one retroactive defaulting may fill in. */
export function claimHasNoClass(c: Claim): boolean {
  return (c.spec?.storageClassName === undefined || c.spec?.storageClassName === null) && !hasAnn(c, 'volume.beta.kubernetes.io/storage-class');
}

const modeOf = (m: string | undefined) => m || 'Filesystem';

/** checkVolumeSatisfyClaim: why `volume` cannot take `claim` (undefined when it can). */
export function volumeUnsatisfiedReason(volume: Volume, claim: Claim): string | undefined {
  const requested = quantityOf(claim.spec?.resources?.requests?.storage);
  const size = quantityOf(volume.spec?.capacity?.storage);
  if (size.cmp(requested) < 0) return 'requested PV is too small';
  if (volumeClassName(volume) !== claimClassName(claim)) return 'storageClassName does not match';
  if (modeOf(volume.spec?.volumeMode) !== modeOf(claim.spec?.volumeMode)) return 'incompatible volumeMode';
  if (!accessModesSatisfied(claim as never, volume as never)) return 'incompatible accessMode';
  return undefined;
}

/** A reference to `claim` as a PV's claimRef holds it. */
export function claimRefTo(claim: Claim): ObjectRef {
  return {
    kind: 'PersistentVolumeClaim',
    namespace: claim.metadata.namespace,
    name: claim.metadata.name,
    uid: claim.metadata.uid,
    apiVersion: 'v1',
    resourceVersion: claim.metadata.resourceVersion,
  };
}

/** The node a local PV is pinned to: the single value of its required kubernetes.io/hostname term. */
export function pinnedNode(volume: Volume): string | undefined {
  for (const t of volume.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const e of t.matchExpressions ?? []) {
      if (e.key === 'kubernetes.io/hostname' && e.operator === 'In' && e.values?.length === 1) return e.values[0];
    }
  }
  return undefined;
}

/** The pods of a namespace that use `claimName` (directly, or as the generic ephemeral volume <pod>-<volume>). */
export function podUsesClaim(pod: KObject, claimName: string): boolean {
  const vols = ((pod as { spec?: { volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown }[] } }).spec?.volumes ?? []);
  return vols.some((v) => v.persistentVolumeClaim?.claimName === claimName || (v.ephemeral && `${pod.metadata.name}-${v.name}` === claimName));
}

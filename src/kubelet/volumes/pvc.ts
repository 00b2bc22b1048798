// PVC-backed pod volumes, as the kubelet's volume manager resolves them: a persistentVolumeClaim (or generic
// ephemeral) volume is followed claim → bound PV (desired_state_of_world_populator's createVolumeSpec, with its error
// texts), then the PV's hostPath or local source is set up like the in-tree plugins do: hostPath with its type check
// and no ownership management, local with fsGroup ownership unless read-only. Nothing is mounted into the pod
// directory, so tearing a pod down never touches the data.
import { promises as fs } from 'node:fs';
import type { Client } from '../../client/types.js';
import type { Pod, Volume } from '../../api/core/pod/types.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../api/core/persistentvolume/types.js';
import { StatusError } from '../../machinery/errors.js';

export type ClaimLike = PersistentVolumeClaim;
export type PersistentVolumeLike = PersistentVolume;

/** Reads claims and volumes; undefined when they do not exist. Errors other than NotFound are thrown. */
export interface ClaimSource {
  getClaim(namespace: string, name: string): Promise<ClaimLike | undefined>;
  getVolume(name: string): Promise<PersistentVolumeLike | undefined>;
}

export function clientClaimSource(client: Client): ClaimSource {
  const get = async <T>(plural: string, ns: string, name: string): Promise<T | undefined> => {
    try {
      return (await client.resource('v1', plural).get(ns, name)) as unknown as T;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  };
  return {
    getClaim: (ns, name) => get<ClaimLike>('persistentvolumeclaims', ns, name),
    getVolume: (name) => get<PersistentVolumeLike>('persistentvolumes', '', name),
  };
}

/** ephemeral.VolumeClaimName: the claim of a generic ephemeral volume is named <pod>-<volume>. */
export function ephemeralClaimName(pod: Pod, v: Volume): string {
  return `${pod.metadata?.name ?? ''}-${v.name ?? ''}`;
}

/** The claim a volume refers to, or undefined for volumes of other types. */
export function claimOf(pod: Pod, v: Volume): { claimName: string; readOnly: boolean; ephemeral: boolean } | undefined {
  const src = v.persistentVolumeClaim as { claimName?: string; readOnly?: boolean } | undefined;
  if (src && typeof src === 'object') return { claimName: src.claimName ?? '', readOnly: src.readOnly === true, ephemeral: false };
  if (v.ephemeral && typeof v.ephemeral === 'object') return { claimName: ephemeralClaimName(pod, v), readOnly: false, ephemeral: true };
  return undefined;
}

/** What a bound claim resolves to: the PV and the directory to hand to the container runtime. */
export interface ResolvedClaim {
  pvName: string;
  kind: 'hostPath' | 'local';
  path: string;
  hostPathType: string;
  readOnly: boolean;
}

/**
 * A volume the populator could not process: the pod waits and the kubelet reports it in its FailedMount event
 * ("Unable to attach or mount volumes: …"). `block` marks a claim of volumeMode Block used as a filesystem.
 */
export interface ClaimProcessError {
  processError: string;
  block?: boolean;
}

/** createVolumeSpec for a PVC-backed volume: claim checks, then the PV and its volumeMode. */
export async function resolveClaim(src: ClaimSource, pod: Pod, v: Volume): Promise<ResolvedClaim | ClaimProcessError> {
  const ref = claimOf(pod, v);
  if (!ref) throw new Error(`volume ${v.name} is not backed by a claim`);
  const ns = pod.metadata?.namespace ?? 'default';
  const wrap = (msg: string, extra: Partial<ClaimProcessError> = {}): ClaimProcessError => ({
    processError: `error processing PVC ${ns}/${ref.claimName}: ${msg}`,
    ...extra,
  });
  const pvc = await src.getClaim(ns, ref.claimName);
  if (!pvc) return wrap(`failed to fetch PVC from API server: persistentvolumeclaims "${ref.claimName}" not found`);
  // a pod whose claim is being deleted must not start (StorageObjectInUseProtection)
  if (pvc.metadata.deletionTimestamp) return wrap('PVC is being deleted');
  if (pvc.status?.phase !== 'Bound') return wrap('PVC is not bound');
  const pvName = pvc.spec?.volumeName ?? '';
  if (!pvName) return wrap('PVC has empty pvc.Spec.VolumeName');
  if (ref.ephemeral && !pvc.metadata.ownerReferences?.some((o) => o.controller && o.uid === pod.metadata?.uid)) {
    return wrap(`PVC ${ns}/${ref.claimName} was not created for pod ${ns}/${pod.metadata?.name} (pod is not owner)`);
  }
  const pv = await src.getVolume(pvName);
  if (!pv) return wrap(`failed to fetch PV ${pvName} from API server: persistentvolumes "${pvName}" not found`);
  if (!pv.spec?.claimRef) return wrap(`found PV object ${pvName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`);
  if (pv.spec.claimRef.uid !== pvc.metadata.uid) {
    return wrap(`found PV object ${pvName} but its pv.Spec.ClaimRef.UID ${pv.spec.claimRef.uid ?? ''} does not point to claim.UID ${pvc.metadata.uid ?? ''}`);
  }
  const mode = pv.spec.volumeMode ?? pvc.spec?.volumeMode ?? 'Filesystem';
  if (mode !== 'Filesystem') {
    // k1s runs no block devices: volumeDevices are not supported, and a block PV cannot be a volumeMount
    return wrap(`volume ${v.name} has volumeMode ${mode}, but is specified in volumeMounts`, { block: true });
  }
  if (pv.spec.hostPath) {
    return { pvName, kind: 'hostPath', path: pv.spec.hostPath.path ?? '', hostPathType: pv.spec.hostPath.type ?? '', readOnly: ref.readOnly };
  }
  if (pv.spec.local) return { pvName, kind: 'local', path: pv.spec.local.path ?? '', hostPathType: '', readOnly: ref.readOnly };
  const type = Object.keys(pv.spec).find((k) => !NON_SOURCE_FIELDS.has(k)) ?? 'unknown';
  return { processError: `persistent volume ${pvName} of type ${type} is not supported by this kubelet` };
}

const NON_SOURCE_FIELDS = new Set([
  'accessModes', 'capacity', 'claimRef', 'persistentVolumeReclaimPolicy', 'storageClassName', 'mountOptions',
  'volumeMode', 'nodeAffinity', 'volumeAttributesClassName',
]);

/** The local plugin's check that the path exists before mounting (NewMounter). */
export async function checkLocalPath(p: string): Promise<string | undefined> {
  const st = await fs.stat(p).catch(() => undefined);
  return st ? undefined : `path "${p}" does not exist`;
}

/**
 * SetVolumeOwnership's fsGroupChangePolicy OnRootMismatch: skip the walk when the volume root already has the group,
 * the setgid bit and group read/write/exec permissions.
 */
export async function ownershipMatches(dir: string, fsGroup: number, readOnly: boolean): Promise<boolean> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st) return false;
  const want = (readOnly ? 0o550 : 0o770) & 0o070;
  return st.gid === fsGroup && (st.mode & 0o2000) !== 0 && (st.mode & want) === want;
}

/**
 * kubelet's FailedMount text when volumes could not be processed (WaitForAttachAndMount's error, wrapped). Only
 * attachable plugins are ever "unattached": hostPath and local volumes never are.
 */
export function unableToMountMessage(failed: string[], unmounted: string[], errors: string[]): string {
  const list = (xs: string[]) => `[${[...new Set(xs)].sort().join(' ')}]`;
  return `Unable to attach or mount volumes: unmounted volumes=${list(unmounted)}, unattached volumes=[], failed to process volumes=${list(failed)}: ${errors.join('; ')}`;
}

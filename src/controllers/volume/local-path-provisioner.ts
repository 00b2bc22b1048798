// The built-in dynamic provisioner, k3s's local-path provisioner as k1s runs it: for a claim of a class whose
// provisioner is rancher.io/local-path (the name k3s uses, so manifests and charts written for k3s work unchanged),
// once the scheduler has picked a node (volume.kubernetes.io/selected-node) it creates a hostPath PV
// <storageRoot>/<pv>_<ns>_<claim> pinned to that node, pre-bound to the claim. A Released PV with reclaim policy
// Delete is deleted once the node's LocalPathDirs (src/kubelet/volumes/local-path-dirs.ts) has removed its directory; nodes
// without one (simulated nodes) have no directory to remove, so their PVs are deleted at once.
import type { Informer } from '../../client/informer.js';
import type { KObject } from '../../api/types.js';
import { StatusError } from '../../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, claimClassName, claimKeyOf, claimRefTo,
  pinnedNode, type Claim, type Class, type Volume,
} from '../../api/core/persistentvolume/claims.js';

export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
/** set on a Node by its LocalPathDirs: the directory local-path PVs of that node live under */
export const ANN_NODE_STORAGE_ROOT = 'local-path.k1s.dev/storage-root';
/** set on a PV by the node once its directory is gone (the provisioner may then delete the PV) */
export const ANN_DIRECTORY_REMOVED = 'local-path.k1s.dev/directory-removed';
export const DEFAULT_STORAGE_ROOT = '/var/lib/k1s/storage';

export interface LocalPathProvisionerOptions {
  /** where volumes go on nodes that do not announce their own root (default /var/lib/k1s/storage) */
  storageRoot?: string;
  /** the provisioner name to serve (default rancher.io/local-path) */
  provisioner?: string;
  /** hostPath (k3s's default) or local PVs */
  volumeType?: 'hostPath' | 'local';
}

/** The directory of a provisioned volume: <root>/<pv>_<namespace>_<claim>. */
export function localPathDir(root: string, pvName: string, claim: { namespace?: string; name?: string }): string {
  return `${root.replace(/\/+$/, '')}/${pvName}_${claim.namespace ?? ''}_${claim.name ?? ''}`;
}

/** Where a local-path PV keeps its data. */
export function volumePath(pv: Volume): string | undefined {
  return pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
}

export class LocalPathProvisioner extends Reconciler {
  readonly name = 'local-path-provisioner';
  private claims!: Informer;
  private volumes!: Informer;
  private classes!: Informer;
  private nodes!: Informer;
  private readonly recorder: EventRecorder;
  private readonly provisioner: string;

  constructor(ctx: ControllerContext, private readonly opts: LocalPathProvisionerOptions = {}) {
    super(ctx, { workers: 2, maxDelayMs: 30_000 });
    this.provisioner = opts.provisioner ?? LOCAL_PATH_PROVISIONER;
    this.recorder = ctx.recorder(`${this.provisioner}_k1s`);
  }

  setup(): void {
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    this.volumes = this.informer('v1', 'persistentvolumes');
    this.classes = this.informer('storage.k8s.io/v1', 'storageclasses');
    this.nodes = this.informer('v1', 'nodes');
    const claim = (c: KObject) => this.enqueue(`claim:${claimKeyOf(c.metadata.namespace, c.metadata.name)}`);
    this.claims.addHandler({ add: claim, update: (_, c) => claim(c) });
    const volume = (v: KObject) => this.enqueue(`volume:${v.metadata.name}`);
    this.volumes.addHandler({ add: volume, update: (_, v) => volume(v) });
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith('claim:')) {
      const c = this.claims.getByKey(key.slice(6)) as Claim | undefined;
      if (c) await this.maybeProvision(c);
      return;
    }
    const v = this.volumes.get('', key.slice(7)) as Volume | undefined;
    if (v) await this.maybeDelete(v);
  }

  private ours(claim: Claim): Class | undefined {
    const cls = this.classes.get('', claimClassName(claim)) as Class | undefined;
    if (cls?.provisioner !== this.provisioner) return undefined;
    const ann = claim.metadata.annotations ?? {};
    // the PV controller hands the claim over by naming the provisioner on it
    if (ann[ANN_STORAGE_PROVISIONER] !== this.provisioner && ann[ANN_BETA_STORAGE_PROVISIONER] !== this.provisioner) return undefined;
    return cls;
  }

  private async maybeProvision(claim: Claim): Promise<void> {
    if (claim.spec?.volumeName || claim.metadata.deletionTimestamp || claim.status?.phase !== 'Pending') return;
    const cls = this.ours(claim);
    if (!cls) return;
    const node = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    const ref = `${claim.metadata.namespace}/${claim.metadata.name}`;
    const failed = (why: string) => this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata.name}": ${why}`);
    if (!node) {
      // Immediate binding: there is no node to put the directory on
      if (cls.volumeBindingMode !== 'WaitForFirstConsumer') failed('configuration error, no node was specified');
      return;
    }
    const pvName = `pvc-${claim.metadata.uid}`;
    if (this.volumes.get('', pvName)) return;
    if (claim.spec?.volumeMode === 'Block') return failed('local-path does not support block volume mode');
    const bad = (claim.spec?.accessModes ?? []).find((m) => m !== 'ReadWriteOnce' && m !== 'ReadWriteOncePod');
    if (bad) return failed('NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes');
    const request = claim.spec?.resources?.requests?.storage;
    if (!request) return failed('claim.Spec.Resources.Requests[storage] is missing');
    this.recorder.event(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${ref}"`);
    const nodeObj = this.nodes.get('', node);
    const root = nodeObj?.metadata.annotations?.[ANN_NODE_STORAGE_ROOT] ?? this.opts.storageRoot ?? DEFAULT_STORAGE_ROOT;
    const path = localPathDir(root, pvName, claim.metadata);
    const source = this.opts.volumeType === 'local' ? { local: { path } } : { hostPath: { path, type: 'DirectoryOrCreate' } };
    const pv: Volume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pvName, annotations: { [ANN_PROVISIONED_BY]: this.provisioner, 'local.path.provisioner/selected-node': node } },
      spec: {
        capacity: { storage: request },
        accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
        storageClassName: cls.metadata.name,
        volumeMode: 'Filesystem',
        claimRef: claimRefTo(claim),
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
        ...(cls.mountOptions?.length ? { mountOptions: cls.mountOptions } : {}),
        ...source,
      },
    };
    try {
      await this.ctx.client.resource('v1', 'persistentvolumes').create('', pv);
    } catch (e) {
      if (e instanceof StatusError && e.code === 409) return;
      failed((e as Error).message);
      throw e;
    }
    this.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`);
  }

  private async maybeDelete(pv: Volume): Promise<void> {
    if (pv.metadata.annotations?.[ANN_PROVISIONED_BY] !== this.provisioner) return;
    if (pv.status?.phase !== 'Released' || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete' || pv.metadata.deletionTimestamp) return;
    const node = pinnedNode(pv);
    const nodeObj = node ? this.nodes.get('', node) : undefined;
    // a node that manages directories removes it first (it updates the PV, which brings us back here)
    if (nodeObj?.metadata.annotations?.[ANN_NODE_STORAGE_ROOT] && pv.metadata.annotations?.[ANN_DIRECTORY_REMOVED] !== 'true') return;
    try {
      await this.ctx.client.resource('v1', 'persistentvolumes').delete('', pv.metadata.name!, { preconditions: { uid: pv.metadata.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
}

export function localPathProvisioner(opts: LocalPathProvisionerOptions = {}): ControllerFactory {
  return (ctx) => new LocalPathProvisioner(ctx, opts);
}

/** The StorageClass every k1s cluster starts with (as k3s ships local-path), created only when missing. */
export function defaultLocalPathStorageClass(): KObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'local-path', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: LOCAL_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  } as KObject;
}

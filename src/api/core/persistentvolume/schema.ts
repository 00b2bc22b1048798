// OpenAPI schema of core/v1 PersistentVolume and the persistent-volume-only source types (the sources shared
// with pod volumes are defined in api/core/pod/schema-volumes.ts). Tags and list types follow k8s.io/api/core/v1
// types.go (1.33); descriptions are short summaries for `kubectl explain`.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { kindHeader, listDefinition } from '../../meta.js';

const r = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(CORE + name, description, extra);
const req = (description: string): Schema => s.str(description, { default: '' });
const strList = (description: string): Schema => s.arr(s.str(undefined, { default: '' }), { description });
const fsType = s.str('Filesystem type to mount, e.g. ext4 or xfs.');
const readOnly = s.bool('Mount read-only. Defaults to false.');
const secretRef = (what = 'Secret with the credentials.'): Schema => r('SecretReference', what);
const PV_DOC = 'https://kubernetes.io/docs/concepts/storage/persistent-volumes';

/** The PersistentVolumeSource struct is inlined into PersistentVolumeSpec in Go; only its properties exist here. */
export const persistentVolumeSourceFields: Record<string, Schema> = {
  gcePersistentDisk: r('GCEPersistentDiskVolumeSource', 'Deprecated: a GCE persistent disk (now served by the CSI driver).'),
  awsElasticBlockStore: r('AWSElasticBlockStoreVolumeSource', 'Deprecated: an AWS EBS disk (now served by the CSI driver).'),
  hostPath: r('HostPathVolumeSource', 'A directory on the host; for single-node development and testing only.'),
  glusterfs: r('GlusterfsPersistentVolumeSource', 'Deprecated: a GlusterFS volume.'),
  nfs: r('NFSVolumeSource', 'An NFS export.'),
  rbd: r('RBDPersistentVolumeSource', 'Deprecated: a Rados block device.'),
  iscsi: r('ISCSIPersistentVolumeSource', 'An iSCSI disk.'),
  cinder: r('CinderPersistentVolumeSource', 'Deprecated: an OpenStack Cinder volume.'),
  cephfs: r('CephFSPersistentVolumeSource', 'Deprecated: a CephFS mount.'),
  fc: r('FCVolumeSource', 'A Fibre Channel disk.'),
  flocker: r('FlockerVolumeSource', 'Deprecated: a Flocker dataset.'),
  flexVolume: r('FlexPersistentVolumeSource', 'Deprecated: a volume served by a FlexVolume driver.'),
  azureFile: r('AzureFilePersistentVolumeSource', 'Deprecated: an Azure File share.'),
  vsphereVolume: r('VsphereVirtualDiskVolumeSource', 'Deprecated: a vSphere disk.'),
  quobyte: r('QuobyteVolumeSource', 'Deprecated: a Quobyte mount.'),
  azureDisk: r('AzureDiskVolumeSource', 'Deprecated: an Azure data disk.'),
  photonPersistentDisk: r('PhotonPersistentDiskVolumeSource', 'Deprecated: a PhotonController disk.'),
  portworxVolume: r('PortworxVolumeSource', 'Deprecated: a Portworx volume.'),
  scaleIO: r('ScaleIOPersistentVolumeSource', 'Deprecated: a ScaleIO volume.'),
  local: r('LocalVolumeSource', 'A disk, partition or directory local to one node; needs nodeAffinity.'),
  storageos: r('StorageOSPersistentVolumeSource', 'Deprecated: a StorageOS volume.'),
  csi: r('CSIPersistentVolumeSource', 'A volume served by an external CSI driver.'),
};

export const pvDefinitions: Definitions = {
  [`${CORE}PersistentVolume`]: s.obj(
    {
      ...kindHeader(),
      spec: r('PersistentVolumeSpec', `Characteristics of the volume, set by an administrator or a provisioner. More info: ${PV_DOC}#persistent-volumes`, { default: {} }),
      status: r('PersistentVolumeStatus', `Current state of the volume (Pending, Available, Bound, Released, Failed). Read-only. More info: ${PV_DOC}#persistent-volumes`, {
        default: {},
      }),
    },
    { description: `PersistentVolume is a piece of storage in the cluster that claims can bind to, like a node is a compute resource. More info: ${PV_DOC}` },
  ),
  [`${CORE}PersistentVolumeSpec`]: s.obj(
    {
      capacity: s.map(s.quantity(), `Resources of the volume; only "storage" is allowed. More info: ${PV_DOC}#capacity`),
      ...persistentVolumeSourceFields,
      accessModes: s.arr(s.enumOf(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']), {
        description: `Ways the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod. More info: ${PV_DOC}#access-modes`,
      }),
      claimRef: r('ObjectReference', `The claim bound to this volume, half of the two-way binding (the claim's volumeName is authoritative). More info: ${PV_DOC}#binding`, {
        mapType: 'granular',
      }),
      persistentVolumeReclaimPolicy: s.enumOf(
        ['Delete', 'Recycle', 'Retain'],
        `What happens when the claim is released: Retain (default for manual volumes), Delete (default for provisioned ones) or Recycle (deprecated). More info: ${PV_DOC}#reclaiming`,
      ),
      storageClassName: s.str('StorageClass the volume belongs to; empty for none. Claims asking for the class bind to it.'),
      mountOptions: strList(`Mount options, not validated: a wrong one makes the mount fail. More info: ${PV_DOC}/#mount-options`),
      volumeMode: s.enumOf(['Block', 'Filesystem'], 'Filesystem (default: a formatted filesystem) or Block (a raw block device).'),
      nodeAffinity: r('VolumeNodeAffinity', 'Nodes the volume can be reached from; pods using it are scheduled there.'),
      volumeAttributesClassName: s.str('VolumeAttributesClass of the volume (beta; needs the VolumeAttributesClass feature gate).'),
    },
    { description: 'PersistentVolumeSpec is the specification of a persistent volume.' },
  ),
  [`${CORE}PersistentVolumeStatus`]: s.obj(
    {
      phase: s.enumOf(['Available', 'Bound', 'Failed', 'Pending', 'Released'], `Lifecycle phase: Pending, Available, Bound, Released or Failed. More info: ${PV_DOC}#phase`),
      message: s.str('Human-readable reason for the volume being in this state.'),
      reason: s.str('CamelCase reason for a failure, for machines and the CLI.'),
      lastPhaseTransitionTime: s.time('When the volume last changed phase.'),
    },
    { description: 'PersistentVolumeStatus is the current status of a persistent volume.' },
  ),
  [`${CORE}VolumeNodeAffinity`]: s.obj(
    { required: r('NodeSelector', 'Nodes the volume can be accessed from.') },
    { description: 'Constraints on the nodes a volume can be accessed from.' },
  ),
  [`${CORE}SecretReference`]: s.obj(
    { name: s.str('Name of the Secret.'), namespace: s.str('Namespace of the Secret.') },
    { mapType: 'atomic', description: 'A reference to a Secret in any namespace.' },
  ),
  [`${CORE}LocalVolumeSource`]: s.obj(
    {
      path: req('Full path of the volume on the node: a directory or a block device.'),
      fsType: s.str('Filesystem of a block device; chosen automatically when empty. Ignored for directories.'),
    },
    { required: ['path'], description: 'A local disk, partition or directory of one node.' },
  ),
  [`${CORE}CSIPersistentVolumeSource`]: s.obj(
    {
      driver: req('Name of the CSI driver.'),
      volumeHandle: req('ID the driver gives the volume.'),
      readOnly: s.bool('Publish the volume read-only. Defaults to false.'),
      fsType,
      volumeAttributes: s.strMap('Driver-specific attributes of the volume.'),
      controllerPublishSecretRef: secretRef('Secret passed to the driver on ControllerPublish/Unpublish.'),
      nodeStageSecretRef: secretRef('Secret passed to the driver on NodeStage.'),
      nodePublishSecretRef: secretRef('Secret passed to the driver on NodePublish.'),
      controllerExpandSecretRef: secretRef('Secret passed to the driver on ControllerExpandVolume.'),
      nodeExpandSecretRef: secretRef('Secret passed to the driver on NodeExpandVolume.'),
    },
    { required: ['driver', 'volumeHandle'], description: 'A persistent volume served by an external CSI driver.' },
  ),
  [`${CORE}GlusterfsPersistentVolumeSource`]: s.obj(
    {
      endpoints: req('Endpoints object describing the Glusterfs cluster.'),
      path: req('Glusterfs volume path.'),
      readOnly,
      endpointsNamespace: s.str('Namespace of the endpoints; defaults to the claim namespace.'),
    },
    { required: ['endpoints', 'path'], description: 'Deprecated: a GlusterFS volume.' },
  ),
  [`${CORE}RBDPersistentVolumeSource`]: s.obj(
    {
      monitors: strList('Ceph monitors.'),
      image: req('Rados image name.'),
      fsType,
      pool: s.str('Rados pool. Defaults to rbd.'),
      user: s.str('Rados user. Defaults to admin.'),
      keyring: s.str('Path of the keyring. Defaults to /etc/ceph/keyring.'),
      secretRef: secretRef('Secret with the Rados user key.'),
      readOnly,
    },
    { required: ['monitors', 'image'], description: 'Deprecated: a Rados block device.' },
  ),
  [`${CORE}ISCSIPersistentVolumeSource`]: s.obj(
    {
      targetPortal: req('Target portal, IP or ip:port.'),
      iqn: req('iSCSI qualified name of the target.'),
      lun: s.int32('Target LUN number.', { default: 0 }),
      iscsiInterface: s.str("iSCSI interface. Defaults to 'default'."),
      fsType,
      readOnly,
      portals: strList('Extra target portals.'),
      chapAuthDiscovery: s.bool('Use CHAP authentication for discovery.'),
      chapAuthSession: s.bool('Use CHAP authentication for the session.'),
      secretRef: secretRef('Secret with the CHAP credentials.'),
      initiatorName: s.str('Custom initiator name; replaces <target portal>:<volume name> as the interface.'),
    },
    { required: ['targetPortal', 'iqn', 'lun'], description: 'An iSCSI disk.' },
  ),
  [`${CORE}CinderPersistentVolumeSource`]: s.obj(
    { volumeID: req('Cinder volume ID.'), fsType, readOnly, secretRef: secretRef('Secret with the OpenStack credentials.') },
    { required: ['volumeID'], description: 'Deprecated: an OpenStack Cinder volume.' },
  ),
  [`${CORE}CephFSPersistentVolumeSource`]: s.obj(
    {
      monitors: strList('Ceph monitors.'),
      path: s.str('Path within the file system to mount. Defaults to /.'),
      user: s.str('Rados user. Defaults to admin.'),
      secretFile: s.str('Path of the keyring. Defaults to /etc/ceph/user.secret.'),
      secretRef: secretRef('Secret with the user key.'),
      readOnly,
    },
    { required: ['monitors'], description: 'Deprecated: a CephFS mount.' },
  ),
  [`${CORE}FlexPersistentVolumeSource`]: s.obj(
    {
      driver: req('Name of the driver.'),
      fsType,
      secretRef: secretRef('Secret passed to the driver scripts.'),
      readOnly,
      options: s.strMap('Extra options for the driver.'),
    },
    { required: ['driver'], description: 'Deprecated: a volume served by a FlexVolume driver.' },
  ),
  [`${CORE}AzureFilePersistentVolumeSource`]: s.obj(
    {
      secretName: req('Secret with the storage account name and key.'),
      shareName: req('Share name.'),
      readOnly,
      secretNamespace: s.str('Namespace of the secret; defaults to the pod namespace.'),
    },
    { required: ['secretName', 'shareName'], description: 'Deprecated: an Azure File share.' },
  ),
  [`${CORE}ScaleIOPersistentVolumeSource`]: s.obj(
    {
      gateway: req('Address of the ScaleIO API gateway.'),
      system: req('Name of the storage system.'),
      secretRef: secretRef('Secret with the ScaleIO user credentials.'),
      sslEnabled: s.bool('Use SSL to talk to the gateway.'),
      protectionDomain: s.str('Protection domain of the storage.'),
      storagePool: s.str('Storage pool of the protection domain.'),
      storageMode: s.str('ThickProvisioned or ThinProvisioned (default).'),
      volumeName: s.str('Name of an existing volume.'),
      fsType: s.str('Filesystem type. Defaults to xfs.'),
      readOnly,
    },
    { required: ['gateway', 'system', 'secretRef'], description: 'Deprecated: a ScaleIO volume.' },
  ),
  [`${CORE}StorageOSPersistentVolumeSource`]: s.obj(
    {
      volumeName: s.str('Name of the StorageOS volume, unique within its namespace.'),
      volumeNamespace: s.str('StorageOS namespace of the volume.'),
      fsType,
      readOnly,
      secretRef: r('ObjectReference', 'Secret with the StorageOS API credentials.'),
    },
    { description: 'Deprecated: a StorageOS volume.' },
  ),
  [`${CORE}PersistentVolumeList`]: listDefinition(
    `${CORE}PersistentVolume`,
    'PersistentVolumeList is a list of PersistentVolume items.',
    `Items is a list of persistent volumes. More info: ${PV_DOC}`,
  ),
};

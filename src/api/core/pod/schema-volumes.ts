// OpenAPI schema of pod volumes: Volume (with VolumeSource inlined, as in Go) and every volume source type of
// k8s.io/api/core/v1 (1.33), plus the PVC template used by generic ephemeral volumes.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';

const V1 = 'io.k8s.api.core.v1.';
const r = (name: string, description?: string): Schema => s.ref(V1 + name, description);
const strList = (description: string): Schema => s.arr(s.str(), { description });
const fsType = s.str('Filesystem type to mount, such as ext4, xfs or ntfs.');
const readOnly = s.bool('Mount read-only. Defaults to false.');
const secretRef = r('LocalObjectReference', 'Secret with the credentials.');
const defaultMode = s.int32('Permission bits for created files, 0000-0777 (JSON needs decimal). Defaults to 0644.');
const items = (what: string) =>
  s.arr(r('KeyToPath'), { description: `Keys of the ${what} to project and where; unlisted keys are left out. Default: every key as a file.` });

/** The VolumeSource struct is inlined into Volume in Go, so it only exists as a property set here. */
const volumeSource: Record<string, Schema> = {
  hostPath: r('HostPathVolumeSource', 'A file or directory of the node. For system agents; most pods should not use it.'),
  emptyDir: r('EmptyDirVolumeSource', 'A temporary directory that lives as long as the pod.'),
  gcePersistentDisk: r('GCEPersistentDiskVolumeSource', 'Deprecated: a GCE persistent disk (now served by the CSI driver).'),
  awsElasticBlockStore: r('AWSElasticBlockStoreVolumeSource', 'Deprecated: an AWS EBS disk (now served by the CSI driver).'),
  gitRepo: r('GitRepoVolumeSource', 'Deprecated: a git repository cloned into an emptyDir.'),
  secret: r('SecretVolumeSource', 'A Secret projected as files.'),
  nfs: r('NFSVolumeSource', 'An NFS export.'),
  iscsi: r('ISCSIVolumeSource', 'An iSCSI disk.'),
  glusterfs: r('GlusterfsVolumeSource', 'Deprecated: a GlusterFS volume.'),
  persistentVolumeClaim: r('PersistentVolumeClaimVolumeSource', 'A PersistentVolumeClaim in the same namespace.'),
  rbd: r('RBDVolumeSource', 'Deprecated: a Rados block device.'),
  flexVolume: r('FlexVolumeSource', 'Deprecated: a volume served by a FlexVolume driver.'),
  cinder: r('CinderVolumeSource', 'Deprecated: an OpenStack Cinder volume.'),
  cephfs: r('CephFSVolumeSource', 'Deprecated: a CephFS mount.'),
  flocker: r('FlockerVolumeSource', 'Deprecated: a Flocker dataset.'),
  downwardAPI: r('DownwardAPIVolumeSource', 'Pod information exposed as files.'),
  fc: r('FCVolumeSource', 'A Fibre Channel disk.'),
  azureFile: r('AzureFileVolumeSource', 'Deprecated: an Azure File share.'),
  configMap: r('ConfigMapVolumeSource', 'A ConfigMap projected as files.'),
  vsphereVolume: r('VsphereVirtualDiskVolumeSource', 'Deprecated: a vSphere disk.'),
  quobyte: r('QuobyteVolumeSource', 'Deprecated: a Quobyte mount.'),
  azureDisk: r('AzureDiskVolumeSource', 'Deprecated: an Azure data disk.'),
  photonPersistentDisk: r('PhotonPersistentDiskVolumeSource', 'Deprecated: a PhotonController disk.'),
  projected: r('ProjectedVolumeSource', 'Several sources (secrets, configmaps, downward API, tokens) in one directory.'),
  portworxVolume: r('PortworxVolumeSource', 'Deprecated: a Portworx volume.'),
  scaleIO: r('ScaleIOVolumeSource', 'Deprecated: a ScaleIO volume.'),
  storageos: r('StorageOSVolumeSource', 'Deprecated: a StorageOS volume.'),
  csi: r('CSIVolumeSource', 'An ephemeral volume served by a CSI driver.'),
  ephemeral: r('EphemeralVolumeSource', 'A volume provisioned from a PVC template for the lifetime of the pod.'),
  image: r('ImageVolumeSource', 'An OCI image or artifact mounted read-only (beta; needs the ImageVolume feature gate).'),
};

const downwardItems = s.arr(r('DownwardAPIVolumeFile'), { description: 'Files to create from pod fields.' });

export const podVolumeDefinitions: Definitions = {
  [V1 + 'Volume']: s.obj(
    { name: s.str('Name of the volume, a DNS label unique within the pod.'), ...volumeSource },
    { required: ['name'], description: 'A named volume the containers of a pod can mount. Exactly one source must be set.' },
  ),
  [V1 + 'KeyToPath']: s.obj(
    {
      key: s.str('The key to project.'),
      path: s.str("Relative path of the file; must not contain '..' or start with '..'."),
      mode: s.int32('Permission bits of this file, 0000-0777; defaults to the volume defaultMode.'),
    },
    { required: ['key', 'path'], description: 'Maps a key to a file path in a volume.' },
  ),
  [V1 + 'HostPathVolumeSource']: s.obj(
    {
      path: s.str('Path on the node; a symlink is followed.'),
      type: s.enumOf(
        ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'],
        'What must exist at the path. Defaults to "" (no check).',
      ),
    },
    { required: ['path'], description: 'A path on the node mounted into the pod.' },
  ),
  [V1 + 'EmptyDirVolumeSource']: s.obj(
    {
      medium: s.str('Storage medium: "" (node default) or "Memory" (tmpfs).'),
      sizeLimit: s.quantity('Maximum size of the directory.'),
    },
    { description: 'An empty directory shared by the containers of a pod.' },
  ),
  [V1 + 'SecretVolumeSource']: s.obj(
    {
      secretName: s.str('Name of the Secret in the pod namespace.'),
      items: items('Secret'),
      defaultMode,
      optional: s.bool('Whether the Secret or its keys may be missing.'),
    },
    { description: 'Projects the keys of a Secret as files.' },
  ),
  [V1 + 'ConfigMapVolumeSource']: s.obj(
    {
      name: s.str('Name of the referent.', { default: '' }),
      items: items('ConfigMap'),
      defaultMode,
      optional: s.bool('Whether the ConfigMap or its keys may be missing.'),
    },
    { description: 'Projects the keys of a ConfigMap as files.' },
  ),
  [V1 + 'ProjectedVolumeSource']: s.obj(
    {
      sources: s.arr(r('VolumeProjection'), { description: 'The sources to project.' }),
      defaultMode,
    },
    { description: 'Several volume sources projected into one directory.' },
  ),
  [V1 + 'VolumeProjection']: s.obj(
    {
      secret: r('SecretProjection', 'A Secret to project.'),
      downwardAPI: r('DownwardAPIProjection', 'Downward API information to project.'),
      configMap: r('ConfigMapProjection', 'A ConfigMap to project.'),
      serviceAccountToken: r('ServiceAccountTokenProjection', 'A service account token to project.'),
      clusterTrustBundle: r('ClusterTrustBundleProjection', 'ClusterTrustBundle certificates to project (beta; feature gated).'),
    },
    { description: 'One source of a projected volume; exactly one field must be set.' },
  ),
  [V1 + 'SecretProjection']: s.obj(
    { name: s.str('Name of the referent.', { default: '' }), items: items('Secret'), optional: s.bool('Whether the Secret or its keys may be missing.') },
    { description: 'A Secret inside a projected volume.' },
  ),
  [V1 + 'ConfigMapProjection']: s.obj(
    { name: s.str('Name of the referent.', { default: '' }), items: items('ConfigMap'), optional: s.bool('Whether the ConfigMap or its keys may be missing.') },
    { description: 'A ConfigMap inside a projected volume.' },
  ),
  [V1 + 'ServiceAccountTokenProjection']: s.obj(
    {
      audience: s.str('Intended audience of the token; defaults to the API server identifier.'),
      expirationSeconds: s.int64('Requested token lifetime; at least 600 seconds. Defaults to 1 hour.'),
      path: s.str('Path of the token file, relative to the mount point.'),
    },
    { required: ['path'], description: 'A bound service account token inside a projected volume.' },
  ),
  [V1 + 'DownwardAPIProjection']: s.obj({ items: downwardItems }, { description: 'Downward API information inside a projected volume.' }),
  [V1 + 'ClusterTrustBundleProjection']: s.obj(
    {
      name: s.str('Select one ClusterTrustBundle by name; excludes signerName and labelSelector.'),
      signerName: s.str('Select all ClusterTrustBundles of this signer.'),
      labelSelector: s.ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', 'With signerName: only bundles matching this selector.'),
      optional: s.bool('Whether a missing bundle is tolerated (an empty file is written).'),
      path: s.str('Path of the file, relative to the volume root.'),
    },
    { required: ['path'], description: 'ClusterTrustBundle certificates written to a file of a projected volume.' },
  ),
  [V1 + 'DownwardAPIVolumeSource']: s.obj({ items: downwardItems, defaultMode }, { description: 'Pod information exposed as files.' }),
  [V1 + 'DownwardAPIVolumeFile']: s.obj(
    {
      path: s.str("Relative path of the file; must not contain '..'."),
      fieldRef: r('ObjectFieldSelector', 'A pod field: metadata name, namespace, labels, annotations or uid.'),
      resourceFieldRef: r('ResourceFieldSelector', 'A container resource limit or request.'),
      mode: s.int32('Permission bits of this file, 0000-0777.'),
    },
    { required: ['path'], description: 'One file of a downward API volume.' },
  ),
  [V1 + 'PersistentVolumeClaimVolumeSource']: s.obj(
    { claimName: s.str('Name of the PersistentVolumeClaim in the pod namespace.'), readOnly: s.bool('Force the mount read-only. Defaults to false.') },
    { required: ['claimName'], description: 'Refers to a PersistentVolumeClaim in the same namespace.' },
  ),
  [V1 + 'NFSVolumeSource']: s.obj(
    { server: s.str('Hostname or IP of the NFS server.'), path: s.str('Path exported by the server.'), readOnly },
    { required: ['server', 'path'], description: 'An NFS mount.' },
  ),
  [V1 + 'CSIVolumeSource']: s.obj(
    {
      driver: s.str('Name of the CSI driver.'),
      readOnly: s.bool('Mount read-only. Defaults to false.'),
      fsType: s.str('Filesystem type, such as ext4; passed to the driver.'),
      volumeAttributes: s.strMap('Driver-specific properties.'),
      nodePublishSecretRef: r('LocalObjectReference', 'Secret passed to the driver on publish.'),
    },
    { required: ['driver'], description: 'An ephemeral volume provided by a CSI driver.' },
  ),
  [V1 + 'EphemeralVolumeSource']: s.obj(
    { volumeClaimTemplate: r('PersistentVolumeClaimTemplate', 'Template of the PVC created for the pod (named <pod>-<volume>).') },
    { description: 'A volume backed by a PVC that is created and deleted with the pod.' },
  ),
  [V1 + 'PersistentVolumeClaimTemplate']: s.obj(
    {
      metadata: s.ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'Labels and annotations copied to the PVC.'),
      spec: r('PersistentVolumeClaimSpec', 'Spec copied unchanged to the PVC.'),
    },
    { required: ['spec'], description: 'Template of a PersistentVolumeClaim created for an ephemeral volume.' },
  ),
  [V1 + 'PersistentVolumeClaimSpec']: s.obj(
    {
      accessModes: strList('Access modes the volume should have.'),
      selector: s.ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', 'Label query over volumes to bind to.'),
      resources: r('VolumeResourceRequirements', 'Minimum resources the volume should have.'),
      volumeName: s.str('Name of the PersistentVolume to bind to.'),
      storageClassName: s.str('Name of the StorageClass.'),
      volumeMode: s.enumOf(['Block', 'Filesystem'], 'Filesystem (default) or Block.'),
      dataSource: r('TypedLocalObjectReference', 'Existing snapshot or PVC to populate the volume from.'),
      dataSourceRef: r('TypedObjectReference', 'Any object to populate the volume from.'),
      volumeAttributesClassName: s.str('VolumeAttributesClass used by the claim.'),
    },
    { description: 'Desired characteristics of a volume.' },
  ),
  [V1 + 'VolumeResourceRequirements']: s.obj(
    {
      limits: s.map(s.quantity(), 'Maximum amount of resources allowed.'),
      requests: s.map(s.quantity(), 'Minimum amount of resources required.'),
    },
    { description: 'Storage resource requirements of a volume.' },
  ),
  [V1 + 'TypedLocalObjectReference']: s.obj(
    { apiGroup: s.str('API group of the referent; empty for the core group.'), kind: s.str('Kind of the referent.'), name: s.str('Name of the referent.') },
    { required: ['kind', 'name'], mapType: 'atomic', description: 'A typed reference to an object in the same namespace.' },
  ),
  [V1 + 'TypedObjectReference']: s.obj(
    {
      apiGroup: s.str('API group of the referent; empty for the core group.'),
      kind: s.str('Kind of the referent.'),
      name: s.str('Name of the referent.'),
      namespace: s.str('Namespace of the referent (needs a ReferenceGrant when different).'),
    },
    { required: ['kind', 'name'], description: 'A typed reference to an object, possibly in another namespace.' },
  ),
  [V1 + 'ImageVolumeSource']: s.obj(
    {
      reference: s.str('Image or artifact reference to mount.'),
      pullPolicy: s.enumOf(['Always', 'IfNotPresent', 'Never'], 'Pull policy; defaults like a container imagePullPolicy.'),
    },
    { description: 'An OCI object mounted as a volume.' },
  ),
  [V1 + 'GCEPersistentDiskVolumeSource']: s.obj(
    { pdName: s.str('Name of the persistent disk.'), fsType, partition: s.int32('Partition to mount; 0 for the whole disk.'), readOnly },
    { required: ['pdName'], description: 'A GCE persistent disk.' },
  ),
  [V1 + 'AWSElasticBlockStoreVolumeSource']: s.obj(
    { volumeID: s.str('ID of the EBS volume.'), fsType, partition: s.int32('Partition to mount; 0 for the whole disk.'), readOnly },
    { required: ['volumeID'], description: 'An AWS EBS disk.' },
  ),
  [V1 + 'GitRepoVolumeSource']: s.obj(
    { repository: s.str('Repository URL.'), revision: s.str('Commit hash to check out.'), directory: s.str("Target directory; '.' uses the volume root.") },
    { required: ['repository'], description: 'A git repository cloned into the volume.' },
  ),
  [V1 + 'ISCSIVolumeSource']: s.obj(
    {
      targetPortal: s.str('Target portal, IP or ip:port.'),
      iqn: s.str('iSCSI qualified name of the target.'),
      lun: s.int32('Target LUN number.'),
      iscsiInterface: s.str('iSCSI interface name. Defaults to "default".', { default: 'default' }),
      fsType,
      readOnly,
      portals: strList('Extra target portals.'),
      chapAuthDiscovery: s.bool('Use CHAP discovery authentication.'),
      chapAuthSession: s.bool('Use CHAP session authentication.'),
      secretRef,
      initiatorName: s.str('Custom initiator name.'),
    },
    { required: ['targetPortal', 'iqn', 'lun'], description: 'An iSCSI disk.' },
  ),
  [V1 + 'GlusterfsVolumeSource']: s.obj(
    { endpoints: s.str('Endpoints object describing the cluster.'), path: s.str('Volume path.'), readOnly },
    { required: ['endpoints', 'path'], description: 'A GlusterFS mount.' },
  ),
  [V1 + 'RBDVolumeSource']: s.obj(
    {
      monitors: strList('Ceph monitors.'),
      image: s.str('Rados image name.'),
      fsType,
      pool: s.str('Rados pool. Defaults to rbd.', { default: 'rbd' }),
      user: s.str('Rados user. Defaults to admin.', { default: 'admin' }),
      keyring: s.str('Path of the keyring. Defaults to /etc/ceph/keyring.', { default: '/etc/ceph/keyring' }),
      secretRef,
      readOnly,
    },
    { required: ['monitors', 'image'], description: 'A Rados block device.' },
  ),
  [V1 + 'FlexVolumeSource']: s.obj(
    { driver: s.str('Driver name.'), fsType, secretRef, readOnly, options: s.strMap('Extra driver options.') },
    { required: ['driver'], description: 'A volume served by a FlexVolume driver.' },
  ),
  [V1 + 'CinderVolumeSource']: s.obj(
    { volumeID: s.str('Cinder volume ID.'), fsType, readOnly, secretRef },
    { required: ['volumeID'], description: 'An OpenStack Cinder volume.' },
  ),
  [V1 + 'CephFSVolumeSource']: s.obj(
    {
      monitors: strList('Ceph monitors.'),
      path: s.str('Mounted root. Defaults to /.'),
      user: s.str('Rados user. Defaults to admin.'),
      secretFile: s.str('Path of the key ring. Defaults to /etc/ceph/user.secret.'),
      secretRef,
      readOnly,
    },
    { required: ['monitors'], description: 'A CephFS mount.' },
  ),
  [V1 + 'FlockerVolumeSource']: s.obj(
    { datasetName: s.str('Dataset name (deprecated).'), datasetUUID: s.str('Dataset UUID.') },
    { description: 'A Flocker dataset. Exactly one field must be set.' },
  ),
  [V1 + 'FCVolumeSource']: s.obj(
    {
      targetWWNs: strList('Target world wide names.'),
      lun: s.int32('Target LUN number.'),
      fsType,
      readOnly,
      wwids: strList('Volume world wide identifiers; excludes targetWWNs and lun.'),
    },
    { description: 'A Fibre Channel volume.' },
  ),
  [V1 + 'AzureFileVolumeSource']: s.obj(
    { secretName: s.str('Secret with the account name and key.'), shareName: s.str('Share name.'), readOnly },
    { required: ['secretName', 'shareName'], description: 'An Azure File share.' },
  ),
  [V1 + 'VsphereVirtualDiskVolumeSource']: s.obj(
    {
      volumePath: s.str('Path of the vSphere volume vmdk.'),
      fsType,
      storagePolicyName: s.str('Storage policy name.'),
      storagePolicyID: s.str('Storage policy ID.'),
    },
    { required: ['volumePath'], description: 'A vSphere volume.' },
  ),
  [V1 + 'QuobyteVolumeSource']: s.obj(
    {
      registry: s.str('Registry services as host:port pairs separated by commas.'),
      volume: s.str('Existing volume to mount.'),
      readOnly,
      user: s.str('User to map volume access to.'),
      group: s.str('Group to map volume access to.'),
      tenant: s.str('Tenant owning the volume.'),
    },
    { required: ['registry', 'volume'], description: 'A Quobyte mount.' },
  ),
  [V1 + 'AzureDiskVolumeSource']: s.obj(
    {
      diskName: s.str('Name of the data disk.'),
      diskURI: s.str('URI of the data disk.'),
      cachingMode: { ...s.enumOf(['None', 'ReadOnly', 'ReadWrite'], 'Host caching mode.'), default: 'ReadWrite' },
      fsType: s.str('Filesystem type. Defaults to ext4.', { default: 'ext4' }),
      readOnly: s.bool('Mount read-only. Defaults to false.', { default: false }),
      kind: { ...s.enumOf(['Dedicated', 'Managed', 'Shared'], 'Kind of disk.'), default: 'Shared' },
    },
    { required: ['diskName', 'diskURI'], description: 'An Azure data disk.' },
  ),
  [V1 + 'PhotonPersistentDiskVolumeSource']: s.obj(
    { pdID: s.str('ID of the disk.'), fsType },
    { required: ['pdID'], description: 'A PhotonController disk.' },
  ),
  [V1 + 'PortworxVolumeSource']: s.obj(
    { volumeID: s.str('Portworx volume ID.'), fsType, readOnly },
    { required: ['volumeID'], description: 'A Portworx volume.' },
  ),
  [V1 + 'ScaleIOVolumeSource']: s.obj(
    {
      gateway: s.str('Gateway host.'),
      system: s.str('Storage system name.'),
      secretRef,
      sslEnabled: s.bool('Use SSL with the gateway.'),
      protectionDomain: s.str('Protection domain.'),
      storagePool: s.str('Storage pool.'),
      storageMode: s.str('ThickProvisioned or ThinProvisioned (default).', { default: 'ThinProvisioned' }),
      volumeName: s.str('Existing volume name.'),
      fsType: s.str('Filesystem type. Defaults to xfs.', { default: 'xfs' }),
      readOnly,
    },
    { required: ['gateway', 'system', 'secretRef'], description: 'A ScaleIO volume.' },
  ),
  [V1 + 'StorageOSVolumeSource']: s.obj(
    { volumeName: s.str('Volume name.'), volumeNamespace: s.str('StorageOS namespace.'), fsType, readOnly, secretRef },
    { description: 'A StorageOS volume.' },
  ),
};

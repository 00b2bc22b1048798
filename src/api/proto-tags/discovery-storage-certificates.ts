// Protobuf field numbers of discovery.k8s.io/v1, storage.k8s.io/v1 and certificates.k8s.io/v1 types (networking.k8s.io/v1
// is in networking.ts), from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33
// discovery/v1, storage/v1 and certificates/v1 types.go.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const D = 'io.k8s.api.discovery.v1.';
const S = 'io.k8s.api.storage.v1.';
const C = 'io.k8s.api.certificates.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });
const list = { apiVersion: 0, kind: 0, metadata: 1, items: 2 };

export const networkingExtraProtoTags: ProtoTags = {
  [D + 'EndpointSlice']: { apiVersion: 0, kind: 0, metadata: 1, addressType: k(4), endpoints: 2, ports: 3 },
  [D + 'Endpoint']: {
    addresses: 1, conditions: 2, hostname: k(3), targetRef: 4, deprecatedTopology: 5, nodeName: k(6), zone: k(7), hints: 8,
  },
  [D + 'EndpointConditions']: { ready: k(1), serving: k(2), terminating: k(3) },
  [D + 'EndpointHints']: { forZones: 1, forNodes: 2 },
  [D + 'ForZone']: { name: k(1) },
  [D + 'ForNode']: { name: k(1) },
  [D + 'EndpointPort']: { name: k(1), protocol: k(2), port: k(3), appProtocol: k(4) },
  [D + 'EndpointSliceList']: list,

  [S + 'StorageClass']: {
    apiVersion: 0, kind: 0, metadata: 1, provisioner: k(2), parameters: 3, reclaimPolicy: k(4), mountOptions: 5,
    allowVolumeExpansion: k(6), volumeBindingMode: k(7), allowedTopologies: 8,
  },
  [S + 'StorageClassList']: list,
  [S + 'VolumeAttachment']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [S + 'VolumeAttachmentSpec']: { attacher: k(1), source: 2, nodeName: k(3) },
  [S + 'VolumeAttachmentSource']: { persistentVolumeName: k(1), inlineVolumeSpec: 2 },
  [S + 'VolumeAttachmentStatus']: { attached: k(1), attachmentMetadata: 2, attachError: 3, detachError: 4 },
  [S + 'VolumeError']: { time: 1, message: 2, errorCode: k(3) },
  [S + 'VolumeAttachmentList']: list,
  [S + 'CSIDriver']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [S + 'CSIDriverSpec']: {
    attachRequired: k(1), podInfoOnMount: k(2), volumeLifecycleModes: 3, storageCapacity: k(4), fsGroupPolicy: k(5),
    tokenRequests: 6, requiresRepublish: k(7), seLinuxMount: k(8), nodeAllocatableUpdatePeriodSeconds: k(9),
  },
  [S + 'TokenRequest']: { audience: k(1), expirationSeconds: k(2) },
  [S + 'CSIDriverList']: list,
  [S + 'CSINode']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2 },
  [S + 'CSINodeSpec']: { drivers: 1 },
  [S + 'CSINodeDriver']: { name: k(1), nodeID: k(2), topologyKeys: 3, allocatable: 4 },
  [S + 'VolumeNodeResources']: { count: k(1) },
  [S + 'CSINodeList']: list,

  [C + 'CertificateSigningRequest']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [C + 'CertificateSigningRequestSpec']: {
    request: k(1), signerName: k(7), expirationSeconds: k(8), usages: 5, username: 2, uid: 3, groups: 4, extra: 6,
  },
  [C + 'CertificateSigningRequestStatus']: { conditions: 1, certificate: 2 },
  [C + 'CertificateSigningRequestCondition']: {
    type: k(1), status: k(6), reason: 2, message: 3, lastUpdateTime: 4, lastTransitionTime: 5,
  },
  [C + 'CertificateSigningRequestList']: list,
};

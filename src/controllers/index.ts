// The controllers kube-controller-manager runs by default, as k1s runs them (one manager, one Lease).
import type { ResourceDefinition } from '../api/types.js';
import type { ControllerFactory } from '../client/controller.js';
import { cronJobController } from './cronjob/controller.js';
import { daemonSetController } from './daemonset/controller.js';
import { deploymentController } from './deployment/controller.js';
import { disruptionController } from './disruption.js';
import { endpointsController } from './endpoints/controller.js';
import { endpointSliceController, endpointSliceMirroringController } from './endpointslice/controller.js';
import { garbageCollectorController, gcResourcesFrom } from './garbage-collector/controller.js';
import { horizontalPodAutoscalerController } from './hpa/controller.js';
import { jobController } from './job/controller.js';
import { namespaceController } from './namespace/controller.js';
import { nodeIpamController } from './node-ipam.js';
import { nodeLifecycleController } from './node-lifecycle/controller.js';
import { taintEvictionController } from './node-lifecycle/taint-eviction.js';
import { podGCController } from './pod-gc.js';
import { persistentVolumeController } from './volume/persistentvolume.js';
import { volumeResizer } from './volume/resize.js';
import { pvcProtectionController } from './volume/pvc-protection.js';
import { ephemeralVolumeController } from './volume/ephemeral.js';
import { pvProtectionController } from './volume/pv-protection.js';
import { localPathProvisioner } from './volume/local-path-provisioner.js';
import { replicaSetController, replicationControllerController } from './replicaset/controller.js';
import { resourceQuotaController } from './resourcequota.js';
import { rootCAPublisherController } from './root-ca.js';
import { clusterRoleAggregationController } from './clusterrole-aggregation.js';
import { serviceAccountController } from './serviceaccount.js';
import { statefulSetController } from './statefulset/controller.js';
import { ttlAfterFinishedController } from './ttl-after-finished.js';
import { bootstrapTokenCleaner } from './bootstrap-token-cleaner.js';
import { bootstrapSigner } from './bootstrap-signer.js';
import { csrApprovingController } from './certificates/approver.js';
import { csrSigningController } from './certificates/signer.js';
import type { CertKeyPem } from '../pki/certs.js';

export interface DefaultControllersOptions {
  /** every served resource (the garbage collector and namespace controller walk them all) */
  definitions: readonly ResourceDefinition[];
  /** the cluster CA, published to every namespace as kube-root-ca.crt */
  caPem: string;
  /** the cluster CA with its key (--cluster-signing-cert-file / -key-file): the CSR signers sign with it; none, no signing */
  clusterSigning?: CertKeyPem;
  /** the pod network the node IPAM controller carves per-node CIDRs from (default 10.42.0.0/16) */
  clusterCIDR?: string;
  /** where the built-in local-path provisioner puts volumes on nodes that do not announce a root (<data dir>/storage) */
  localPathStorageRoot?: string;
}

export function defaultControllers(opts: DefaultControllersOptions): ControllerFactory[] {
  const resources = gcResourcesFrom(opts.definitions);
  return [
    namespaceController({ resources }),
    serviceAccountController(),
    rootCAPublisherController({ caPem: opts.caPem }),
    clusterRoleAggregationController(),
    garbageCollectorController({ resources }),
    nodeIpamController({ clusterCIDR: opts.clusterCIDR }),
    nodeLifecycleController(),
    taintEvictionController(),
    podGCController(),
    replicaSetController(),
    replicationControllerController(),
    deploymentController(),
    statefulSetController(),
    daemonSetController(),
    jobController(),
    cronJobController(),
    ttlAfterFinishedController(),
    bootstrapTokenCleaner(),
    bootstrapSigner(),
    endpointsController(),
    endpointSliceController(),
    endpointSliceMirroringController(),
    disruptionController(),
    resourceQuotaController(),
    horizontalPodAutoscalerController(),
    csrApprovingController(),
    ...(opts.clusterSigning ? [csrSigningController({ ca: opts.clusterSigning })] : []),
    persistentVolumeController(),
    pvcProtectionController(),
    ephemeralVolumeController(),
    pvProtectionController(),
    // what k3s runs beside kube-controller-manager: the local-path provisioner and (for expansion) its resizer
    localPathProvisioner({ storageRoot: opts.localPathStorageRoot }),
    volumeResizer(),
  ];
}

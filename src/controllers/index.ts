// The controllers kube-controller-manager runs by default, as k1s runs them (one manager, one Lease).
import type { ResourceDefinition } from '../api/types.js';
import type { ControllerFactory } from './manager.js';
import { cronJobController } from './cronjob.js';
import { daemonSetController } from './daemonset.js';
import { deploymentController } from './deployment.js';
import { disruptionController } from './disruption.js';
import { endpointsController } from './endpoints.js';
import { endpointSliceController, endpointSliceMirroringController } from './endpointslice.js';
import { garbageCollectorController, gcResourcesFrom } from './garbage-collector.js';
import { horizontalPodAutoscalerController } from './hpa.js';
import { jobController } from './job.js';
import { namespaceController } from './namespace.js';
import { nodeIpamController } from './node-ipam.js';
import { nodeLifecycleController } from './node-lifecycle.js';
import { taintEvictionController } from './node-lifecycle-eviction.js';
import { podGCController } from './pod-gc.js';
import { persistentVolumeController } from './persistentvolume.js';
import { volumeResizer } from './persistentvolume-resize.js';
import { pvcProtectionController } from './pvc-protection.js';
import { ephemeralVolumeController } from './ephemeral-volume.js';
import { pvProtectionController } from './pv-protection.js';
import { localPathProvisioner } from './local-path-provisioner.js';
import { replicaSetController, replicationControllerController } from './replicaset.js';
import { resourceQuotaController } from './resourcequota.js';
import { rootCAPublisherController } from './root-ca.js';
import { clusterRoleAggregationController } from './clusterrole-aggregation.js';
import { serviceAccountController } from './serviceaccount.js';
import { statefulSetController } from './statefulset.js';
import { ttlAfterFinishedController } from './ttl-after-finished.js';

export interface DefaultControllersOptions {
  /** every served resource (the garbage collector and namespace controller walk them all) */
  definitions: readonly ResourceDefinition[];
  /** the cluster CA, published to every namespace as kube-root-ca.crt */
  caPem: string;
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
    endpointsController(),
    endpointSliceController(),
    endpointSliceMirroringController(),
    disruptionController(),
    resourceQuotaController(),
    horizontalPodAutoscalerController(),
    persistentVolumeController(),
    pvcProtectionController(),
    ephemeralVolumeController(),
    pvProtectionController(),
    // what k3s runs beside kube-controller-manager: the local-path provisioner and (for expansion) its resizer
    localPathProvisioner({ storageRoot: opts.localPathStorageRoot }),
    volumeResizer(),
  ];
}

// The storage objects as the components that act on them read them (the PV controller, the provisioner, the
// scheduler's volume plugins, the kubelet): one shape per kind, so they cannot drift apart.
import type { KObject } from '../../types.js';
import type { NodeSelectorTerm } from '../scheduling-match.js';
import type { MetaLabelSelector } from '../../../machinery/labels.js';

export interface ObjectRef {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export type PersistentVolumeClaim = KObject & {
  spec?: {
    accessModes?: string[];
    selector?: MetaLabelSelector | null;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    volumeName?: string;
    storageClassName?: string | null;
    volumeMode?: string;
  };
  status?: {
    phase?: string;
    accessModes?: string[];
    capacity?: Record<string, string>;
    allocatedResources?: Record<string, string>;
    allocatedResourceStatuses?: Record<string, string>;
    conditions?: { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string; reason?: string; message?: string }[];
  };
};

export type PersistentVolume = KObject & {
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    claimRef?: ObjectRef | null;
    storageClassName?: string;
    volumeMode?: string;
    persistentVolumeReclaimPolicy?: string;
    nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null } | null;
    hostPath?: { path: string; type?: string } | null;
    local?: { path: string } | null;
    csi?: { driver?: string; volumeHandle?: string } | null;
    mountOptions?: string[];
  };
  status?: { phase?: string; message?: string; reason?: string; lastPhaseTransitionTime?: string };
};

export interface TopologySelectorTerm {
  matchLabelExpressions?: { key?: string; values?: string[] }[] | null;
}

export type StorageClass = KObject & {
  provisioner?: string;
  reclaimPolicy?: string;
  volumeBindingMode?: string;
  allowVolumeExpansion?: boolean;
  mountOptions?: string[];
  parameters?: Record<string, string>;
  allowedTopologies?: TopologySelectorTerm[] | null;
};

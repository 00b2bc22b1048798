// Shared builders for the PV controller, provisioner and storage tests.
import type { KObject } from '../../../../src/api/types.js';
import type { ControllerCluster } from '../harness.js';

export const NS = 'default';

export function pv(name: string, opts: { size?: string; cls?: string; modes?: string[]; policy?: string; claimRef?: object; labels?: Record<string, string>; node?: string } = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: opts.labels },
    spec: {
      capacity: { storage: opts.size ?? '1Gi' },
      accessModes: opts.modes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: opts.policy ?? 'Retain',
      storageClassName: opts.cls ?? '',
      hostPath: { path: `/tmp/k1s-test-pv/${name}` },
      ...(opts.claimRef ? { claimRef: opts.claimRef } : {}),
      ...(opts.node
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [opts.node] }] }] } } }
        : {}),
    },
  } as KObject;
}

export function pvc(name: string, opts: { size?: string; cls?: string | null; modes?: string[]; volumeName?: string; selector?: object; mode?: string } = {}): KObject {
  const spec: Record<string, unknown> = { accessModes: opts.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: opts.size ?? '1Gi' } } };
  if (opts.cls !== null) spec.storageClassName = opts.cls ?? '';
  if (opts.volumeName) spec.volumeName = opts.volumeName;
  if (opts.selector) spec.selector = opts.selector;
  if (opts.mode) spec.volumeMode = opts.mode;
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: NS }, spec } as KObject;
}

export function storageClass(name: string, opts: { provisioner?: string; mode?: string; expand?: boolean; policy?: string; isDefault?: boolean } = {}): KObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, ...(opts.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
    provisioner: opts.provisioner ?? 'kubernetes.io/no-provisioner',
    volumeBindingMode: opts.mode ?? 'Immediate',
    reclaimPolicy: opts.policy ?? 'Delete',
    ...(opts.expand !== undefined ? { allowVolumeExpansion: opts.expand } : {}),
  } as KObject;
}

export function podWithClaim(name: string, claim: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
    },
  } as KObject;
}

export const pvs = (c: ControllerCluster) => c.client.resource('v1', 'persistentvolumes');
export const pvcs = (c: ControllerCluster) => c.client.resource('v1', 'persistentvolumeclaims');
export const phase = (o: KObject) => (o as { status?: { phase?: string } }).status?.phase;
export const spec = (o: KObject) => (o as unknown as { spec: Record<string, any> }).spec;
export const status = (o: KObject) => (o as unknown as { status: Record<string, any> }).status;

export interface EventView {
  involvedObject: { name: string; kind: string };
  reason: string;
  message: string;
  type: string;
  source?: { component?: string };
  count?: number;
}

export async function eventsFor(c: ControllerCluster, kind: string, name: string, ns = NS): Promise<EventView[]> {
  const list = await c.client.resource('v1', 'events').list(ns);
  return (list.items as unknown as EventView[]).filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

export async function waitEvent(c: ControllerCluster, kind: string, name: string, reason: string, ns = NS): Promise<EventView> {
  return c.waitFor(`${reason} event for ${kind}/${name}`, async () => (await eventsFor(c, kind, name, ns)).find((e) => e.reason === reason));
}

// Nodes and pods for scheduler tests, as plain API objects.
import type { KObject } from '../../../src/api/types.js';

export interface NodeOpts {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
  extra?: Record<string, string>;
}

export function node(name: string, o: NodeOpts = {}): KObject {
  const allocatable = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110', ...(o.extra ?? {}) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: {
      capacity: allocatable,
      allocatable,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    },
  } as KObject;
}

export interface PodOpts {
  cpu?: string;
  memory?: string;
  namespace?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  affinity?: Record<string, unknown>;
  schedulerName?: string;
  priorityClassName?: string;
  hostPort?: number;
  nodeName?: string;
  preemptionPolicy?: string;
  extra?: Record<string, string>;
}

export function pod(name: string, o: PodOpts = {}): KObject {
  const requests: Record<string, string> = { ...(o.extra ?? {}) };
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  const spec: Record<string, unknown> = {
    containers: [
      {
        name: 'c',
        image: 'busybox',
        resources: Object.keys(requests).length ? { requests, limits: { ...requests } } : {},
        ...(o.hostPort ? { ports: [{ containerPort: 80, hostPort: o.hostPort }] } : {}),
      },
    ],
  };
  if (o.nodeSelector) spec.nodeSelector = o.nodeSelector;
  if (o.tolerations) spec.tolerations = o.tolerations;
  if (o.affinity) spec.affinity = o.affinity;
  if (o.schedulerName) spec.schedulerName = o.schedulerName;
  if (o.priorityClassName) spec.priorityClassName = o.priorityClassName;
  if (o.nodeName) spec.nodeName = o.nodeName;
  if (o.preemptionPolicy) spec.preemptionPolicy = o.preemptionPolicy;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: o.namespace ?? 'default' }, spec } as KObject;
}

export const nodeNameOf = (p: KObject): string | undefined => (p as { spec?: { nodeName?: string } }).spec?.nodeName;

export function scheduledCondition(p: KObject): { status?: string; reason?: string; message?: string } | undefined {
  return (p as { status?: { conditions?: { type: string; status?: string; reason?: string; message?: string }[] } }).status?.conditions?.find(
    (c) => c.type === 'PodScheduled',
  );
}

// The Node object a kubelet registers and keeps current (kubelet_node_status.go and nodestatus/setters.go): default
// labels, capacity and allocatable, the pressure and Ready conditions with the kubelet's reasons, addresses,
// nodeInfo and the kubelet endpoint. Pure functions; kubelet.ts does the writing.
import { createHash, randomUUID } from 'node:crypto';
import { release } from 'node:os';
import type { Node } from '../../api/core/node/resource.js';
import type { KObject } from '../../api/types.js';
import { kubernetesVersion } from '../../machinery/version.js';
import { Quantity } from '../../machinery/quantity.js';
import { rfc3339 } from '../../machinery/object.js';

export const KUBELET_PORT = 10250;

export interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeIdentity {
  name: string;
  internalIP: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  capacity: Record<string, string>;
  /** what a real node computed from its machine (machine-info allocatableFromCapacity); default: allocatableFor */
  allocatable?: Record<string, string>;
  runtimeVersion: string;
  osImage?: string;
  /** where the kubelet's HTTPS server listens (default 10250) */
  kubeletPort?: number;
}

/** Go's runtime.GOARCH for this process. */
export function goArch(arch: string = process.arch): string {
  return ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

/** The labels every kubelet sets on its Node (getNodeLabels / updateDefaultLabels). */
export function defaultNodeLabels(name: string): Record<string, string> {
  const arch = goArch();
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
}

/** Allocatable = capacity − the default hard eviction thresholds (memory.available<100Mi, nodefs.available<10%). */
export function allocatableFor(capacity: Record<string, string>): Record<string, string> {
  const out = { ...capacity };
  if (capacity.memory) {
    const q = Quantity.parse(capacity.memory).sub(Quantity.parse('100Mi'));
    out.memory = q.sign() < 0 ? '0' : q.toString();
  }
  if (capacity['ephemeral-storage']) {
    const bytes = Quantity.parse(capacity['ephemeral-storage']).value();
    out['ephemeral-storage'] = String(Math.floor(bytes * 0.9));
  }
  return out;
}

/** nodeInfo for a node: stable per name (machineID, systemUUID), a fresh bootID per kubelet start. */
export function nodeInfo(id: NodeIdentity, bootID: string = randomUUID()): Record<string, string> {
  const h = createHash('sha256').update(id.name).digest('hex');
  return {
    machineID: h.slice(0, 32),
    systemUUID: `${h.slice(32, 40)}-${h.slice(40, 44)}-${h.slice(44, 48)}-${h.slice(48, 52)}-${h.slice(52, 64)}`,
    bootID,
    kernelVersion: release(),
    osImage: id.osImage ?? 'k1s simulated node',
    containerRuntimeVersion: id.runtimeVersion,
    kubeletVersion: `v${kubernetesVersion.major}.${kubernetesVersion.minor}.${kubernetesVersion.patch}`,
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: goArch(),
  };
}

export interface NodeHealth {
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
  /** why the node is not ready (runtime or network down), or undefined when it is ready */
  notReadyMessage?: string;
}

const CONDITION_TEXT: Record<string, [true: [string, string], false: [string, string]]> = {
  MemoryPressure: [['KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'], ['KubeletHasSufficientMemory', 'kubelet has sufficient memory available']],
  DiskPressure: [['KubeletHasDiskPressure', 'kubelet has disk pressure'], ['KubeletHasNoDiskPressure', 'kubelet has no disk pressure']],
  PIDPressure: [['KubeletHasInsufficientPID', 'kubelet has insufficient PID available'], ['KubeletHasSufficientPID', 'kubelet has sufficient PID available']],
};

/** Event reasons the kubelet records when a condition changes (NodeHasSufficientMemory, NodeReady …). */
const CONDITION_EVENT: Record<string, [string, string]> = {
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
  Ready: ['NodeReady', 'NodeNotReady'],
};

/** The four kubelet conditions, keeping lastTransitionTime while a status holds; returns the events to record. */
export function nodeConditions(prev: NodeCondition[], health: NodeHealth, now: number): { conditions: NodeCondition[]; events: string[] } {
  const t = rfc3339(now);
  const events: string[] = [];
  const mk = (type: string, status: boolean, reason: string, message: string): NodeCondition => {
    const old = prev.find((c) => c.type === type);
    const st = status ? 'True' : 'False';
    if (!old || old.status !== st) events.push(CONDITION_EVENT[type][status ? 0 : 1]);
    return { type, status: st, lastHeartbeatTime: t, lastTransitionTime: old && old.status === st && old.lastTransitionTime ? old.lastTransitionTime : t, reason, message };
  };
  const pressure = (type: string, on: boolean) => mk(type, on, ...CONDITION_TEXT[type][on ? 0 : 1]);
  const ready = health.notReadyMessage === undefined;
  // only the kubelet's own four; conditions others set (NetworkUnavailable …) are merged in by the writer
  const conditions = [
    pressure('MemoryPressure', health.memoryPressure),
    pressure('DiskPressure', health.diskPressure),
    pressure('PIDPressure', health.pidPressure),
    mk('Ready', ready, ready ? 'KubeletReady' : 'KubeletNotReady', ready ? 'kubelet is posting ready status' : health.notReadyMessage!),
  ];
  return { conditions, events };
}

/** The status the kubelet reports (without conditions, which nodeConditions builds). */
export function nodeStatusFields(id: NodeIdentity, info: Record<string, string>): Record<string, unknown> {
  const capacity = { 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', ...id.capacity };
  return {
    capacity,
    allocatable: id.allocatable ?? allocatableFor(capacity),
    addresses: [
      { type: 'InternalIP', address: id.internalIP },
      { type: 'Hostname', address: id.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: id.kubeletPort ?? KUBELET_PORT } },
    nodeInfo: info,
    runtimeHandlers: [
      { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
      { name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
    ],
    features: { supplementalGroupsPolicy: true },
  };
}

/** The Node a kubelet creates when it registers (initialNode). */
export function initialNode(id: NodeIdentity): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: id.name,
      labels: { ...defaultNodeLabels(id.name), ...(id.labels ?? {}) },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', ...(id.annotations ?? {}) },
    },
    spec: {},
  } as Node;
}

/** Labels and annotations a registered Node is missing or has wrong (reconciled when the Node already exists). */
export function metadataDrift(node: KObject, id: NodeIdentity): { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined {
  const want = initialNode(id).metadata;
  const out: { labels?: Record<string, string>; annotations?: Record<string, string> } = {};
  for (const k of ['labels', 'annotations'] as const) {
    const have = node.metadata[k] ?? {};
    for (const [key, v] of Object.entries(want[k] ?? {})) if (have[key] !== v) (out[k] ??= {})[key] = v;
  }
  return out.labels || out.annotations ? out : undefined;
}

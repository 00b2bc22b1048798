// Nodes and DaemonSets the DaemonSet tests share.
import type { KObject } from '../../../../src/api/types.js';

const NS = 'default';

/** A Ready node with the hostname label, optional extra labels and taints. */
export function node(name: string, opts: { labels?: Record<string, string>; taints?: { key: string; value?: string; effect: string }[] } = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(opts.labels ?? {}) } },
    spec: opts.taints ? { taints: opts.taints } : {},
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }] },
  } as KObject;
}

export function ds(name: string, podSpec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'agent:1' }], ...podSpec } },
      ...extra,
    },
  } as KObject;
}


// Small in-memory clusters for the PodTopologySpread / InterPodAffinity tests: a SchedulerCache with nodes in zones
// and pods placed on them, plus a helper that asks which nodes a pod may go to.
import type { KObject } from '../../../src/api/types.js';
import { runFilters } from '../../../src/scheduler/plugins/filters.js';
import { podInfo, type FilterStatus } from '../../../src/scheduler/plugins/pod-info.js';
import { SchedulerCache } from '../../../src/scheduler/node-info.js';
import { node, pod, type PodOpts } from './fixtures.js';

export const ZONE = 'topology.kubernetes.io/zone';
export const HOST = 'kubernetes.io/hostname';

/** nodes: name → zone (undefined: no zone label) */
export function zonedCluster(nodes: Record<string, string | undefined>, extra: Record<string, Record<string, string>> = {}): SchedulerCache {
  const cache = new SchedulerCache();
  for (const [name, zone] of Object.entries(nodes)) cache.setNode(node(name, { cpu: '32', memory: '64Gi', labels: { ...(zone ? { [ZONE]: zone } : {}), ...(extra[name] ?? {}) } }));
  return cache;
}

export function labelled(name: string, labels: Record<string, string>, o: PodOpts & { spec?: Record<string, unknown> } = {}): KObject {
  const p = pod(name, o);
  p.metadata.labels = labels;
  p.metadata.uid = `uid-${name}-${Math.random().toString(36).slice(2)}`;
  Object.assign((p as unknown as { spec: Record<string, unknown> }).spec, o.spec ?? {});
  return p;
}

export function place(cache: SchedulerCache, p: KObject, nodeName: string): void {
  cache.assume(p, nodeName);
}

/** Nodes passing every filter, and the status of the others. */
export function feasible(cache: SchedulerCache, p: KObject): { fits: string[]; statuses: Record<string, FilterStatus> } {
  const info = podInfo(p);
  const fits: string[] = [];
  const statuses: Record<string, FilterStatus> = {};
  for (const ni of cache.nodes()) {
    const st = runFilters(info, ni);
    if (st) statuses[ni.name] = st;
    else fits.push(ni.name);
  }
  return { fits, statuses };
}

// Informer-backed ClusterLookups for PodTopologySpread and InterPodAffinity: namespace labels (namespaceSelector)
// and the default spread selector built from the Services, ReplicationControllers, ReplicaSets and StatefulSets
// selecting a pod (kube's helper.DefaultSelector). Wire with `cache.lookups = informerLookups(ctx.informers)`
// in the scheduler's setup() so the informers start with the others.
import type { KObject } from '../api/types.js';
import type { InformerFactory } from '../client/informer.js';
import { fromLabelSelector, selectorFromSet, type LabelSelector, type LabelSelectorRequirement, type MetaLabelSelector } from '../machinery/labels.js';
import type { ClusterLookups } from './node-info.js';

type WithSelector = KObject & { spec?: { selector?: unknown } };

function safeSelector(meta: MetaLabelSelector | null | undefined): LabelSelector | undefined {
  try {
    return fromLabelSelector(meta);
  } catch {
    return undefined;
  }
}

/** The combined selector of everything selecting `pod`, undefined when nothing does. */
export function defaultSelectorFor(pod: KObject, sources: { services: KObject[]; rcs: KObject[]; replicaSets: KObject[]; statefulSets: KObject[] }): LabelSelector | undefined {
  const labels = pod.metadata.labels ?? {};
  const matchLabels: Record<string, string> = {};
  const exprs: LabelSelectorRequirement[] = [];
  // Services and ReplicationControllers select by label map; merging is safe as they all match the pod
  for (const o of [...sources.services, ...sources.rcs] as WithSelector[]) {
    const sel = o.spec?.selector as Record<string, string> | null | undefined;
    if (!sel || !Object.keys(sel).length || !selectorFromSet(sel).matches(labels)) continue;
    Object.assign(matchLabels, sel);
  }
  for (const o of [...sources.replicaSets, ...sources.statefulSets] as WithSelector[]) {
    const meta = o.spec?.selector as MetaLabelSelector | null | undefined;
    const sel = safeSelector(meta);
    if (!meta || !sel || sel.empty || !sel.matches(labels)) continue;
    for (const [k, v] of Object.entries(meta.matchLabels ?? {})) exprs.push({ key: k, operator: 'In', values: [v] });
    exprs.push(...(meta.matchExpressions ?? []));
  }
  if (!Object.keys(matchLabels).length && !exprs.length) return undefined;
  return safeSelector({ matchLabels, matchExpressions: exprs });
}

export function informerLookups(informers: InformerFactory): ClusterLookups {
  const namespaces = informers.informer('v1', 'namespaces');
  const services = informers.informer('v1', 'services');
  const rcs = informers.informer('v1', 'replicationcontrollers');
  const replicaSets = informers.informer('apps/v1', 'replicasets');
  const statefulSets = informers.informer('apps/v1', 'statefulsets');
  return {
    namespaceLabels: (ns) => namespaces.get('', ns)?.metadata.labels,
    defaultSpreadSelector: (pod) => {
      const ns = pod.metadata.namespace;
      return defaultSelectorFor(pod, { services: services.list(ns), rcs: rcs.list(ns), replicaSets: replicaSets.list(ns), statefulSets: statefulSets.list(ns) });
    },
  };
}

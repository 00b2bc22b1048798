// core/v1 Pod as a served resource: pkg/registry/core/pod/strategy.go (podStrategy, podStatusStrategy,
// CheckGracefulDelete, ToSelectableFields) over the defaulting, validation and printing in core-pod-*.ts. Pods are
// only stored: nothing schedules or runs them yet. ephemeralcontainers and resize are in subresources.ts;
// binding and eviction are actions implemented in src/apiserver/pods/actions.ts.
import { clone, rfc3339 } from '../../../machinery/object.js';
import { isDNS1123Label } from '../../../machinery/validation.js';
import { dropDisabledPodFields, dropDisabledPodStatusFields, prepareNewPod } from './admission.js';
import { podColumns } from './table.js';
import { bindingDefinitions, POD_EXTRA_SUBRESOURCES, preparePodSubresourceUpdate, validatePodSubresourceUpdate } from './subresources.js';
import { canonicalizePodQuantities, canonicalizePodStatus, defaultPod, defaultPodStatus } from './defaults.js';
import { normalizePodEncoding } from './encoding.js';
import { podDefinitions, V1 } from './schema.js';
import type { Pod } from './types.js';
import { validatePodCreate } from './validation.js';
import { validatePodStatusUpdate, validatePodUpdate } from './validation-update.js';
import { defineResource, type DeleteContext } from '../../types.js';

export type { Pod } from './types.js';
export { podDefinitions } from './schema.js';
export { injectServiceAccountVolume, shouldAutomountToken, computeQOS } from './admission.js';

/** CheckGracefulDelete: the requested or spec grace period, but immediate for unscheduled or finished pods. */
export function podGracePeriod(pod: Pod, ctx: DeleteContext): number | undefined {
  let period = ctx.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  if (!pod.spec?.nodeName) period = 0;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return period === 0 ? undefined : period;
}

/**
 * podStatusStrategy.PrepareForUpdate: the spec and owner references stay; QoS and observedGeneration are kept. The
 * store builds a status update around the old object (statusOnly below): its spec and owner references are the old
 * object's own, shared read-only, and only the status is changed here.
 */
export function preparePodStatusUpdate(pod: Pod, old: Pod): void {
  pod.spec = old.spec;
  if (old.metadata.ownerReferences === undefined) delete pod.metadata.ownerReferences;
  else pod.metadata.ownerReferences = old.metadata.ownerReferences;
  const st = (pod.status ??= {});
  const oldSt = old.status ?? {};
  if (!st.qosClass && oldSt.qosClass) st.qosClass = oldSt.qosClass;
  if (!st.observedGeneration && oldSt.observedGeneration) st.observedGeneration = oldSt.observedGeneration;
  // Conditions that omit observedGeneration keep the old value of the same type (matched in order).
  const remembered = new Map<string, number[]>();
  for (const c of oldSt.conditions ?? []) remembered.set(c.type ?? '', [...(remembered.get(c.type ?? '') ?? []), c.observedGeneration ?? 0]);
  for (const c of st.conditions ?? []) {
    const prev = remembered.get(c.type ?? '')?.shift() ?? 0;
    if (!c.observedGeneration && prev) c.observedGeneration = prev;
  }
  dropDisabledPodStatusFields(pod, old);
}

export const podResource = defineResource<Pod>({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  schemaRef: V1 + 'Pod',
  definitions: { ...podDefinitions, ...bindingDefinitions },
  // Since 1.33 the apiserver sets generation 1 on create and bumps it on every spec change.
  hasGeneration: true,
  subresources: {
    status: true,
    extra: POD_EXTRA_SUBRESOURCES,
    actions: [
      { name: 'binding', verbs: ['create'], kind: { group: '', version: 'v1', kind: 'Binding' } },
      { name: 'eviction', verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
    ],
  },
  columns: podColumns,
  selectableFields: {
    'spec.nodeName': (p) => p.spec?.nodeName ?? '',
    'spec.restartPolicy': (p) => p.spec?.restartPolicy ?? '',
    'spec.schedulerName': (p) => p.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (p) => p.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (p) => String(p.spec?.hostNetwork === true),
    'status.phase': (p) => p.status?.phase ?? '',
    // Kubernetes reads the first entry of podIPs, not podIP.
    'status.podIP': (p) => p.status?.podIPs?.[0]?.ip ?? '',
    'status.nominatedNodeName': (p) => p.status?.nominatedNodeName ?? '',
  },
  strategy: {
    defaults: defaultPod,
    prepareForCreate(pod) {
      prepareNewPod(pod, rfc3339());
      // defaults() has just normalised the pod (normalizePodEncoding), and prepareNewPod only adds values Go writes
      // as they are; what it drops can leave one thing Go would not write before validation sees it: the empty
      // volume list of a pod whose volumes were all image volumes (test/unit/api/pod-create-encoding.test.ts)
      if (pod.spec?.volumes?.length === 0) delete pod.spec.volumes;
    },
    prepareForUpdate(pod, old) {
      pod.status = clone(old.status);
      dropDisabledPodFields(pod, old);
    },
    validate: validatePodCreate,
    validateUpdate: validatePodUpdate,
    canonicalize(pod) {
      canonicalizePodQuantities(pod);
      normalizePodEncoding(pod);
    },
    prepareForStatusUpdate: preparePodStatusUpdate,
    statusOnly: { defaults: defaultPodStatus, canonicalize: canonicalizePodStatus },
    validateStatusUpdate: validatePodStatusUpdate,
    prepareForSubresourceUpdate: preparePodSubresourceUpdate,
    validateSubresourceUpdate: validatePodSubresourceUpdate,
    warnings(pod, old) {
      if (old) return []; // Kubernetes skips warnings on pod updates.
      const msgs = isDNS1123Label(pod.metadata.name ?? '');
      if (!pod.metadata.name || !msgs.length) return [];
      return [`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
    },
    gracePeriodSeconds: podGracePeriod,
    allowCreateOnUpdate: false,
  },
});

// policy/v1 PodDisruptionBudget: schema (k8s.io/api/policy/v1/types.go, 1.33), pkg/registry/policy/
// poddisruptionbudget/strategy.go and printPodDisruptionBudget. Nothing evicts pods or computes the status yet.
import { clone } from '../../../machinery/object.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import { isValidLabelValue } from '../../../machinery/validation.js';
import { isCreate } from '../../batch/job/resource.js';
import { ageColumn, nameColumn } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { validatePDBSpec, validatePDBStatus, type PDBSpec, type PDBStatus } from './validation.js';
import { defineResource, type KObject } from '../../types.js';

export const P = 'io.k8s.api.policy.v1.';
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

export interface PodDisruptionBudget extends KObject {
  spec?: PDBSpec;
  status?: PDBStatus;
}

export const pdbDefinitions: Definitions = {
  [P + 'PodDisruptionBudget']: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(P + 'PodDisruptionBudgetSpec', 'Specification of the desired behavior of the PodDisruptionBudget.', { default: {} }),
      status: s.ref(P + 'PodDisruptionBudgetStatus', 'Most recently observed status of the PodDisruptionBudget.', { default: {} }),
    },
    { description: 'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods' },
  ),
  [P + 'PodDisruptionBudgetList']: listDefinition(P + 'PodDisruptionBudget', 'PodDisruptionBudgetList is a collection of PodDisruptionBudgets.', 'Items is a list of PodDisruptionBudgets'),
  [P + 'PodDisruptionBudgetSpec']: s.obj(
    {
      minAvailable: s.intOrString('An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction, i.e. even in the absence of the evicted pod. A number, or a percentage such as "100%".'),
      selector: s.ref(META.LabelSelector, 'Label query over pods whose evictions are managed by the disruption budget. A null selector selects no pods; an empty selector ({}) selects all pods in the namespace.', { patchStrategy: 'replace' }),
      maxUnavailable: s.intOrString('An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction. Mutually exclusive with minAvailable. A number, or a percentage such as "50%".'),
      unhealthyPodEvictionPolicy: s.str('When running pods that are not yet healthy (Ready) may be evicted: IfHealthyBudget (only when the guarded application is not disrupted) or AlwaysAllow. Unset behaves as IfHealthyBudget.'),
    },
    { description: 'PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.' },
  ),
  [P + 'PodDisruptionBudgetStatus']: s.obj(
    {
      observedGeneration: s.int64("Most recent generation observed when updating this PDB status. DisruptionsAllowed and other status information is valid only if observedGeneration equals to PDB's object generation."),
      disruptedPods: s.map(s.time(), 'DisruptedPods contains information about pods whose eviction was processed by the API server eviction subresource handler but has not yet been observed by the PodDisruptionBudget controller, keyed by pod name with the time of the eviction.'),
      disruptionsAllowed: s.int32('Number of pod disruptions that are currently allowed.', { default: 0 }),
      currentHealthy: s.int32('current number of healthy pods', { default: 0 }),
      desiredHealthy: s.int32('minimum desired number of healthy pods', { default: 0 }),
      expectedPods: s.int32('total number of pods counted by this disruption budget', { default: 0 }),
      conditions: s.arr(s.ref(META.Condition, undefined, { default: {} }), {
        mergeKey: 'type',
        description: `Conditions contain conditions for PDB. The disruption controller sets the DisruptionAllowed condition (reasons SyncFailed, InsufficientPods, SufficientPods). More info: ${CONVENTIONS}#typical-status-properties`,
      }),
    },
    { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'], description: 'PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget. Status may trail the actual state of a system.' },
  ),
};

const emptyStatus = (): PDBStatus => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });

/** IntOrString.String(): the number or the string. */
const intOrString = (v: number | string | null | undefined): string => (v === undefined || v === null ? 'N/A' : String(v));

/** A stored selector that is already invalid keeps validating with invalid label values allowed. */
function hasInvalidLabelValue(spec: PDBSpec | undefined): boolean {
  const sel = spec?.selector;
  if (!sel) return false;
  const values = [...Object.values(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).flatMap((e) => e.values ?? [])];
  return values.some((v) => isValidLabelValue(v).length > 0);
}

export const pdbResource = defineResource<PodDisruptionBudget>({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  shortNames: ['pdb'],
  namespaced: true,
  schemaRef: P + 'PodDisruptionBudget',
  definitions: pdbDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: [
    nameColumn(),
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', cell: (o) => intOrString(o.spec?.minAvailable) },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', cell: (o) => intOrString(o.spec?.maxUnavailable) },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', cell: (o) => o.status?.disruptionsAllowed ?? 0 },
    ageColumn(),
  ],
  strategy: {
    defaults(pdb) {
      pdb.spec ??= {};
      pdb.status = { ...emptyStatus(), ...(pdb.status ?? {}) };
    },
    prepareForCreate(pdb) {
      pdb.status = emptyStatus();
    },
    prepareForUpdate(pdb, old) {
      pdb.status = clone(old.status) ?? emptyStatus();
    },
    validate: (pdb) => (isCreate(pdb) ? validatePDBSpec(pdb.spec ?? {}, false) : []),
    validateUpdate: (pdb, old) => validatePDBSpec(pdb.spec ?? {}, hasInvalidLabelValue(old.spec)),
    validateStatusUpdate: (pdb) => validatePDBStatus(pdb.status),
    allowCreateOnUpdate: false,
  },
});

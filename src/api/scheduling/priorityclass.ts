// scheduling.k8s.io/v1 PriorityClass: schema (k8s.io/api/scheduling/v1, 1.33), SetDefaults_PriorityClass,
// ValidatePriorityClass(Update) with IsKnownSystemPriorityClass, pkg/registry/scheduling/priorityclass (strategy,
// the REST delete guard for system classes), printPriorityClass. The Priority admission plugin's
// one-global-default rule is in apiserver/admission/priority.ts.
import { errors, FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { ageColumn, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export const SCHED = 'io.k8s.api.scheduling.v1.';

export interface PriorityClass extends KObject {
  value?: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: string | null;
}

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
const SYSTEM_PREFIX = 'system-';

/** The system classes kube-apiserver creates at start-up (SystemPriorityClasses, in that order). */
const SYSTEM_CLASSES = [
  { name: 'system-node-critical', value: SYSTEM_CRITICAL_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: SYSTEM_CRITICAL_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** Fresh objects for the built-in classes, ready to be created through the API. */
export function builtinPriorityClasses(): KObject[] {
  return SYSTEM_CLASSES.map((c) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: c.name },
    value: c.value,
    description: c.description,
  }));
}

export const priorityClassDefinitions: Definitions = {
  [SCHED + 'PriorityClass']: s.obj(
    {
      ...kindHeader(),
      value: s.int32('value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.', { default: 0 }),
      globalDefault: s.bool('globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`.'),
      description: s.str('description is an arbitrary string that usually provides guidelines on when this priority class should be used.'),
      preemptionPolicy: s.str('preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
    },
    { required: ['value'], description: 'PriorityClass defines mapping from a priority class name to the priority integer value. The value can be any valid integer.' },
  ),
  [SCHED + 'PriorityClassList']: listDefinition(SCHED + 'PriorityClass', 'PriorityClassList is a collection of priority classes.', 'items is the list of PriorityClasses'),
};

/** IsKnownSystemPriorityClass: the error text, or undefined for a known class with the right value. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata.name ?? '';
  const value = pc.value ?? 0;
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(name, value, pc.globalDefault === true);
    if (err) errs.push(FieldError.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(FieldError.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const pp = pc.preemptionPolicy;
  if (pp !== undefined && pp !== null) {
    if (pp === '') errs.push(FieldError.required('preemptionPolicy'));
    else if (!PREEMPTION_POLICIES.includes(pp)) errs.push(FieldError.notSupported('preemptionPolicy', pp, PREEMPTION_POLICIES));
  }
  return errs;
}

export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errs: FieldError[] = [];
  if ((pc.value ?? 0) !== (old.value ?? 0)) errs.push(FieldError.forbidden('value', 'may not be changed in an update.'));
  if ((pc.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null)) {
    errs.push(FieldError.invalid('preemptionPolicy', pc.preemptionPolicy ?? null, 'field is immutable'));
  }
  return errs;
}

export const PRIORITY_CLASSES_GR = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };
/** kube's 403 for a PriorityClass write the REST layer or admission refuses */
export const priorityClassForbidden = (name: string, why: string) =>
  errors.forbidden(PRIORITY_CLASSES_GR, name, `priorityclasses.scheduling.k8s.io "${name}" is forbidden: ${why}`);

const desc = (field: string) => priorityClassDefinitions[SCHED + 'PriorityClass'].properties![field].description!;

export const priorityClassResource = defineResource<PriorityClass>({
  group: 'scheduling.k8s.io',
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  singular: 'priorityclass',
  shortNames: ['pc'],
  namespaced: false,
  schemaRef: SCHED + 'PriorityClass',
  definitions: priorityClassDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    { name: 'Value', type: 'integer', description: desc('value'), cell: (o) => o.value ?? 0 },
    { name: 'Global-Default', type: 'boolean', description: desc('globalDefault'), cell: (o) => o.globalDefault === true },
    ageColumn(),
    // A priority-0 column whose cell kube-apiserver fills because it always prints wide rows.
    { name: 'PreemptionPolicy', type: 'string', description: desc('preemptionPolicy'), cell: (o) => o.preemptionPolicy ?? '' },
  ],
  strategy: {
    defaults(pc) {
      if (pc.preemptionPolicy === undefined || pc.preemptionPolicy === null) pc.preemptionPolicy = 'PreemptLowerPriority';
      if (pc.globalDefault === false) delete pc.globalDefault;
      if (pc.description === '') delete pc.description;
      pc.value ??= 0;
    },
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
    // PrepareForCreate sets generation 1 and PrepareForUpdate never bumps it.
    generationChanged: () => false,
    // The REST layer refuses to delete the system classes.
    beforeDelete(pc) {
      if (SYSTEM_CLASSES.some((c) => c.name === pc.metadata.name)) throw priorityClassForbidden(pc.metadata.name!, 'this is a system priority class and cannot be deleted');
    },
    allowCreateOnUpdate: false,
  },
});

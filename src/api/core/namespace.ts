// core/v1 Namespace: pkg/registry/core/namespace/strategy.go, ValidateNamespace* in
// pkg/apis/core/validation/validation.go, SetDefaults_Namespace(Status) in pkg/apis/core/v1/defaults.go.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE } from './common.js';
import { isQualifiedName, nameIsDNSLabel } from '../../machinery/validation.js';
import { ageColumn, nameColumn, parseTime } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Namespace extends KObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

const NS_DOC = 'https://kubernetes.io/docs/tasks/administer-cluster/namespaces/';
const SPEC_STATUS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status';

export const namespaceDefinitions: Definitions = {
  [`${CORE}Namespace`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${CORE}NamespaceSpec`, `Spec defines the behavior of the Namespace. More info: ${SPEC_STATUS}`, { default: {} }),
      status: s.ref(`${CORE}NamespaceStatus`, `Status describes the current status of a Namespace. More info: ${SPEC_STATUS}`, {
        default: {},
      }),
    },
    { description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.' },
  ),
  [`${CORE}NamespaceSpec`]: s.obj(
    {
      finalizers: s.arr(s.str(undefined, { default: '' }), {
        description: `Finalizers is an opaque list of values that must be empty before the namespace is permanently removed from storage. More info: ${NS_DOC}`,
      }),
    },
    { description: 'NamespaceSpec describes the attributes on a Namespace.' },
  ),
  [`${CORE}NamespaceStatus`]: s.obj(
    {
      conditions: s.arr(s.ref(`${CORE}NamespaceCondition`, undefined, { default: {} }), {
        mergeKey: 'type',
        description: "Represents the latest available observations of a namespace's current state.",
      }),
      phase: s.enumOf(['Active', 'Terminating'], `Phase is the current lifecycle phase of the namespace. More info: ${NS_DOC}`),
    },
    { description: 'NamespaceStatus is information about the current status of a Namespace.' },
  ),
  [`${CORE}NamespaceCondition`]: s.obj(
    {
      lastTransitionTime: s.time('Last time the condition transitioned from one status to another.'),
      message: s.str('Human-readable message indicating details about last transition.'),
      reason: s.str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: s.str('Status of the condition, one of True, False, Unknown.', { default: '' }),
      type: s.str('Type of namespace controller condition.', { default: '' }),
    },
    { description: 'NamespaceCondition contains details about state of namespace.', required: ['type', 'status'] },
  ),
  [`${CORE}NamespaceList`]: listDefinition(
    `${CORE}Namespace`,
    'NamespaceList is a list of Namespaces.',
    'Items is the list of Namespace objects in the list. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/',
  ),
};

/** Label the server keeps equal to the namespace's name (defaults.go and Canonicalize). */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';
const FINALIZER_KUBERNETES = 'kubernetes';
// helper.IsStandardFinalizerName: the legacy finalizer and metav1's orphan/foreground ones.
const STANDARD_FINALIZERS = new Set([FINALIZER_KUBERNETES, 'orphan', 'foregroundDeletion']);

function setNameLabel(ns: Namespace): void {
  if (!ns.metadata.name) return;
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), [LABEL_METADATA_NAME]: ns.metadata.name };
}

/** validateFinalizerName: a qualified name, and a bare name must be one of the standard ones. */
export function validateFinalizerName(value: string, path: string): FieldError[] {
  const errs = isQualifiedName(value).map((m) => FieldError.invalid(path, value, m));
  if (!value.includes('/') && !STANDARD_FINALIZERS.has(value))
    errs.push(FieldError.invalid(path, value, 'name is neither a standard finalizer name nor is it fully qualified'));
  return errs;
}

function validateNamespace(ns: Namespace): FieldError[] {
  // Kubernetes reports these at spec.finalizers without an index.
  return (ns.spec?.finalizers ?? []).flatMap((f) => validateFinalizerName(f, 'spec.finalizers'));
}

/** ValidateNamespaceFinalizeUpdate's own check (the finalize subresource): per-index finalizer names. */
export function validateNamespaceFinalize(ns: Namespace): FieldError[] {
  return (ns.spec?.finalizers ?? []).flatMap((f, i) => validateFinalizerName(f, `spec.finalizers[${i}]`));
}

export const namespaceResource = defineResource<Namespace>({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  schemaRef: `${CORE}Namespace`,
  definitions: namespaceDefinitions,
  subresources: { status: true },
  // The namespace REST storage has no DeleteCollection.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  columns: [
    nameColumn(),
    { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (o) => o.status?.phase ?? '' },
    ageColumn(),
  ],
  selectableFields: { 'status.phase': (o) => o.status?.phase ?? '' },
  strategy: {
    defaults(ns) {
      ns.spec ??= {};
      ns.status ??= {};
      ns.status.phase ||= 'Active';
      setNameLabel(ns);
    },
    prepareForCreate(ns) {
      ns.status = { phase: 'Active' };
      // Required on create only; the namespace controller removes it over the object's life.
      const fin = ns.spec?.finalizers ?? [];
      ns.spec = { ...ns.spec, finalizers: fin.includes(FINALIZER_KUBERNETES) ? fin : [...fin, FINALIZER_KUBERNETES] };
    },
    prepareForUpdate(ns, old) {
      // spec.finalizers change only through the finalize subresource, status through status.
      ns.spec = { ...ns.spec, finalizers: old.spec?.finalizers };
      if (ns.spec.finalizers === undefined) delete ns.spec.finalizers;
      ns.status = old.status;
    },
    // ValidateNamespaceUpdate adds only metadata checks, which the generic server runs.
    validate: validateNamespace,
    canonicalize: setNameLabel,
    prepareForStatusUpdate(ns, old) {
      ns.spec = old.spec;
    },
    validateStatusUpdate(ns) {
      const phase = ns.status?.phase ?? '';
      if (parseTime(ns.metadata.deletionTimestamp) === undefined) {
        if (phase !== 'Active')
          return [FieldError.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
      } else if (phase !== 'Terminating') {
        return [FieldError.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
      }
      return [];
    },
    validateName: nameIsDNSLabel,
    allowCreateOnUpdate: false,
    // The namespace REST Delete: the first delete only marks it Terminating; the namespace controller empties
    // it, drops spec.finalizers through finalize, and the object goes once they are empty.
    beforeDelete(ns) {
      ns.status = { ...ns.status, phase: 'Terminating' };
    },
    deletionBlocked: (ns) => (ns.spec?.finalizers?.length ?? 0) > 0,
    prepareForFinalize(ns, old) {
      // finalize changes spec.finalizers (and metadata); status stays.
      return { ...ns, status: old.status };
    },
  },
});

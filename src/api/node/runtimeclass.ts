// node.k8s.io/v1 RuntimeClass: schema (k8s.io/api/node/v1/types.go, 1.33), ValidateRuntimeClass(Update)
// (pkg/apis/node/validation), pkg/registry/node/runtimeclass/strategy.go and printRuntimeClass.
import { FieldError, goQuote } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { nameIsDNSLabel, validateLabels } from '../../machinery/validation.js';
import { bare } from '../gofmt.js';
import { roundedQuantity } from '../core/pod/defaults.js';
import { podDefinitions, V1 } from '../core/pod/schema.js';
import type { Toleration } from '../core/pod/types.js';
import { validateResources } from '../core/pod/validation-fields.js';
import { validateTolerations } from '../core/pod/validation-scheduling.js';
import { ageColumn, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export const NODE = 'io.k8s.api.node.v1.';

export interface RuntimeClass extends KObject {
  handler?: string;
  overhead?: { podFixed?: Record<string, string | number> | null } | null;
  scheduling?: { nodeSelector?: Record<string, string> | null; tolerations?: Toleration[] | null } | null;
}

const runtimeClassOwn: Definitions = {
  [NODE + 'RuntimeClass']: s.obj(
    {
      ...kindHeader(),
      handler: s.str('handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class. Must be a lowercase DNS label (RFC 1123). Immutable.', { default: '' }),
      overhead: s.ref(NODE + 'Overhead', 'overhead represents the resource overhead associated with running a pod for a given RuntimeClass. More info: https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/'),
      scheduling: s.ref(NODE + 'Scheduling', 'scheduling holds the scheduling constraints to ensure that pods running with this RuntimeClass are scheduled to nodes that support it. Unset means all nodes support it.'),
    },
    { required: ['handler'], description: 'RuntimeClass defines a class of container runtime supported in the cluster, used to determine which container runtime runs all containers in a pod. More info: https://kubernetes.io/docs/concepts/containers/runtime-class/' },
  ),
  [NODE + 'RuntimeClassList']: listDefinition(NODE + 'RuntimeClass', 'RuntimeClassList is a list of RuntimeClass objects.', 'items is a list of schema objects.'),
  [NODE + 'Overhead']: s.obj(
    { podFixed: s.map(s.quantity(), 'podFixed represents the fixed resource overhead associated with running a pod.') },
    { description: 'Overhead structure represents the resource overhead associated with running a pod.' },
  ),
  [NODE + 'Scheduling']: s.obj(
    {
      nodeSelector: { ...s.strMap('nodeSelector lists labels that must be present on nodes that support this RuntimeClass; it is merged with the nodeSelector of pods using the class, and conflicts reject the pod.'), mapType: 'atomic' },
      tolerations: s.arr(s.ref(V1 + 'Toleration', undefined, { default: {} }), { description: 'tolerations are appended (excluding duplicates) to pods running with this RuntimeClass during admission.' }),
    },
    { description: 'Scheduling specifies the scheduling constraints for nodes supporting a RuntimeClass.' },
  ),
};

/** RuntimeClass definitions plus the core ones its tolerations refer to. */
export const runtimeClassDefinitions: Definitions = { ...podDefinitions, ...runtimeClassOwn };

function goToleration(t: Toleration): string {
  const secs = t.tolerationSeconds === undefined || t.tolerationSeconds === null ? '(*int64)(nil)' : '(*int64)(0xc000000000)';
  return `core.Toleration{Key:${goQuote(t.key ?? '')}, Operator:${goQuote(t.operator ?? '')}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect ?? '')}, TolerationSeconds:${secs}}`;
}

export function validateRuntimeClass(rc: RuntimeClass): FieldError[] {
  const handler = rc.handler ?? '';
  const errs = nameIsDNSLabel(handler, false).map((m) => FieldError.invalid('handler', handler, m));
  if (rc.overhead) errs.push(...validateResources({ limits: rc.overhead.podFixed ?? {} }, 'overhead'));
  const sched = rc.scheduling;
  if (sched) {
    if (sched.nodeSelector) errs.push(...validateLabels(sched.nodeSelector, 'scheduling.nodeSelector'));
    const tolerations = sched.tolerations ?? [];
    errs.push(...validateTolerations(tolerations, 'scheduling.tolerations'));
    const seen = new Set<string>();
    tolerations.forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) errs.push(FieldError.duplicate(`scheduling.tolerations[${i}]`, bare(goToleration(t))));
      else seen.add(key);
    });
  }
  return errs;
}

export const runtimeClassResource = defineResource<RuntimeClass>({
  group: 'node.k8s.io',
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  singular: 'runtimeclass',
  namespaced: false,
  schemaRef: NODE + 'RuntimeClass',
  definitions: runtimeClassDefinitions,
  columns: [
    nameColumn(),
    // Kubernetes takes this description from ObjectMeta's docs, which have no "handler" entry: it is empty.
    { name: 'Handler', type: 'string', description: '', cell: (o) => o.handler ?? '' },
    ageColumn(),
  ],
  strategy: {
    // SetDefaults_ResourceList on overhead.podFixed (sub-milli values round up), in Go's serialised form.
    defaults(rc) {
      const fixed = rc.overhead?.podFixed;
      if (fixed) for (const k of Object.keys(fixed)) fixed[k] = roundedQuantity(fixed[k]) ?? fixed[k];
    },
    validate: validateRuntimeClass,
    validateUpdate: (rc, old) => (rc.handler === old.handler ? [] : [FieldError.invalid('handler', rc.handler ?? '', 'field is immutable')]),
    allowCreateOnUpdate: true,
  },
});

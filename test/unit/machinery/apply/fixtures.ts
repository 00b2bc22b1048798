// Small schemas for the server-side apply tests: a ConfigMap-like and a Pod-like kind.
import { SchemaSet, s, type Schema } from '../../../../src/machinery/schema.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

export const set = new SchemaSet({
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { type: 'string', format: 'date-time' },
  [META]: s.obj({
    name: s.str(),
    namespace: s.str(),
    uid: s.str(),
    resourceVersion: s.str(),
    generation: s.int64(),
    creationTimestamp: s.time(),
    labels: s.strMap(),
    annotations: s.strMap(),
    finalizers: s.strSet(),
    ownerReferences: s.arr(s.obj({ uid: s.str(), name: s.str(), kind: s.str() }), { mergeKey: 'uid' }),
    managedFields: s.arr(s.any()),
  }),
  'test.ConfigMap': s.obj({
    apiVersion: s.str(),
    kind: s.str(),
    metadata: s.ref(META),
    data: s.strMap(),
    binaryData: s.map(s.bytes()),
    immutable: s.bool(),
  }),
  'test.ContainerPort': s.obj({
    containerPort: s.int32(),
    protocol: s.str(undefined, { default: 'TCP' }),
    name: s.str(),
  }),
  'test.Container': s.obj({
    name: s.str(),
    image: s.str(),
    args: s.arr(s.str()),
    ports: s.arr(s.ref('test.ContainerPort'), { mergeKey: 'containerPort', mapKeys: ['containerPort', 'protocol'] }),
    env: s.arr(s.obj({ name: s.str(), value: s.str() }), { mergeKey: 'name' }),
  }),
  'test.PodSpec': s.obj({
    containers: s.arr(s.ref('test.Container'), { mergeKey: 'name' }),
    nodeSelector: s.strMap(),
    selector: s.obj({ matchLabels: s.strMap() }, { mapType: 'atomic' }),
    replicas: s.int32(),
    extra: s.any(),
  }),
  'test.Pod': s.obj({
    apiVersion: s.str(),
    kind: s.str(),
    metadata: s.ref(META),
    spec: s.ref('test.PodSpec'),
    status: s.obj({ phase: s.str() }),
  }),
});

export const cmSchema: Schema = s.ref('test.ConfigMap');
export const podSchema: Schema = s.ref('test.Pod');

export function configMap(data: Record<string, string>, labels?: Record<string, string>): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: 'cm', namespace: 'default' };
  if (labels) metadata.labels = labels;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

export function pod(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec };
}

/** Recursively freezes a value, so tests catch any mutation of inputs. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

// Toy resources shared by the OpenAPI and discovery tests: a namespaced kind with status and scale in two
// versions of a named group, and a cluster-scoped core kind without patch/update (so kubectl validates it
// client-side).
import { defineResource, type ResourceDefinition } from '../../../src/api/types.js';
import { s, SchemaSet, type Definitions } from '../../../src/machinery/schema.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;

export const baseDefinitions: Definitions = {
  [OBJECT_META]: s.obj(
    {
      name: s.str('Name must be unique within a namespace.'),
      namespace: s.str('Namespace defines the space within which each name must be unique.'),
      labels: s.strMap('Map of string keys and values that can be used to organize and categorize objects.'),
      annotations: s.strMap('Annotations is an unstructured key value map.'),
      finalizers: s.strSet('Must be empty before the object is deleted from the registry.', { strategy: 'merge' }),
      creationTimestamp: s.time('CreationTimestamp is a timestamp representing the server time when this object was created.'),
      resourceVersion: s.str('An opaque value that represents the internal version of this object.'),
      uid: s.str('UID is the unique in time and space value for this object.'),
    },
    { description: 'ObjectMeta is metadata that all persisted resources must have.' },
  ),
  [`${META}.Time`]: { type: 'string', format: 'date-time', description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string', description: 'IntOrString is a type that can hold an int32 or a string.' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string', description: 'Quantity is a fixed-point representation of a number.' },
};

const typeMeta = () => ({
  apiVersion: s.str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: s.str('Kind is a string value representing the REST resource this object represents.'),
});
const metadata = () => s.ref(OBJECT_META, 'Standard object metadata.', { default: {} });

const toyV1: Definitions = {
  'com.example.v1.Toy': s.obj(
    {
      ...typeMeta(),
      metadata: metadata(),
      spec: s.ref('com.example.v1.ToySpec', 'Desired state of the toy.', { default: {} }),
      status: s.ref('com.example.v1.ToyStatus', 'Observed state of the toy.', { default: {} }),
    },
    { description: 'Toy is a thing to play with.' },
  ),
  'com.example.v1.ToySpec': s.obj(
    {
      color: s.enumOf(['Blue', 'Green', 'Red'], 'Colour of the toy.'),
      replicas: s.int32('How many copies to keep.'),
      size: s.intOrString('Size: a number or a name.'),
      tags: s.strSet('Free-form tags.'),
      parts: s.arr(s.ref('com.example.v1.ToyPart', undefined, { default: {} }), { mergeKey: 'name', description: 'Parts of the toy, merged by name.' }),
      labels: s.strMap('Labels of the toy.'),
      extra: s.any('Anything at all.'),
      madeAt: s.time('When the toy was made.'),
    },
    { description: 'ToySpec is the desired state of a toy.', required: ['color'] },
  ),
  'com.example.v1.ToyPart': s.obj(
    { name: s.str('Name of the part.', { default: '' }), weight: s.quantity('Weight of the part.') },
    { description: 'ToyPart is one part of a toy.', required: ['name'] },
  ),
  'com.example.v1.ToyStatus': s.obj(
    { ready: s.bool('Whether the toy is ready.'), replicas: s.int32('Copies observed.') },
    { description: 'ToyStatus is the observed state of a toy.', mapType: 'granular' },
  ),
};

const toyV1beta1: Definitions = {
  'com.example.v1beta1.Toy': s.obj(
    { ...typeMeta(), metadata: metadata(), spec: s.ref('com.example.v1beta1.ToySpec', 'Desired state.', { default: {} }) },
    { description: 'Toy (beta) is a thing to play with.' },
  ),
  'com.example.v1beta1.ToySpec': s.obj({ colour: s.str('Colour, beta spelling.') }, { description: 'ToySpec (beta).' }),
};

const widgetDefs: Definitions = {
  'io.k8s.api.core.v1.Widget': s.obj(
    { ...typeMeta(), metadata: metadata(), spec: s.ref('io.k8s.api.core.v1.WidgetSpec', 'Widget specification.', { default: {} }) },
    { description: 'Widget is a cluster-wide gadget.' },
  ),
  'io.k8s.api.core.v1.WidgetSpec': s.obj(
    { size: s.int64('Size in millimetres.'), owner: s.str('Who owns the widget.') },
    { description: 'WidgetSpec describes a widget.' },
  ),
};

const common = { columns: [], strategy: {} };

export const toy = defineResource({
  group: 'example.com',
  version: 'v1',
  kind: 'Toy',
  plural: 'toys',
  singular: 'toy',
  shortNames: ['ty'],
  categories: ['all'],
  namespaced: true,
  schemaRef: 'com.example.v1.Toy',
  definitions: toyV1,
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  ...common,
});

export const toyBeta = defineResource({
  group: 'example.com',
  version: 'v1beta1',
  kind: 'Toy',
  plural: 'toys',
  singular: 'toy',
  namespaced: true,
  schemaRef: 'com.example.v1beta1.Toy',
  definitions: toyV1beta1,
  ...common,
});

export const widget = defineResource({
  group: '',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  namespaced: false,
  schemaRef: 'io.k8s.api.core.v1.Widget',
  definitions: widgetDefs,
  verbs: ['create', 'delete', 'get', 'list', 'watch'],
  ...common,
});

export const resources: ResourceDefinition[] = [toyBeta, widget, toy];

export function schemaSet(): SchemaSet {
  return new SchemaSet(baseDefinitions, ...resources.map((r) => r.definitions));
}

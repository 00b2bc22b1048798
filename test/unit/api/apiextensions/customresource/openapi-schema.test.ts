import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdDefinitionName, crdSchemaDefinitions, toSchema } from '../../../../../src/api/apiextensions/customresource/openapi-schema.js';
import { checkAgainstSchema } from '../../../../../src/machinery/field-validation.js';
import { SchemaSet } from '../../../../../src/machinery/schema.js';
import { atomFor } from '../../../../../src/machinery/apply/schema.js';
import { metaDefinitions } from '../../../../../src/api/meta.js';
import type { JSP } from '../../../../../src/api/apiextensions/structural.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const cronTab: JSP = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^x$', description: 'the schedule' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, default: 1 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { 'x-kubernetes-int-or-string': true } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      },
    },
  },
};

describe('crdSchemaDefinitions', () => {
  it('names the definitions as Kubernetes does: reversed group, version, kind (and list kind)', () => {
    assert.equal(crdDefinitionName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
    assert.equal(crdDefinitionName('foo', 'v1beta1', 'Bar'), 'foo.v1beta1.Bar');
    const { ref, definitions } = crdSchemaDefinitions('stable.example.com', 'v1', 'CronTab', 'CronTabList', cronTab, 'crontabs');
    assert.equal(ref, 'com.example.stable.v1.CronTab');
    assert.deepEqual(Object.keys(definitions), ['com.example.stable.v1.CronTab', 'com.example.stable.v1.CronTabList']);
    const list = definitions['com.example.stable.v1.CronTabList'];
    assert.equal(list.description, 'CronTabList is a list of CronTab');
    assert.deepEqual(list.required, ['items']);
    assert.deepEqual(list.properties?.items.items, { ref });
    assert.match(list.properties?.items.description ?? '', /^List of crontabs\. /);
    assert.equal(list.properties?.metadata.ref, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
  });

  it('adds apiVersion, kind and an ObjectMeta ref as metadata, properties sorted', () => {
    const root = crdSchemaDefinitions('stable.example.com', 'v1', 'CronTab', 'CronTabList', cronTab).definitions['com.example.stable.v1.CronTab'];
    assert.deepEqual(Object.keys(root.properties ?? {}), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.equal(root.properties?.apiVersion.type, 'string');
    assert.equal(root.properties?.metadata.ref, OBJECT_META);
    const spec = root.properties!.spec;
    assert.deepEqual(Object.keys(spec.properties ?? {}), ['cronSpec', 'image', 'labels', 'ports', 'replicas']);
    assert.deepEqual(spec.properties?.cronSpec, { type: 'string', description: 'the schedule' });
    assert.deepEqual(spec.properties?.replicas, { type: 'integer', default: 1 });
    const ports = spec.properties!.ports;
    assert.deepEqual([ports.listType, ports.listMapKeys, ports.items?.required], ['map', ['name'], ['name']]);
    assert.deepEqual(ports.items?.properties?.port, { intOrString: true });
    assert.deepEqual(spec.properties?.labels, { type: 'object', additionalProperties: { type: 'string' }, mapType: 'atomic' });
  });

  it('without a schema publishes a bare object, and a root preserving unknown fields keeps the flag', () => {
    assert.deepEqual(crdSchemaDefinitions('g.io', 'v1', 'K', 'KList', undefined).definitions['io.g.v1.K'], { type: 'object' });
    const root = crdSchemaDefinitions('g.io', 'v1', 'K', 'KList', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }).definitions['io.g.v1.K'];
    assert.equal(root.preserveUnknownFields, true);
    assert.deepEqual(Object.keys(root.properties ?? {}), ['apiVersion', 'kind', 'metadata']);
  });

  it('works for strict field validation and server-side apply', () => {
    const { ref, definitions } = crdSchemaDefinitions('stable.example.com', 'v1', 'CronTab', 'CronTabList', cronTab);
    const set = new SchemaSet(metaDefinitions, definitions);
    const o = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x', foo: 1 }, spec: { image: 'i', bogus: 1 } };
    assert.deepEqual(checkAgainstSchema(o, { ref }, set).unknownFields, ['metadata.foo', 'spec.bogus']);
    const ports = set.resolve({ ref })!.properties!.spec.properties!.ports;
    assert.deepEqual(atomFor(ports, set, []), { kind: 'list', atomic: false, keys: ['name'], elem: ports.items });
    const open = crdSchemaDefinitions('g.io', 'v1', 'K', 'KList', undefined);
    const openSet = new SchemaSet(metaDefinitions, open.definitions);
    assert.deepEqual(checkAgainstSchema({ anything: { goes: 1 } }, { ref: open.ref }, openSet).unknownFields, []);
  });
});

describe('toSchema', () => {
  it('embedded resources get TypeMeta and ObjectMeta, kind and apiVersion required', () => {
    const sc = toSchema({ type: 'object', 'x-kubernetes-embedded-resource': true, required: ['spec'], properties: { spec: { type: 'object' } } });
    assert.equal(sc.embeddedResource, true);
    assert.deepEqual(Object.keys(sc.properties ?? {}), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.equal(sc.properties?.metadata.ref, OBJECT_META);
    assert.deepEqual(sc.required, ['spec', 'kind', 'apiVersion']);
  });

  it('keeps string enums, drops others; additionalProperties true is an open map', () => {
    assert.deepEqual(toSchema({ type: 'string', enum: ['a', 'b'] }).enum, ['a', 'b']);
    assert.equal(toSchema({ type: 'integer', enum: [1, 2] }).enum, undefined);
    assert.deepEqual(toSchema({ type: 'object', additionalProperties: true }), { type: 'object', additionalProperties: {} });
    assert.deepEqual(toSchema({ type: 'object', additionalProperties: false }), { type: 'object' });
  });
});

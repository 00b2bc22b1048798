import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptNames, customResourceDefinitionResource as crdRes, defaultCRD } from '../../../../src/api/apiextensions/index.js';
import { validateCRDSchema } from '../../../../src/api/apiextensions/openapi-validation.js';
import { columnsOf } from '../../../../src/apiserver/handlers/table.js';
import type { KObject } from '../../../../src/api/types.js';

const msgs = (errs: { toString(): string }[]) => errs.map(String);
const schema = (openAPIV3Schema: Record<string, unknown>) => ({ openAPIV3Schema });
const objSchema = () => schema({ type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } });
function crd(spec: Record<string, unknown> = {}, name = 'widgets.example.com'): KObject {
  return {
    metadata: { name },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: objSchema() }],
      ...spec,
    },
  };
}
/** What the server does before validating a create. */
function check(o: KObject): string[] {
  crdRes.strategy.defaults!(o);
  crdRes.strategy.prepareForCreate!(o);
  return msgs(crdRes.strategy.validate!(o));
}

describe('CustomResourceDefinition: definition and defaults', () => {
  it('is cluster-scoped with short names crd/crds, a status subresource and the default table', () => {
    assert.deepEqual([crdRes.plural, crdRes.namespaced, crdRes.shortNames, crdRes.categories, crdRes.hasGeneration], [
      'customresourcedefinitions',
      false,
      ['crd', 'crds'],
      ['api-extensions'],
      true,
    ]);
    assert.deepEqual(crdRes.subresources, { status: true });
    assert.deepEqual(columnsOf(crdRes).map((c) => c.name), ['Name', 'Created At']);
    assert.equal(crdRes.strategy.allowCreateOnUpdate, false);
  });

  it('defaults singular, listKind, conversion and storedVersions', () => {
    const o = crd();
    defaultCRD(o as never);
    const spec = o.spec as Record<string, unknown>;
    assert.deepEqual(spec.names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    assert.deepEqual(o.status, { storedVersions: ['v1'] });
  });

  it('accepts names and establishes like the Kubernetes controllers', () => {
    const o = crd({ names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] } });
    assert.deepEqual(check(o), []);
    acceptNames(o as never, '2024-01-01T00:00:00Z');
    assert.deepEqual(o.status, {
      storedVersions: ['v1'],
      acceptedNames: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', shortNames: ['wd'], singular: 'widget' },
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
    });
  });
});

describe('CustomResourceDefinition: spec validation', () => {
  it('the name must be <plural>.<group>', () => {
    assert.deepEqual(check(crd({}, 'gadgets.example.com')), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']);
  });

  it('reports missing and malformed top-level fields', () => {
    const o: KObject = { metadata: { name: 'x' }, spec: { versions: [] } };
    assert.deepEqual(check(o), [
      'metadata.name: Invalid value: "x": must be spec.names.plural+"."+spec.group',
      'spec.group: Required value',
      'spec.scope: Required value',
      'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one version marked as storage version',
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
      'status.storedVersions: Invalid value: []string{}: must have at least one stored version',
    ]);
    assert.deepEqual(check(crd({ group: 'example', scope: 'Global' }, 'widgets.example')), [
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    ]);
  });

  it('checks names', () => {
    const errs = check(crd({ names: { plural: 'Widgets', kind: 'Wid_get', listKind: 'Wid_get', shortNames: ['w-'], categories: ['All'] } }, 'Widgets.example.com'));
    assert.deepEqual(
      errs.map((e) => e.replace(/: a DNS-1035 label must.*$/, ': <dns-1035>')),
      [
        'spec.names.plural: Invalid value: "Widgets": <dns-1035>',
        'spec.names.singular: Invalid value: "wid_get": <dns-1035>',
        'spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: <dns-1035>',
        'spec.names.listKind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: <dns-1035>',
        'spec.names.shortNames[0]: Invalid value: "w-": <dns-1035>',
        'spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same',
        'spec.names.categories[0]: Invalid value: "All": <dns-1035>',
      ],
    );
  });

  it('requires a schema per version and exactly one storage version with unique names', () => {
    assert.deepEqual(check(crd({ versions: [{ name: 'v1', served: true, storage: true }] })), [
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    ]);
    const two = check(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: objSchema() }, { name: 'v1', served: true, storage: true, schema: objSchema() }] }));
    const version =
      'apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';
    assert.deepEqual(two, [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version}, ${version}}: must contain unique version names`,
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version}, ${version}}: must have exactly one version marked as storage version`,
      // Go deletes each found name from a map, so the second "v1" is reported as missing.
      'status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v1',
    ]);
    assert.deepEqual(check(crd({ versions: [{ name: 'V1', served: true, storage: true, schema: objSchema() }] })).map((e) => e.replace(/: a DNS-1035 label must.*$/, '')), [
      'spec.versions[0].name: Invalid value: "V1"',
      'spec.version: Invalid value: "V1"',
    ]);
  });

  it('reports schema errors at spec.validation when all versions share the schema, else per version', () => {
    const noType = schema({ properties: { spec: { properties: { x: { type: 'string' } } } } });
    assert.deepEqual(check(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: noType }] })), [
      'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
    ]);
    assert.deepEqual(
      check(crd({ versions: [{ name: 'v1', served: true, storage: true, schema: objSchema() }, { name: 'v2', served: false, storage: false, schema: schema({ type: 'string' }) }] })),
      ['spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root'],
    );
  });

  it('validates conversion, subresources and printer columns', () => {
    const errs = check(
      crd({
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'] } },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: objSchema(),
            subresources: { status: {}, scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas' } },
            additionalPrinterColumns: [{ name: 'Size', type: 'int', jsonPath: '' }],
          },
        ],
      }),
    );
    assert.deepEqual(errs, [
      'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
      'spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].JSONPath: Required value',
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ]);
  });

  it('protected groups need an approval annotation', () => {
    assert.deepEqual(check(crd({ group: 'x.k8s.io' }, 'widgets.x.k8s.io')), [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    const ok = crd({ group: 'x.k8s.io' }, 'widgets.x.k8s.io');
    ok.metadata.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' };
    assert.deepEqual(check(ok), []);
    const bypass = crd({ group: 'x.k8s.io' }, 'widgets.x.k8s.io');
    bypass.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental' };
    assert.deepEqual(check(bypass), []);
  });

  it('keeps group and plural, and once established scope and kind', () => {
    const old = crd();
    check(old);
    const o = crd({ group: 'other.com', scope: 'Cluster', names: { plural: 'gadgets', kind: 'Gadget' } });
    assert.deepEqual(msgs(crdRes.strategy.validateUpdate!(o, old)), [
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
    acceptNames(old as never);
    assert.deepEqual(msgs(crdRes.strategy.validateUpdate!(o, old)).slice(0, 2), [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
    ]);
  });

  it('a stored version may not disappear from spec.versions', () => {
    const o = crd({ versions: [{ name: 'v2', served: true, storage: true, schema: objSchema() }] });
    crdRes.strategy.defaults!(o);
    o.status = { storedVersions: ['v1'] };
    crdRes.strategy.prepareForUpdate!(o, o);
    assert.deepEqual(o.status, { storedVersions: ['v1', 'v2'] });
    assert.deepEqual(msgs(crdRes.strategy.validate!(o)), [
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    ]);
  });
});

describe('CustomResourceDefinition: openAPIV3Schema checks', () => {
  const v = (s: Record<string, unknown>, status = false) => msgs(validateCRDSchema({ openAPIV3Schema: s }, status, 'spec.validation'));
  it('structural rules', () => {
    assert.deepEqual(
      v({
        type: 'object',
        additionalProperties: true,
        properties: {
          metadata: { type: 'object', properties: { labels: { type: 'object' } } },
          kind: { type: 'integer' },
          list: { type: 'array' },
          any: { anyOf: [{ type: 'string' }, { description: 'x' }] },
          ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        },
      }),
      [
        'spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root',
        'spec.validation.openAPIV3Schema.properties[any].anyOf[0].type: Forbidden: must be empty to be structural',
        'spec.validation.openAPIV3Schema.properties[any].anyOf[1].description: Forbidden: must be empty to be structural',
        'spec.validation.openAPIV3Schema.properties[any].type: Required value: must not be empty for specified object fields',
        'spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
        'spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified',
        'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      ],
    );
    // additionalProperties: true may sit next to properties; false or a schema may not.
    assert.deepEqual(v({ type: 'object', properties: { a: { type: 'object', additionalProperties: false, properties: { b: { type: 'string' } } } } }), [
      'spec.validation.openAPIV3Schema.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ]);
  });

  it('standard and extension rules', () => {
    assert.deepEqual(
      v({
        type: 'object',
        properties: {
          a: { type: 'null' },
          b: { type: 'array', uniqueItems: true, items: { type: 'string' }, 'x-kubernetes-list-type': 'map' },
          c: { type: 'string', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': false },
          d: { type: 'object', 'x-kubernetes-validations': [{ rule: '' }, { rule: 'self.x', message: 'a\nb', reason: 'Nope' }] },
        },
      }),
      [
        'spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
        'spec.validation.openAPIV3Schema.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative',
        'spec.validation.openAPIV3Schema.properties[b].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
        'spec.validation.openAPIV3Schema.properties[b].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
        `spec.validation.openAPIV3Schema.properties[b].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
        'spec.validation.openAPIV3Schema.properties[c].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
        'spec.validation.openAPIV3Schema.properties[c].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified',
        'spec.validation.openAPIV3Schema.properties[d].x-kubernetes-validations[0].rule: Required value: rule is not specified',
        'spec.validation.openAPIV3Schema.properties[d].x-kubernetes-validations[1].message: Invalid value: "a\\nb": message must not contain line breaks',
        'spec.validation.openAPIV3Schema.properties[d].x-kubernetes-validations[1].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      ],
    );
  });

  it('defaults are forbidden in top-level metadata; root rules with a status subresource', () => {
    assert.deepEqual(v({ type: 'object', properties: { apiVersion: { type: 'string', default: 'v1' } } }), [
      'spec.validation.openAPIV3Schema.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion',
    ]);
    assert.deepEqual(v({ type: 'object', nullable: true }, true).slice(0, 2), [
      'spec.validation.openAPIV3Schema: Invalid value: apiextensions.JSONSchemaProps{...}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
      'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    ]);
    assert.deepEqual(v({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true), []);
  });
});

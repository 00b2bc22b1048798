// A CustomResourceDefinition's served versions as resource definitions: the same generic store serves custom
// objects as built-in kinds, with the strategy of k8s.io/apiextensions-apiserver/pkg/registry/customresource
// (status and scale subresources, generation on any change outside metadata and status, schema and CEL
// validation) and the decoding steps of its handler (pruning, defaulting, also on read).
import { FieldError } from '../../../machinery/errors.js';
import { deepEqual, isPlainObject } from '../../../machinery/object.js';
import { apiVersionOf, type KObject, type ResourceDefinition, type Strategy } from '../../types.js';
import type { CRDVersion, CustomResourceDefinition } from '../validation.js';
import type { JSP } from '../structural.js';
import { validateValue } from './value-validation.js';
import { validateRules } from './cel-rules.js';
import { validateObjectChecks } from './object-checks.js';
import { prune } from './pruning.js';
import { applyDefaults } from './defaulting.js';
import { crdSchemaDefinitions } from './openapi-schema.js';
import { printerColumns } from './printer-columns.js';
import { pruneRootMetadata } from './metadata.js';
import { versionSchemas, webhookConversion, type CustomResourceConverter } from './conversion.js';

export type { CustomResourceConverter };

/**
 * The served versions of an established CRD, the storage version first (the one the GC and namespace controller
 * follow). `convert` calls the CRD's conversion webhook (strategy Webhook); without it versions differ in apiVersion.
 */
export function customResourceDefinitions(crd: CustomResourceDefinition, opts: { convert?: CustomResourceConverter } = {}): ResourceDefinition[] {
  const spec = crd.spec ?? {};
  const names = crd.status?.acceptedNames?.kind ? crd.status.acceptedNames : spec.names ?? {};
  const group = spec.group ?? '';
  const versions = (spec.versions ?? []).filter((v) => v?.served && v.name);
  const storage = (spec.versions ?? []).find((v) => v?.storage)?.name ?? versions[0]?.name ?? '';
  versions.sort((a, b) => Number(b.name === storage) - Number(a.name === storage));
  const terminating = !!crd.metadata.deletionTimestamp;
  const convert = spec.conversion?.strategy === 'Webhook' ? opts.convert : undefined;
  const schemas = convert ? versionSchemas(spec.versions ?? []) : undefined;
  return versions.map((v) => {
    const def = versionDefinition(crd, v, { group, storage, terminating, names });
    if (convert) def.conversion = webhookConversion(convert, { group, version: def.version, storage, schemas: schemas! });
    return def;
  });
}

interface VersionContext {
  group: string;
  storage: string;
  terminating: boolean;
  names: NonNullable<NonNullable<CustomResourceDefinition['spec']>['names']>;
}

function versionDefinition(crd: CustomResourceDefinition, v: CRDVersion, c: VersionContext): ResourceDefinition {
  const version = v.name!;
  const kind = c.names.kind ?? '';
  const schema: JSP | undefined = isPlainObject(v.schema?.openAPIV3Schema) ? (v.schema!.openAPIV3Schema as JSP) : undefined;
  const { ref, definitions } = crdSchemaDefinitions(c.group, version, kind, c.names.listKind ?? `${kind}List`, schema);
  const status = !!v.subresources?.status;
  const scale = v.subresources?.scale;
  const apiVersion = apiVersionOf({ group: c.group, version });
  const storageApiVersion = apiVersionOf({ group: c.group, version: c.storage });
  const selectable: Record<string, (o: KObject) => string | undefined> = {};
  for (const f of v.selectableFields ?? []) {
    if (!f?.jsonPath) continue;
    const path = f.jsonPath.replace(/^\./, '').split('.');
    selectable[path.join('.')] = (o) => fieldString(o, path);
  }
  const def: ResourceDefinition = {
    group: c.group,
    version,
    kind,
    plural: c.names.plural ?? '',
    singular: c.names.singular || kind.toLowerCase(),
    shortNames: c.names.shortNames ?? undefined,
    categories: c.names.categories ?? undefined,
    namespaced: crd.spec?.scope !== 'Cluster',
    schemaRef: ref,
    definitions,
    hasGeneration: true,
    subresources: {
      ...(status ? { status: true } : {}),
      ...(scale?.specReplicasPath && scale.statusReplicasPath
        ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, labelSelectorPath: scale.labelSelectorPath ?? undefined } }
        : {}),
    },
    columns: printerColumns(v.additionalPrinterColumns ?? undefined),
    selectableFields: selectable,
    strategy: strategy(schema, status),
    custom: {
      crdName: crd.metadata.name ?? '',
      terminating: c.terminating,
      prune: (obj) => [...pruneRootMetadata(obj), ...(schema ? prune(obj, schema, true) : [])],
      defaultOnRead: schema ? (obj) => applyDefaults(obj, schema) : undefined,
    },
    deprecationWarning: v.deprecated ? (v.deprecationWarning ?? `${apiVersion} ${kind} is deprecated`) : undefined,
  };
  if (version !== c.storage) {
    // conversion None (and the synchronous reads of metadata under Webhook): only the apiVersion differs
    def.storedAs = {
      group: c.group,
      plural: def.plural,
      toStored: (o) => ({ ...o, apiVersion: storageApiVersion }),
      fromStored: (o) => o,
    };
  }
  return def;
}

function fieldString(o: KObject, path: string[]): string | undefined {
  let cur: unknown = o;
  for (const p of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return undefined;
}

/** The object without metadata and (with a status subresource) status: what moves metadata.generation. */
function content(o: KObject, status: boolean): Record<string, unknown> {
  const { metadata: _m, ...rest } = o;
  if (status) delete rest.status;
  return rest;
}

function strategy(schema: JSP | undefined, status: boolean): Strategy<KObject> {
  const rules = !!schema && hasRules(schema);
  const validate = (obj: KObject, old?: KObject): FieldError[] => {
    if (!schema) return [];
    const errs = [...validateValue(obj, schema, ''), ...validateObjectChecks(obj, schema)];
    if (!rules) return errs;
    // CEL rules cannot run over values of the wrong type or outside an enum: Kubernetes says so instead
    if (errs.some((e) => e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueNotSupported')) {
      errs.push(FieldError.invalid('<nil>', null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
    } else errs.push(...validateRules(obj, old, schema, { withinBounds: !errs.length }));
    return errs;
  };
  return {
    defaults: schema ? (obj) => applyDefaults(obj, schema) : undefined,
    prepareForCreate(obj) {
      if (status) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      if (!status) return;
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    },
    validate: (obj) => validate(obj),
    validateUpdate: (obj, old) => validate(obj, old),
    validateStatusUpdate: (obj, old) => validate(obj, old),
    generationChanged: (obj, old) => !deepEqual(content(obj, status), content(old, status)),
    allowCreateOnUpdate: false,
  };
}

/** Whether any level of the schema carries x-kubernetes-validations (Kubernetes builds a CEL validator then). */
function hasRules(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasRules);
  if (!isPlainObject(s)) return false;
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length) return true;
  return Object.values(s).some((v) => typeof v === 'object' && v !== null && hasRules(v));
}

// CustomResourceDefinition validation as k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/
// validation.go (Kubernetes 1.33). Kubernetes validates the internal form, into which v1 converts by hoisting
// per-version schemas, subresources and printer columns to the top level when all versions agree; error paths
// follow that form (e.g. spec.validation.openAPIV3Schema.type for a single-version CRD).
import { FieldError, goQuote } from '../../machinery/errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../machinery/validation.js';
import { validateClientConfig, type ClientConfig } from '../admissionregistration/webhook-client.js';
import { validateCRDSchema, schemaHasDefaults } from './openapi-validation.js';
import { isObj, type JSP } from './structural.js';
import { jsonEqual } from '../format.js';
import { goBool, goPtr, goSlice, goStr, goStruct, GoValue } from '../rbac/gostring.js';
import type { KObject } from '../types.js';

export interface CRDNames {
  plural?: string;
  singular?: string;
  shortNames?: string[] | null;
  kind?: string;
  listKind?: string;
  categories?: string[] | null;
}

export interface CRDVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string | null;
  schema?: JSP | null;
  subresources?: { status?: JSP | null; scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string | null } | null } | null;
  additionalPrinterColumns?: Array<{ name?: string; type?: string; format?: string; description?: string; priority?: number; jsonPath?: string }> | null;
  selectableFields?: Array<{ jsonPath?: string }> | null;
}

export interface CRDCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinition extends KObject {
  spec?: {
    group?: string;
    names?: CRDNames;
    scope?: string;
    versions?: CRDVersion[] | null;
    conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig | null; conversionReviewVersions?: string[] | null } | null } | null;
    preserveUnknownFields?: boolean;
  };
  status?: { conditions?: CRDCondition[] | null; acceptedNames?: CRDNames; storedVersions?: string[] | null };
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

const dns1035 = (v: string) => isDNS1035Label(v).join(',');

/** The internal form's top-level (hoisted) value of a per-version field, if every version has the same one. */
function hoisted<K extends keyof CRDVersion>(versions: CRDVersion[], key: K): { same: boolean; value: CRDVersion[K] | undefined } {
  if (versions.length === 0) return { same: false, value: undefined };
  const first = versions[0][key] ?? undefined;
  return { same: versions.every((v) => jsonEqual(v[key] ?? null, first ?? null)), value: first };
}

/** %#v of the internal versions (hoisted fields are nil there), the bad value of the versions-wide errors. */
function goVersions(versions: CRDVersion[], hoist: { schema: boolean; subresources: boolean; columns: boolean }): GoValue {
  const T = 'apiextensions.CustomResourceDefinitionVersion';
  return new GoValue(
    goSlice(
      T,
      versions.map((v) =>
        goStruct(T, [
          ['Name', goStr(v.name)],
          ['Served', goBool(v.served)],
          ['Storage', goBool(v.storage)],
          ['Deprecated', goBool(v.deprecated)],
          ['DeprecationWarning', goPtr('string', v.deprecationWarning != null)],
          ['Schema', goPtr('apiextensions.CustomResourceValidation', !hoist.schema && v.schema != null)],
          ['Subresources', goPtr('apiextensions.CustomResourceSubresources', !hoist.subresources && v.subresources != null)],
          [
            'AdditionalPrinterColumns',
            goSlice('apiextensions.CustomResourceColumnDefinition', !hoist.columns && v.additionalPrinterColumns?.length ? v.additionalPrinterColumns.map(() => '{...}') : undefined),
          ],
          ['SelectableFields', goSlice('apiextensions.SelectableField', v.selectableFields?.length ? v.selectableFields.map(() => '{...}') : undefined)],
        ]).toString(),
      ),
    ),
  );
}

export function validateNames(n: CRDNames | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = n ?? {};
  const check = (k: 'plural' | 'singular', v = names[k] ?? '') => {
    if (v && dns1035(v)) errs.push(FieldError.invalid(`${path}.${k}`, v, dns1035(v)));
  };
  check('plural');
  check('singular');
  for (const k of ['kind', 'listKind'] as const) {
    const v = names[k] ?? '';
    if (v && dns1035(v.toLowerCase())) errs.push(FieldError.invalid(`${path}.${k}`, v, `may have mixed case, but should otherwise match: ${dns1035(v.toLowerCase())}`));
  }
  (names.shortNames ?? []).forEach((s, i) => {
    if (dns1035(s)) errs.push(FieldError.invalid(`${path}.shortNames[${i}]`, s, dns1035(s)));
  });
  if (names.kind && names.kind === names.listKind) errs.push(FieldError.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => {
    if (dns1035(c)) errs.push(FieldError.invalid(`${path}.categories[${i}]`, c, dns1035(c)));
  });
  return errs;
}

function simpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [FieldError.invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [FieldError.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CRDVersion['subresources'], path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const check = (key: 'specReplicasPath' | 'statusReplicasPath', prefix: string, where: string) => {
    const v = scale[key] ?? '';
    const p = `${path}.scale.${key}`;
    if (!v) return errs.push(FieldError.required(p));
    const e = simpleJSONPath(v, p);
    if (e.length) errs.push(...e);
    else if (!v.startsWith(prefix)) errs.push(FieldError.invalid(p, v, `should be a json path under ${where}`));
  };
  check('specReplicasPath', '.spec.', '.spec');
  check('statusReplicasPath', '.status.', '.status');
  const ls = scale.labelSelectorPath;
  if (ls) {
    const p = `${path}.scale.labelSelectorPath`;
    const e = simpleJSONPath(ls, p);
    if (e.length) errs.push(...e);
    else if (!ls.startsWith('.spec.') && !ls.startsWith('.status.')) errs.push(FieldError.invalid(p, ls, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

function validateColumns(cols: CRDVersion['additionalPrinterColumns'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  (cols ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    if (!c?.name) errs.push(FieldError.required(`${p}.name`));
    const types = `must be one of ${COLUMN_TYPES.join(',')}`;
    if (!c?.type) errs.push(FieldError.required(`${p}.type`, types));
    else if (!COLUMN_TYPES.includes(c.type)) errs.push(FieldError.invalid(`${p}.type`, c.type, types));
    if (c?.format && !COLUMN_FORMATS.includes(c.format)) errs.push(FieldError.invalid(`${p}.format`, c.format, `must be one of ${COLUMN_FORMATS.join(',')}`));
    // The internal field is JSONPath, and so is the reported path.
    if (!c?.jsonPath) errs.push(FieldError.required(`${p}.JSONPath`));
    else errs.push(...simpleJSONPath(c.jsonPath, `${p}.JSONPath`));
  });
  return errs;
}

function validateDeprecationWarning(v: CRDVersion, path: string): FieldError[] {
  const w = v.deprecationWarning;
  if (!v.deprecated && w != null) return [FieldError.invalid(path, w, 'can only be set for deprecated versions')];
  if (w == null) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(w) > 256) errs.push('must be <= 256 characters long');
  if (w.length === 0) errs.push('must not be an empty string');
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u001f\u007f-\u009f]/.exec(w);
  if (bad) errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${Buffer.byteLength(w.slice(0, bad.index))}`);
  return errs.map((m) => FieldError.invalid(path, w, m));
}

function validateConversion(conv: NonNullable<CustomResourceDefinition['spec']>['conversion'], path: string): FieldError[] {
  if (!conv) return [];
  const errs: FieldError[] = [];
  const strategy = conv.strategy ?? '';
  if (!strategy) errs.push(FieldError.required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(FieldError.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const cc = conv.webhook?.clientConfig;
  const versions = conv.webhook?.conversionReviewVersions ?? [];
  // The internal form has webhookClientConfig and conversionReviewVersions directly under conversion.
  if (strategy === 'Webhook') {
    if (!cc) errs.push(FieldError.required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else errs.push(...validateClientConfig(`${path}.webhookClientConfig`, cc));
    const vp = `${path}.conversionReviewVersions`;
    if (versions.length === 0) errs.push(FieldError.required(vp));
    else {
      const seen = new Set<string>();
      let accepted = false;
      versions.forEach((v, i) => {
        if (seen.has(v)) return errs.push(FieldError.invalid(`${vp}[${i}]`, v, 'duplicate version'));
        seen.add(v);
        for (const m of isDNS1035Label(v)) errs.push(FieldError.invalid(`${vp}[${i}]`, v, m));
        if (REVIEW_VERSIONS.includes(v)) accepted = true;
      });
      if (!accepted) errs.push(FieldError.invalid(vp, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
    }
  } else {
    if (cc) errs.push(FieldError.forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (versions.length > 0) errs.push(FieldError.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateSpec(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? {};
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (!group) errs.push(FieldError.required('spec.group'));
  else if (isDNS1123Subdomain(group).length) errs.push(FieldError.invalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(FieldError.invalid('spec.group', group, 'should be a domain with at least one dot'));
  const scope = spec.scope ?? '';
  if (!scope) errs.push(FieldError.required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(FieldError.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  const versions = spec.versions ?? [];
  const schema = hoisted(versions, 'schema');
  const subres = hoisted(versions, 'subresources');
  const columns = hoisted(versions, 'additionalPrinterColumns');
  const topSchema = schema.same ? schema.value : undefined;
  if (!topSchema || !isObj(topSchema.openAPIV3Schema))
    versions.forEach((v, i) => {
      if (!v.schema || !isObj(v.schema.openAPIV3Schema)) errs.push(FieldError.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  if (spec.preserveUnknownFields && versions.some((v) => schemaHasDefaults(v.schema?.openAPIV3Schema)))
    errs.push(FieldError.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  const anyStatus = versions.some((v) => v.subresources?.status != null);
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (v.storage) storage++;
    if (seen.has(v.name ?? '')) unique = false;
    seen.add(v.name ?? '');
    if (dns1035(v.name ?? '')) errs.push(FieldError.invalid(`${p}.name`, v.name ?? '', dns1035(v.name ?? '')));
    errs.push(...validateDeprecationWarning(v, `${p}.deprecationWarning`));
    const statusEnabled = (subres.same ? subres.value : v.subresources)?.status != null;
    if (!schema.same) errs.push(...validateCRDSchema(v.schema ?? undefined, statusEnabled, `${p}.schema`));
    if (!subres.same) errs.push(...validateSubresources(v.subresources, `${p}.subresources`));
    if (!columns.same) errs.push(...validateColumns(v.additionalPrinterColumns, `${p}.additionalPrinterColumns`));
  });
  const hoist = { schema: schema.same, subresources: subres.same, columns: columns.same };
  if (!unique) errs.push(FieldError.invalid('spec.versions', goVersions(versions, hoist), 'must contain unique version names'));
  if (storage !== 1) errs.push(FieldError.invalid('spec.versions', goVersions(versions, hoist), 'must have exactly one version marked as storage version'));
  // The internal spec.version is the first version's name, and is validated again under that path.
  const first = versions[0]?.name ?? '';
  if (first && dns1035(first)) errs.push(FieldError.invalid('spec.version', first, dns1035(first)));
  const names = spec.names ?? {};
  if (!names.plural) errs.push(FieldError.required('spec.names.plural'));
  if (!names.singular) errs.push(FieldError.required('spec.names.singular'));
  if (!names.kind) errs.push(FieldError.required('spec.names.kind'));
  if (!names.listKind) errs.push(FieldError.required('spec.names.listKind'));
  errs.push(...validateNames(names, 'spec.names'));
  if (schema.same) errs.push(...validateCRDSchema(topSchema ?? undefined, anyStatus, 'spec.validation'));
  if (subres.same) errs.push(...validateSubresources(subres.value, 'spec.subresources'));
  if (columns.same) errs.push(...validateColumns(columns.value, 'spec.additionalPrinterColumns'));
  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields)
    errs.push(FieldError.invalid('spec.conversion.strategy', spec.conversion.strategy ?? '', 'must be None if spec.preserveUnknownFields is true'));
  errs.push(...validateConversion(spec.conversion, 'spec.conversion'));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = 'status.storedVersions';
  if (stored.length === 0) return [FieldError.invalid(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of crd.spec?.versions ?? []) {
    const has = remaining.has(v.name ?? '');
    if (v.storage && !has) errs.push(FieldError.invalid(path, stored, `must have the storage version ${v.name ?? ''}`));
    remaining.delete(v.name ?? '');
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1]))
    errs.push(
      FieldError.invalid(
        `${path}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  return errs;
}

const APPROVAL = 'api-approved.kubernetes.io';

/** validateAPIApproval: groups under k8s.io and kubernetes.io need an approval annotation. */
function validateAPIApproval(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const g = crd.spec?.group ?? '';
  if (!(g === 'k8s.io' || g.endsWith('.k8s.io') || g === 'kubernetes.io' || g.endsWith('.kubernetes.io'))) return [];
  const state = (a: Record<string, string> | undefined) => {
    const v = a?.[APPROVAL] ?? '';
    if (!v) return 'missing';
    if (v.startsWith('unapproved')) return 'bypassed';
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]+/.test(v) ? 'approved' : 'invalid';
  };
  const now = state(crd.metadata.annotations);
  if (old && state(old.metadata.annotations) === now) return [];
  const path = `metadata.annotations[${APPROVAL}]`;
  if (now === 'missing')
    return [FieldError.required(path, `protected groups must have approval annotation ${goQuote(APPROVAL)}, see https://github.com/kubernetes/enhancements/pull/1111`)];
  if (now === 'invalid')
    return [
      FieldError.invalid(
        path,
        crd.metadata.annotations?.[APPROVAL] ?? '',
        `protected groups must have approval annotation ${goQuote(APPROVAL)} with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  return [];
}

/** ValidateCustomResourceDefinition minus the generic metadata checks (the name rule is added here). */
export function validateCRD(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const name = crd.metadata.name ?? '';
  const required = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  // Kubernetes adds this to the name check, after the DNS-1123 subdomain messages the generic server reports.
  if (name && name !== required) errs.push(FieldError.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(crd));
  errs.push(...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'));
  errs.push(...validateStoredVersions(crd));
  errs.push(...validateAPIApproval(crd, old));
  if (crd.spec?.preserveUnknownFields && !old?.spec?.preserveUnknownFields)
    errs.push(
      FieldError.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'),
    );
  return errs;
}

/** validateCustomResourceDefinitionSpecUpdate's own checks. */
export function validateCRDUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const established = (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  const immutable = (path: string, a: string | undefined, b: string | undefined) => {
    if ((a ?? '') !== (b ?? '')) errs.push(FieldError.invalid(path, a ?? '', 'field is immutable'));
  };
  if (established) {
    immutable('spec.scope', crd.spec?.scope, old.spec?.scope);
    immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind);
  }
  immutable('spec.group', crd.spec?.group, old.spec?.group);
  immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural);
  return errs;
}

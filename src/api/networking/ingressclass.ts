// networking.k8s.io/v1 IngressClass: pkg/registry/networking/ingressclass/strategy.go, ValidateIngressClass(Update)
// in pkg/apis/networking/validation/validation.go, SetDefaults_IngressClass, printIngressClass.
import { FieldError } from '../../machinery/errors.js';
import { byteLength, isDNS1123Subdomain, isValidPathSegmentName, validateNamespaceName } from '../../machinery/validation.js';
import { ageColumn, CELL_NONE, nameColumn } from '../format.js';
import { ingressDefinitions, NET, type IngressClass, type IngressClassParametersReference } from './ingress/schema.js';
import { isCreate, isDomainPrefixedPath } from './util.js';
import { defineResource } from '../types.js';

/** Annotation marking the default class; the admission step that assigns it to new Ingresses reads it. */
export const ANNOTATION_IS_DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];

const invalidEach = (path: string, value: unknown, msgs: string[]) => msgs.map((m) => FieldError.invalid(path, value, m));

function validateParameters(p: IngressClassParametersReference | null | undefined, path: string): FieldError[] {
  if (p == null) return [];
  const errs: FieldError[] = [];
  if (p.apiGroup != null) errs.push(...invalidEach(`${path}.apiGroup`, p.apiGroup, isDNS1123Subdomain(p.apiGroup)));
  for (const f of ['kind', 'name'] as const) {
    const v = p[f] ?? '';
    if (v === '') errs.push(FieldError.required(`${path}.${f}`, ''));
    else errs.push(...invalidEach(`${path}.${f}`, v, isValidPathSegmentName(v)));
  }
  if (p.scope == null) {
    errs.push(FieldError.required(`${path}.scope`, ''));
    return errs;
  }
  if (!SCOPES.includes(p.scope)) {
    errs.push(FieldError.notSupported(`${path}.scope`, p.scope, SCOPES));
    return errs;
  }
  if (p.scope === 'Namespace') {
    if (p.namespace == null) errs.push(FieldError.required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else errs.push(...invalidEach(`${path}.namespace`, p.namespace, validateNamespaceName(p.namespace, false)));
  }
  if (p.scope === 'Cluster' && p.namespace != null) errs.push(FieldError.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

function validateSpec(ic: IngressClass): FieldError[] {
  const controller = ic.spec?.controller ?? '';
  const errs: FieldError[] = [];
  if (byteLength(controller) > MAX_CONTROLLER_LENGTH) errs.push(FieldError.tooLong('spec.controller', controller, MAX_CONTROLLER_LENGTH));
  errs.push(...isDomainPrefixedPath('spec.controller', controller));
  errs.push(...validateParameters(ic.spec?.parameters, 'spec.parameters'));
  return errs;
}

/** printIngressClass: `Kind[.apiGroup]/name` or <none>. */
function formatParameters(p: IngressClassParametersReference | null | undefined): string {
  if (p == null) return CELL_NONE;
  return `${p.kind ?? ''}${p.apiGroup != null ? '.' + p.apiGroup : ''}/${p.name ?? ''}`;
}

export const ingressClassResource = defineResource<IngressClass>({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'IngressClass',
  plural: 'ingressclasses',
  singular: 'ingressclass',
  namespaced: false,
  schemaRef: `${NET}IngressClass`,
  definitions: ingressDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', cell: (o) => o.spec?.controller ?? '' },
    { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', cell: (o) => formatParameters(o.spec?.parameters) },
    ageColumn(),
  ],
  strategy: {
    defaults(ic) {
      ic.spec ??= {};
      const p = ic.spec.parameters;
      if (p && p.scope == null) p.scope = 'Cluster';
    },
    // ValidateIngressClassUpdate checks immutability before the spec, so updates validate entirely in validateUpdate.
    validate: (ic) => (isCreate(ic) ? validateSpec(ic) : []),
    validateUpdate(ic, old) {
      const errs: FieldError[] = [];
      const controller = ic.spec?.controller ?? '';
      if (controller !== (old.spec?.controller ?? '')) errs.push(FieldError.invalid('spec.controller', controller, 'field is immutable'));
      return [...errs, ...validateSpec(ic)];
    },
    allowCreateOnUpdate: false,
  },
});

// networking.k8s.io/v1 Ingress: pkg/registry/networking/ingress/strategy.go, validation in
// validation.ts, printIngress in pkg/printers/internalversion/printers.go. networking/v1 has no
// Ingress defaulters (pathType must be given).
import { compareGoStrings } from '../../../machinery/validation.js';
import { ageColumn, CELL_NONE, nameColumn } from '../../format.js';
import { NET, type Ingress, type IngressRule, ingressDefinitions } from './schema.js';
import {
  ANNOTATION_INGRESS_CLASS,
  updateOptions,
  validateIngressClassAnnotation,
  validateIngressSpec,
  validateIngressStatus,
} from './validation.js';
import { isCreate, orEmpty } from '../util.js';
import { defineResource } from '../../types.js';

/** printers.go formatHosts: up to three hosts, then "+ N more..." (N counts rules, as Kubernetes does). */
export function formatIngressHosts(rules: IngressRule[] | null | undefined): string {
  const list: string[] = [];
  const max = 3;
  let more = false;
  const all = orEmpty(rules);
  for (const rule of all) {
    if (list.length === max) more = true;
    if (!more && rule.host) list.push(rule.host);
  }
  if (!list.length) return '*';
  return more ? `${list.join(',')} + ${all.length - max} more...` : list.join(',');
}

/** ingressLoadBalancerStatusStringer with wide output (server-side tables are always generated wide). */
export function formatIngressAddress(ing: Ingress): string {
  const set = new Set<string>();
  for (const lb of orEmpty(ing.status?.loadBalancer?.ingress)) {
    if (lb?.ip) set.add(lb.ip);
    else if (lb?.hostname) set.add(lb.hostname);
  }
  return [...set].sort(compareGoStrings).join(',');
}

/** Lists Go omits when empty (`omitempty`): decoding and re-encoding drops them. */
function dropEmptyLists(o: Record<string, unknown> | null | undefined, ...keys: string[]): void {
  if (!o) return;
  for (const k of keys) if (Array.isArray(o[k]) && (o[k] as unknown[]).length === 0) delete o[k];
}

function normalize(ing: Ingress): void {
  const spec = (ing.spec ??= {});
  dropEmptyLists(spec as Record<string, unknown>, 'rules', 'tls');
  for (const rule of orEmpty(spec.rules)) {
    for (const p of orEmpty(rule?.http?.paths)) {
      // backend and the service port are Go structs, always serialised.
      if (p && typeof p === 'object') {
        p.backend ??= {};
        if (p.backend.service) p.backend.service.port ??= {};
      }
    }
  }
  if (spec.defaultBackend?.service) spec.defaultBackend.service.port ??= {};
  for (const t of orEmpty(spec.tls)) dropEmptyLists(t as Record<string, unknown>, 'hosts');
  ing.status ??= {};
  ing.status.loadBalancer ??= {};
  dropEmptyLists(ing.status.loadBalancer as Record<string, unknown>, 'ingress');
}

export const ingressResource = defineResource<Ingress>({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  singular: 'ingress',
  shortNames: ['ing'],
  namespaced: true,
  schemaRef: `${NET}Ingress`,
  definitions: ingressDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: [
    nameColumn(),
    {
      name: 'Class',
      type: 'string',
      description: 'The name of the IngressClass resource that should be used for additional configuration',
      cell: (o) => o.spec?.ingressClassName ?? CELL_NONE,
    },
    {
      name: 'Hosts',
      type: 'string',
      description: 'Hosts that incoming requests are matched against before the ingress rule',
      cell: (o) => formatIngressHosts(o.spec?.rules),
    },
    {
      name: 'Address',
      type: 'string',
      description: 'Address is a list containing ingress points for the load-balancer',
      cell: (o) => formatIngressAddress(o),
    },
    {
      name: 'Ports',
      type: 'string',
      description: 'Ports of TLS configurations that open',
      cell: (o) => (orEmpty(o.spec?.tls).length ? '80, 443' : '80'),
    },
    ageColumn(),
  ],
  strategy: {
    defaults: normalize,
    prepareForCreate(ing) {
      ing.status = { loadBalancer: {} };
    },
    // Create and update validate with different options (updates tolerate invalid data already stored).
    validate: (ing) => (isCreate(ing) ? [...validateIngressSpec(ing.spec ?? {}), ...validateIngressClassAnnotation(ing)] : []),
    validateUpdate: (ing, old) => validateIngressSpec(ing.spec ?? {}, updateOptions(old)),
    validateStatusUpdate: (ing) => validateIngressStatus(ing),
    warnings(ing, old) {
      if (old || ing.metadata.annotations?.[ANNOTATION_INGRESS_CLASS] === undefined || ing.spec?.ingressClassName != null) return [];
      return [`annotation "${ANNOTATION_INGRESS_CLASS}" is deprecated, please use 'spec.ingressClassName' instead`];
    },
    allowCreateOnUpdate: false,
  },
});

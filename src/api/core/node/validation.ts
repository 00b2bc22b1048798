// Node validation: ValidateNode and ValidateNodeUpdate (pkg/apis/core/validation/validation.go, 1.33). Taints are
// reported under metadata.taints, as Kubernetes does.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { isValidLabelValue, validateLabelName } from '../../../machinery/validation.js';
import { bare } from '../pod/validation-util.js';
import { quantityAt, validateResourceQuantityValue } from '../resourcequota/names.js';
import { parseCIDR, validCIDR } from '../service/net.js';
import type { KObject } from '../../types.js';

export interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string | null;
}

export interface Node extends KObject {
  spec?: {
    podCIDR?: string;
    podCIDRs?: string[] | null;
    providerID?: string;
    unschedulable?: boolean;
    taints?: Taint[] | null;
    configSource?: { configMap?: Record<string, unknown> | null } | null;
    externalID?: string;
    [k: string]: unknown;
  };
  status?: {
    capacity?: Record<string, unknown>;
    allocatable?: Record<string, unknown>;
    conditions?: { type?: string; status?: string; [k: string]: unknown }[] | null;
    addresses?: { type?: string; address?: string }[] | null;
    nodeInfo?: Record<string, unknown>;
    config?: unknown;
    [k: string]: unknown;
  };
}

const TAINTS_ANNOTATION = 'scheduler.alpha.kubernetes.io/taints';
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** A core.Taint as Go's %#v prints it (the bad value of a duplicate taint). */
function goTaint(t: Taint): { toString(): string } {
  const added = t.timeAdded ? '(*v1.Time)(0xc000000000)' : '(*v1.Time)(nil)';
  return bare(`core.Taint{Key:${goQuote(t.key ?? '')}, Value:${goQuote(t.value ?? '')}, Effect:${goQuote(t.effect ?? '')}, TimeAdded:${added}}`);
}

export function validateNodeTaints(taints: Taint[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateLabelName(t.key ?? '', `${p}.key`));
    const bad = isValidLabelValue(t.value ?? '');
    if (bad.length) errs.push(FieldError.invalid(`${p}.value`, t.value ?? '', bad.join(';')));
    const effect = t.effect ?? '';
    if (!effect) errs.push(FieldError.required(`${p}.effect`));
    else if (!EFFECTS.includes(effect)) errs.push(FieldError.notSupported(`${p}.effect`, effect, EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(t.key ?? '')) {
      errs.push(new FieldError('FieldValueDuplicate', p, goTaint(t), 'taints must be unique by key and effect pair'));
      return;
    }
    keys.add(t.key ?? '');
    seen.set(effect, keys);
  });
  return errs;
}

/** ValidateNodeSpecificAnnotations: the legacy taints annotation must hold valid taints. */
function validateNodeAnnotations(node: Node): FieldError[] {
  const raw = node.metadata.annotations?.[TAINTS_ANNOTATION];
  if (!raw) return [];
  let taints: unknown;
  try {
    taints = JSON.parse(raw);
  } catch (e) {
    return [FieldError.invalid('metadata.annotations', TAINTS_ANNOTATION, (e as Error).message)];
  }
  if (!Array.isArray(taints)) return [FieldError.invalid('metadata.annotations', TAINTS_ANNOTATION, 'json: cannot unmarshal into Go value of type []core.Taint')];
  return validateNodeTaints(taints as Taint[], `metadata.annotations.${TAINTS_ANNOTATION}`);
}

/** ValidateNodeResources: capacity and allocatable, reported at status.capacity.<name>. */
function validateNodeResources(node: Node): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable'] as const) {
    for (const [k, v] of Object.entries(node.status?.[list] ?? {})) {
      const p = `status.${list}.${k}`;
      const q = quantityAt(v, p, errs);
      if (q) errs.push(...validateResourceQuantityValue(k, q, p));
    }
  }
  return errs;
}

export function validateNode(node: Node): FieldError[] {
  const errs = validateNodeAnnotations(node);
  if (node.spec?.taints?.length) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  errs.push(...validateNodeResources(node));
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length) {
    cidrs.forEach((c, i) => errs.push(...validCIDR(c, `spec.podCIDRs[${i}]`)));
    if (cidrs.length > 1) {
      const families = new Set(cidrs.map((c) => parseCIDR(c)?.family));
      if (cidrs.length > 2 || families.size !== 2 || families.has(undefined)) {
        errs.push(FieldError.invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
      }
    }
  }
  return errs;
}

function validateConfigSource(src: NonNullable<NonNullable<Node['spec']>['configSource']>): FieldError[] {
  const path = 'spec.configSource';
  const cm = src.configMap;
  if (!cm) return [FieldError.invalid(path, bare('&core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}'), 'exactly one reference subfield must be non-nil')];
  const errs: FieldError[] = [];
  const p = `${path}.configMap`;
  if (cm.uid) errs.push(FieldError.forbidden(`${p}.uid`, 'uid must not be set in spec'));
  if (cm.resourceVersion) errs.push(FieldError.forbidden(`${p}.resourceVersion`, 'resourceVersion must not be set in spec'));
  if (!cm.namespace) errs.push(FieldError.required(`${p}.namespace`, 'namespace must be set'));
  if (!cm.name) errs.push(FieldError.required(`${p}.name`, 'name must be set'));
  if (!cm.kubeletConfigKey) errs.push(FieldError.required(`${p}.kubeletConfigKey`, 'kubeletConfigKey must be set'));
  return errs;
}

const goAddress = (a: { type?: string; address?: string }) => bare(`core.NodeAddress{Type:${goQuote(a.type ?? '')}, Address:${goQuote(a.address ?? '')}}`);

/** The checks of ValidateNodeUpdate that compare with the old node (the rest is ValidateNode again). */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const k = `${a.type ?? ''}\u0000${a.address ?? ''}`;
    if (seen.has(k)) errs.push(FieldError.duplicate(`status.addresses[${i}]`, goAddress(a)));
    seen.add(k);
  });
  const before = old.spec?.podCIDRs ?? [];
  const after = node.spec?.podCIDRs ?? [];
  const cidrMsg = 'node updates may not change podCIDR except from "" to valid';
  if (before.length) {
    if (before.length !== after.length) errs.push(FieldError.forbidden('spec.podCIDRs', cidrMsg));
    else before.forEach((c, i) => c !== after[i] && errs.push(FieldError.forbidden('spec.podCIDRs', cidrMsg)));
  }
  if (old.spec?.providerID && old.spec.providerID !== node.spec?.providerID) {
    errs.push(FieldError.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (node.spec?.configSource) errs.push(...validateConfigSource(node.spec.configSource));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errs.push(FieldError.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

/** The status subresource runs ValidateNodeUpdate alone: annotations, resources, taints and the update checks. */
export function validateNodeStatusUpdate(node: Node, old: Node): FieldError[] {
  const errs = validateNodeAnnotations(node);
  errs.push(...validateNodeResources(node));
  errs.push(...validateNodeUpdate(node, old));
  if (node.spec?.taints?.length) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  return errs;
}

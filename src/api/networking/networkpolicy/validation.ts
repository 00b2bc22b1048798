// NetworkPolicy validation: ValidateNetworkPolicy(Spec/Port/Peer/Update) and ValidateIPBlock in
// pkg/apis/networking/validation/validation.go; CIDR warnings as the 1.33 strategy returns them.
import { FieldError } from '../../../machinery/errors.js';
import { type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { isValidPortName, isValidPortNum } from '../../core/pod/validation-util.js';
import { cidrContains, cidrWarnings, parseCIDR } from '../ip.js';
import { goStringSlice, orEmpty } from '../util.js';
import type { KObject } from '../../types.js';

export interface NetworkPolicyPort {
  protocol?: string | null;
  port?: number | string | null;
  endPort?: number | null;
}
export interface IPBlock {
  cidr?: string;
  except?: string[] | null;
}
export interface NetworkPolicyPeer {
  podSelector?: MetaLabelSelector | null;
  namespaceSelector?: MetaLabelSelector | null;
  ipBlock?: IPBlock | null;
}
export interface NetworkPolicyRule {
  ports?: NetworkPolicyPort[] | null;
  from?: NetworkPolicyPeer[] | null;
  to?: NetworkPolicyPeer[] | null;
}
export interface NetworkPolicySpec {
  podSelector?: MetaLabelSelector;
  ingress?: NetworkPolicyRule[] | null;
  egress?: NetworkPolicyRule[] | null;
  policyTypes?: string[] | null;
}
export interface NetworkPolicy extends KObject {
  spec?: NetworkPolicySpec;
}

export interface NetworkPolicyValidationOptions {
  allowInvalidLabelValueInSelector?: boolean;
  /** CIDRs already stored in the object: accepted without revalidation */
  allowCIDRs?: string[];
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const CIDR_EXAMPLE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

export function validateNetworkPolicyPort(port: NetworkPolicyPort, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol != null && !PROTOCOLS.includes(port.protocol)) errs.push(FieldError.notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  const end = port.endPort;
  if (port.port != null) {
    if (typeof port.port === 'number') {
      for (const m of isValidPortNum(port.port)) errs.push(FieldError.invalid(`${path}.port`, port.port, m));
      if (end != null) {
        if (end < port.port) errs.push(FieldError.invalid(`${path}.endPort`, end, 'must be greater than or equal to `port`'));
        for (const m of isValidPortNum(end)) errs.push(FieldError.invalid(`${path}.endPort`, end, m));
      }
    } else {
      if (end != null) errs.push(FieldError.invalid(`${path}.endPort`, end, 'may not be specified when `port` is non-numeric'));
      for (const m of isValidPortName(port.port)) errs.push(FieldError.invalid(`${path}.port`, port.port, m));
    }
  } else if (end != null) {
    errs.push(FieldError.invalid(`${path}.endPort`, end, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function legacyCIDR(path: string, value: string, allowed: string[]): FieldError[] {
  if (allowed.includes(value) || parseCIDR(value)) return [];
  return [FieldError.invalid(path, value, CIDR_EXAMPLE)];
}

export function validateIPBlock(ipb: IPBlock, path: string, opts: NetworkPolicyValidationOptions): FieldError[] {
  const cidr = ipb.cidr ?? '';
  if (cidr === '') return [FieldError.required(`${path}.cidr`, '')];
  const allowed = opts.allowCIDRs ?? [];
  const errs = legacyCIDR(`${path}.cidr`, cidr, allowed);
  const net = parseCIDR(cidr);
  if (!net) return errs;
  orEmpty(ipb.except).forEach((ex, i) => {
    const p = `${path}.except[${i}]`;
    errs.push(...legacyCIDR(p, ex, allowed));
    const e = parseCIDR(ex);
    if (!e) return;
    if (!cidrContains(net, e.net) || net.ones >= e.ones) errs.push(FieldError.invalid(p, ex, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: NetworkPolicyPeer, path: string, opts: NetworkPolicyValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const sel = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  let n = 0;
  if (peer.podSelector != null) {
    n++;
    errs.push(...validateLabelSelector(peer.podSelector, `${path}.podSelector`, sel));
  }
  if (peer.namespaceSelector != null) {
    n++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, `${path}.namespaceSelector`, sel));
  }
  if (peer.ipBlock != null) {
    n++;
    errs.push(...validateIPBlock(peer.ipBlock, `${path}.ipBlock`, opts));
  }
  if (n === 0) errs.push(FieldError.required(path, 'must specify a peer'));
  else if (n > 1 && peer.ipBlock != null) errs.push(FieldError.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

function validateRules(rules: NetworkPolicyRule[], dir: 'ingress' | 'egress', opts: NetworkPolicyValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const peers = dir === 'ingress' ? 'from' : 'to';
  rules.forEach((rule, i) => {
    const path = `spec.${dir}[${i}]`;
    orEmpty(rule?.ports).forEach((p, j) => errs.push(...validateNetworkPolicyPort(p ?? {}, `${path}.ports[${j}]`)));
    orEmpty(rule?.[peers]).forEach((p, j) => errs.push(...validatePeer(p ?? {}, `${path}.${peers}[${j}]`, opts)));
  });
  return errs;
}

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicySpec(spec: NetworkPolicySpec, opts: NetworkPolicyValidationOptions = {}): FieldError[] {
  const errs = validateLabelSelector(spec.podSelector ?? {}, 'spec.podSelector', {
    allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector,
  });
  errs.push(...validateRules(orEmpty(spec.ingress), 'ingress', opts));
  errs.push(...validateRules(orEmpty(spec.egress), 'egress', opts));
  const types = orEmpty(spec.policyTypes);
  if (types.length > POLICY_TYPES.length) {
    errs.push(FieldError.invalid('spec.policyTypes', goStringSlice('networking.PolicyType', types), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(FieldError.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

function ipBlocks(spec: NetworkPolicySpec | undefined): Array<{ block: IPBlock; path: string }> {
  const out: Array<{ block: IPBlock; path: string }> = [];
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    orEmpty(spec?.[dir]).forEach((rule, i) =>
      orEmpty(rule?.[peers]).forEach((peer, j) => {
        if (peer?.ipBlock) out.push({ block: peer.ipBlock, path: `spec.${dir}[${i}].${peers}[${j}].ipBlock` });
      }),
    );
  }
  return out;
}

/** ValidationOptionsForNetworking + ValidateNetworkPolicyUpdate: tolerate what the stored object already has. */
export function networkPolicyUpdateOptions(old: NetworkPolicy): NetworkPolicyValidationOptions {
  return {
    allowInvalidLabelValueInSelector: validateLabelSelector(old.spec?.podSelector ?? {}, '').length > 0,
    allowCIDRs: ipBlocks(old.spec).flatMap(({ block }) => [block.cidr ?? '', ...orEmpty(block.except)]),
  };
}

/** The strategy's warnings: non-standard or ambiguous CIDRs in ipBlocks. */
export function networkPolicyWarnings(np: NetworkPolicy): string[] {
  return ipBlocks(np.spec).flatMap(({ block, path }) => [
    ...cidrWarnings(`${path}.cidr`, block.cidr ?? ''),
    ...orEmpty(block.except).flatMap((ex, k) => cidrWarnings(`${path}.except[${k}]`, ex)),
  ]);
}

// Scheduling-related checks of ValidatePodSpec (pkg/apis/core/validation/validation.go, 1.33 defaults): affinity,
// tolerations, topology spread constraints, DNS config, host aliases, readiness and scheduling gates.
import { FieldError } from '../../../machinery/errors.js';
import { type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { isValidLabelValue, nameIsDNSLabel, validateLabelName } from '../../../machinery/validation.js';
import type { PodSpec, Toleration } from './types.js';
import { dns1123Subdomain, invalidEach, isObj, qualifiedName, regexErrorSubdomainUnderscore, validIP } from './validation-util.js';

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const strs = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
const NOT_POSITIVE = 'must be greater than zero';

export function validateTolerations(tolerations: Toleration[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const ip = `${path}[${i}]`;
    const key = t.key ?? '';
    const op = t.operator ?? '';
    if (key) errs.push(...validateLabelName(key, `${ip}.key`));
    if (!key && op !== 'Exists') {
      errs.push(FieldError.invalid(`${ip}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') {
      errs.push(FieldError.invalid(`${ip}.effect`, t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op === 'Equal' || op === '') {
      const msgs = isValidLabelValue(t.value ?? '');
      if (msgs.length) errs.push(FieldError.invalid(`${ip}.operator`, t.value ?? '', msgs.join(';')));
    } else if (op === 'Exists') {
      if (t.value) errs.push(FieldError.invalid(`${ip}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(FieldError.notSupported(`${ip}.operator`, op, ['Equal', 'Exists']));
    if (t.effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      errs.push(FieldError.notSupported(`${ip}.effect`, t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function validateNodeSelectorRequirement(rq: Obj, path: string, allowInvalidValues: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const values = strs(rq.values);
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (!values.length) errs.push(FieldError.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length) errs.push(FieldError.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(FieldError.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(FieldError.invalid(`${path}.operator`, rq.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(typeof rq.key === 'string' ? rq.key : '', `${path}.key`));
  if (!allowInvalidValues) values.forEach((v, i) => errs.push(...invalidEach(`${path}.values[${i}]`, v, isValidLabelValue(v))));
  return errs;
}

function validateNodeSelectorTerm(term: Obj, path: string, allowInvalidValues: boolean): FieldError[] {
  const errs = list(term.matchExpressions).flatMap((r, j) => validateNodeSelectorRequirement(r, `${path}.matchExpressions[${j}]`, allowInvalidValues));
  list(term.matchFields).forEach((r, j) => {
    const p = `${path}.matchFields[${j}]`;
    const values = strs(r.values);
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (values.length !== 1) errs.push(FieldError.required(`${p}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    } else errs.push(FieldError.invalid(`${p}.operator`, r.operator ?? '', 'not a valid selector operator'));
    if (r.key !== 'metadata.name') errs.push(FieldError.invalid(`${p}.key`, r.key ?? '', 'not a valid field selector key'));
    else values.forEach((v, i) => errs.push(...dns1123Subdomain(v, `${p}.values[${i}]`)));
  });
  return errs;
}

function validatePodAffinityTerm(term: Obj, path: string): FieldError[] {
  const errs = validateLabelSelector(term.labelSelector as MetaLabelSelector, `${path}.labelSelector`);
  errs.push(...validateLabelSelector(term.namespaceSelector as MetaLabelSelector, `${path}.namespaceSelector`));
  for (const ns of strs(term.namespaces)) errs.push(...invalidEach(`${path}.namespace`, ns, nameIsDNSLabel(ns, false)));
  const sel = isObj(term.labelSelector) ? (term.labelSelector as MetaLabelSelector) : undefined;
  const match = strs(term.matchLabelKeys);
  const mismatch = strs(term.mismatchLabelKeys);
  for (const [keys, name] of [[match, 'matchLabelKeys'], [mismatch, 'mismatchLabelKeys']] as const) {
    if (!keys.length) continue;
    if (!sel) errs.push(FieldError.forbidden(`${path}.${name}`, 'must not be specified when labelSelector is not set'));
    else keys.forEach((k, i) => errs.push(...validateLabelName(k, `${path}.${name}[${i}]`)));
  }
  if (sel) {
    // On create the apiserver has already merged matchLabelKeys into the selector, so a key found both in
    // matchLabels and matchExpressions means the user wrote it twice.
    const index = new Map(match.map((k, i) => [k, i]));
    const seen = new Set(Object.keys(sel.matchLabels ?? {}));
    for (const e of sel.matchExpressions ?? []) {
      const i = index.get(e.key);
      if (i !== undefined && seen.has(e.key)) errs.push(FieldError.invalid(`${path}[${i}]`, e.key, 'exists in both matchLabelKeys and labelSelector'));
      seen.add(e.key);
    }
  }
  const mm = new Set(mismatch);
  match.forEach((k, i) => {
    if (mm.has(k)) errs.push(FieldError.invalid(`${path}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  const tk = typeof term.topologyKey === 'string' ? term.topologyKey : '';
  if (!tk) errs.push(FieldError.required(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...validateLabelName(tk, `${path}.topologyKey`));
  return errs;
}

function weight(v: unknown, path: string): FieldError[] {
  const w = typeof v === 'number' ? v : 0;
  return w <= 0 || w > 100 ? [FieldError.invalid(path, w, 'must be in the range 1-100')] : [];
}

export function validateAffinity(aff: unknown, path: string): FieldError[] {
  if (!isObj(aff)) return [];
  const errs: FieldError[] = [];
  const na = aff.nodeAffinity;
  if (isObj(na)) {
    const np = `${path}.nodeAffinity`;
    const req = na.requiredDuringSchedulingIgnoredDuringExecution;
    if (isObj(req)) {
      const tp = `${np}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = list(req.nodeSelectorTerms);
      if (!terms.length) errs.push(FieldError.required(tp, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, `${tp}[${i}]`, false)));
    }
    list(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const p = `${np}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      errs.push(...weight(t.weight, `${p}.weight`));
      // Preferred terms always allow invalid label values (they may match on a single-node cluster).
      errs.push(...validateNodeSelectorTerm(isObj(t.preference) ? t.preference : {}, `${p}.preference`, true));
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pa = aff[kind];
    if (!isObj(pa)) continue;
    const p = `${path}.${kind}`;
    list(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      errs.push(...validatePodAffinityTerm(t, `${p}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)));
    list(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const wp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      errs.push(...weight(t.weight, `${wp}.weight`));
      errs.push(...validatePodAffinityTerm(isObj(t.podAffinityTerm) ? t.podAffinityTerm : {}, `${wp}.podAffinityTerm`));
    });
  }
  return errs;
}

export function validateDNSConfig(spec: PodSpec, path: string): FieldError[] {
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!isObj(cfg)) return [FieldError.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!cfg.nameservers?.length) return [FieldError.required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObj(cfg)) return [];
  const errs: FieldError[] = [];
  const ns = cfg.nameservers ?? [];
  if (ns.length > 3) errs.push(FieldError.invalid(`${path}.nameservers`, ns, 'must not have more than 3 nameservers'));
  ns.forEach((n, i) => errs.push(...validIP(n, `${path}.nameservers[${i}]`)));
  const searches = cfg.searches ?? [];
  if (searches.length > 32) errs.push(FieldError.invalid(`${path}.searches`, searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(FieldError.invalid(`${path}.searches`, searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  // RelaxedDNSSearchValidation is on by default in 1.33: "." and underscores are accepted.
  searches.forEach((s, i) => {
    if (s === '.') return;
    const v = s.endsWith('.') ? s.slice(0, -1) : s;
    errs.push(...invalidEach(`${path}.searches[${i}]`, v, regexErrorSubdomainUnderscore(v)));
  });
  (cfg.options ?? []).forEach((o, i) => {
    if (!o.name) errs.push(FieldError.required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

export function validateGates(spec: PodSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (spec.readinessGates ?? []).forEach((g, i) => errs.push(...qualifiedName(g.conditionType ?? '', `${path}.readinessGates[${i}].conditionType`)));
  const seen = new Set<string>();
  (spec.schedulingGates ?? []).forEach((g, i) => {
    const p = `${path}.schedulingGates[${i}]`;
    errs.push(...qualifiedName(g.name ?? '', p));
    if (seen.has(g.name ?? '')) errs.push(FieldError.duplicate(p, g.name ?? ''));
    seen.add(g.name ?? '');
  });
  return errs;
}

export function validateTopologySpread(constraints: PodSpec['topologySpreadConstraints'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const all = constraints ?? [];
  all.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0;
    if (maxSkew <= 0) errs.push(FieldError.invalid(`${p}.maxSkew`, maxSkew, NOT_POSITIVE));
    if (!c.topologyKey) errs.push(FieldError.required(`${p}.topologyKey`, 'can not be empty'));
    const when = typeof c.whenUnsatisfiable === 'string' ? c.whenUnsatisfiable : '';
    if (when !== 'DoNotSchedule' && when !== 'ScheduleAnyway') errs.push(FieldError.notSupported(`${p}.whenUnsatisfiable`, when, ['DoNotSchedule', 'ScheduleAnyway']));
    if (all.slice(i + 1).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
      errs.push(FieldError.duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${String(c.topologyKey ?? '')}, ${when}}`));
    }
    if (c.minDomains !== undefined && c.minDomains !== null) {
      const md = c.minDomains as number;
      if (md <= 0) errs.push(FieldError.invalid(`${p}.minDomains`, md, NOT_POSITIVE));
      if (when !== 'DoNotSchedule') errs.push(FieldError.invalid(`${p}.minDomains`, md, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`));
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      const v = c[f];
      if (v !== undefined && v !== 'Honor' && v !== 'Ignore') errs.push(FieldError.notSupported(`${p}.${f}`, v, ['Honor', 'Ignore']));
    }
    const keys = strs(c.matchLabelKeys);
    if (keys.length) {
      const sel = isObj(c.labelSelector) ? (c.labelSelector as MetaLabelSelector) : undefined;
      if (!sel) errs.push(FieldError.forbidden(`${p}.matchLabelKeys`, 'must not be specified when labelSelector is not set'));
      const inSel = new Set([...Object.keys(sel?.matchLabels ?? {}), ...(sel?.matchExpressions ?? []).map((e) => e.key)]);
      keys.forEach((k, j) => {
        errs.push(...validateLabelName(k, `${p}.matchLabelKeys[${j}]`));
        if (inSel.has(k)) errs.push(FieldError.invalid(`${p}.matchLabelKeys[${j}]`, k, 'exists in both matchLabelKeys and labelSelector'));
      });
    }
    errs.push(...validateLabelSelector(c.labelSelector as MetaLabelSelector, `${p}.labelSelector`));
  });
  return errs;
}

export function validateHostAliases(aliases: PodSpec['hostAliases'], path: string): FieldError[] {
  return (aliases ?? []).flatMap((a, i) => [
    ...validIP(a.ip ?? '', `${path}[${i}].ip`),
    ...(a.hostnames ?? []).flatMap((h, j) => dns1123Subdomain(h, `${path}[${i}].hostnames[${j}]`)),
  ]);
}

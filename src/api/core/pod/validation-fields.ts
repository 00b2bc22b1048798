// Field-level container checks of ValidatePodSpec (pkg/apis/core/validation/validation.go, 1.33 defaults):
// ports, environment (value sources, downward API selectors), envFrom, resource requirements and resize policy.
import { FieldError } from '../../../machinery/errors.js';
import { nameIsDNSSubdomain } from '../../../machinery/validation.js';
import type { Container, EnvVar, ResourceRequirements } from './types.js';
import {
  bare, hugePageError, invalidEach, isConfigMapKey, isHugePageResourceName, isObj, isOvercommitAllowed, isRelaxedEnvVarName,
  isValidPortName, isValidPortNum, parseQuantity, qualifiedName, validateContainerResourceName, validateResourceQuantity,
} from './validation-util.js';

export function validatePorts(ports: Container['ports'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((p, i) => {
    const ip = `${path}[${i}]`;
    if (p.name) {
      const msgs = isValidPortName(p.name);
      if (msgs.length) errs.push(...invalidEach(`${ip}.name`, p.name, msgs));
      else if (names.has(p.name)) errs.push(FieldError.duplicate(`${ip}.name`, p.name));
      else names.add(p.name);
    }
    if (!p.containerPort) errs.push(FieldError.required(`${ip}.containerPort`));
    else errs.push(...invalidEach(`${ip}.containerPort`, p.containerPort, isValidPortNum(p.containerPort)));
    if (p.hostPort) errs.push(...invalidEach(`${ip}.hostPort`, p.hostPort, isValidPortNum(p.hostPort)));
    if (!p.protocol) errs.push(FieldError.required(`${ip}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(p.protocol)) errs.push(FieldError.notSupported(`${ip}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const DOWNWARD_LABELS = new Set([...ENV_FIELD_PATHS, ...VOLUME_FIELD_PATHS, 'spec.restartPolicy', 'spec.schedulerName', 'status.phase']);
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** metadata.labels['key'] → ['metadata.labels', 'key']. */
function splitSubscript(p: string): [string, string] | undefined {
  if (!p.endsWith("']")) return undefined;
  const i = p.indexOf("['");
  return i > 0 ? [p.slice(0, i), p.slice(i + 2, -2)] : undefined;
}

export function validateObjectFieldSelector(ref: { apiVersion?: string; fieldPath?: string }, allowed: string[], path: string): FieldError[] {
  if (!ref.apiVersion) return [FieldError.required(`${path}.apiVersion`)];
  if (!ref.fieldPath) return [FieldError.required(`${path}.fieldPath`)];
  const sub = splitSubscript(ref.fieldPath);
  let problem: string | undefined;
  if (ref.apiVersion !== 'v1') problem = `unsupported pod version: ${ref.apiVersion}`;
  else if (sub && sub[0] !== 'metadata.annotations' && sub[0] !== 'metadata.labels') problem = `field label does not support subscript: ${ref.fieldPath}`;
  else if (!sub && !DOWNWARD_LABELS.has(ref.fieldPath) && ref.fieldPath !== 'spec.host') problem = `field label not supported: ${ref.fieldPath}`;
  if (problem) return [FieldError.invalid(`${path}.fieldPath`, ref.fieldPath, `error converting fieldPath: ${problem}`)];
  if (sub) return qualifiedName(sub[0] === 'metadata.annotations' ? sub[1].toLowerCase() : sub[1], path);
  const internal = ref.fieldPath === 'spec.host' ? 'spec.nodeName' : ref.fieldPath;
  return allowed.includes(internal) ? [] : [FieldError.notSupported(`${path}.fieldPath`, internal, allowed)];
}

const MEMORY_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

export function validateResourceFieldSelector(
  ref: { containerName?: string; resource?: string; divisor?: string | number },
  path: string,
  volume: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const res = ref.resource ?? '';
  if (volume && !ref.containerName) errs.push(FieldError.required(`${path}.containerName`));
  else if (!res) errs.push(FieldError.required(`${path}.resource`));
  else if (!RESOURCE_FIELD_PATHS.includes(res) && !res.startsWith('requests.hugepages-') && !res.startsWith('limits.hugepages-')) {
    errs.push(FieldError.notSupported(`${path}.resource`, res, RESOURCE_FIELD_PATHS));
  }
  const d = parseQuantity(ref.divisor ?? '0');
  if (typeof d === 'string' || d.isZero()) return errs;
  const text = d.toString();
  const bad = (what: string, allowed: string[]) => {
    if (!allowed.includes(text)) errs.push(FieldError.invalid(`${path}.divisor`, res, `only divisor's values ${allowed.join(', ')} are supported with the ${what}`));
  };
  if (res === 'limits.cpu' || res === 'requests.cpu') {
    if (!['1m', '1'].includes(text)) errs.push(FieldError.invalid(`${path}.divisor`, res, "only divisor's values 1m and 1 are supported with the cpu resource"));
  } else if (res === 'limits.memory' || res === 'requests.memory') bad('memory resource', MEMORY_DIVISORS);
  else if (res === 'limits.ephemeral-storage' || res === 'requests.ephemeral-storage') bad('local ephemeral storage resource', MEMORY_DIVISORS);
  if (res.startsWith('requests.hugepages-') || res.startsWith('limits.hugepages-')) bad('hugepages resource', MEMORY_DIVISORS);
  return errs;
}

function validateKeySelector(sel: { name?: string; key?: string }, path: string): FieldError[] {
  const errs = invalidEach(`${path}.name`, sel.name ?? '', nameIsDNSSubdomain(sel.name ?? '', false));
  if (!sel.key) errs.push(FieldError.required(`${path}.key`));
  else errs.push(...invalidEach(`${path}.key`, sel.key, isConfigMapKey(sel.key)));
  return errs;
}

export function validateEnv(env: EnvVar[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (env ?? []).forEach((e, i) => {
    const ip = `${path}[${i}]`;
    if (!e.name) errs.push(FieldError.required(`${ip}.name`));
    else errs.push(...invalidEach(`${ip}.name`, e.name, isRelaxedEnvVarName(e.name)));
    const vf = e.valueFrom;
    if (!isObj(vf)) return;
    const vp = `${ip}.valueFrom`;
    let n = 0;
    if (vf.fieldRef) (n++, errs.push(...validateObjectFieldSelector(vf.fieldRef, ENV_FIELD_PATHS, `${vp}.fieldRef`)));
    if (vf.resourceFieldRef) (n++, errs.push(...validateResourceFieldSelector(vf.resourceFieldRef, `${vp}.resourceFieldRef`, false)));
    if (vf.configMapKeyRef) (n++, errs.push(...validateKeySelector(vf.configMapKeyRef, `${vp}.configMapKeyRef`)));
    if (vf.secretKeyRef) (n++, errs.push(...validateKeySelector(vf.secretKeyRef, `${vp}.secretKeyRef`)));
    if (n === 0) errs.push(FieldError.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (e.value) errs.push(FieldError.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (n > 1) errs.push(FieldError.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

export function validateEnvFrom(envFrom: Container['envFrom'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  (envFrom ?? []).forEach((e, i) => {
    const ip = `${path}[${i}]`;
    if (typeof e.prefix === 'string' && e.prefix) errs.push(...invalidEach(`${ip}.prefix`, e.prefix, isRelaxedEnvVarName(e.prefix)));
    let n = 0;
    for (const key of ['configMapRef', 'secretRef']) {
      const ref = e[key] as { name?: string } | undefined;
      if (!isObj(ref)) continue;
      n++;
      if (!ref.name) errs.push(FieldError.required(`${ip}.${key}.name`));
      else errs.push(...invalidEach(`${ip}.${key}.name`, ref.name, nameIsDNSSubdomain(ref.name, true)));
    }
    if (n === 0) errs.push(FieldError.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(FieldError.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** validateResourceRequirements for containers (map order is the object's key order; Go's is random). */
export function validateResources(r: ResourceRequirements | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const limits = r?.limits ?? {};
  const requests = r?.requests ?? {};
  let cpuOrMemory = false;
  let hugePages = false;
  const parsed = (list: Record<string, unknown>, name: string, p: string) => {
    const q = parseQuantity(list[name]);
    if (typeof q === 'string') errs.push(FieldError.invalid(p, bare(String(list[name])), q));
    return typeof q === 'string' ? undefined : q;
  };
  for (const name of Object.keys(limits)) {
    const p = `${path}.limits[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const q = parsed(limits, name, p);
    if (q) errs.push(...validateResourceQuantity(name, q, p));
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const msg = q && hugePageError(name, q);
      if (msg) errs.push(FieldError.invalid(p, q.toString(), msg));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const name of Object.keys(requests)) {
    const p = `${path}.requests[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const q = parsed(requests, name, p);
    if (q) errs.push(...validateResourceQuantity(name, q, p));
    const lim = name in limits ? parseQuantity(limits[name]) : undefined;
    if (q && lim && typeof lim !== 'string') {
      if (q.cmp(lim) !== 0 && !isOvercommitAllowed(name)) {
        errs.push(FieldError.invalid(`${path}.requests`, q.toString(), `must be equal to ${name} limit of ${lim.toString()}`));
      } else if (q.cmp(lim) > 0) {
        errs.push(FieldError.invalid(`${path}.requests`, q.toString(), `must be less than or equal to ${name} limit of ${lim.toString()}`));
      }
    } else if (!(name in limits) && !isOvercommitAllowed(name)) {
      errs.push(FieldError.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) {
      hugePages = true;
      const msg = q && hugePageError(name, q);
      if (msg) errs.push(FieldError.invalid(p, q.toString(), msg));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(FieldError.forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

export function validateResizePolicy(c: Container, path: string, restartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (c.resizePolicy ?? []).forEach((p, i) => {
    const rn = p.resourceName ?? '';
    const rp = p.restartPolicy ?? '';
    if (seen.has(rn)) errs.push(FieldError.duplicate(`${path}[${i}]`, rn));
    seen.add(rn);
    if (rn === '') errs.push(FieldError.required(path));
    else if (rn !== 'cpu' && rn !== 'memory') errs.push(FieldError.notSupported(path, rn, ['cpu', 'memory']));
    if (rp === '') errs.push(FieldError.required(path));
    else if (rp !== 'NotRequired' && rp !== 'RestartContainer') errs.push(FieldError.notSupported(path, rp, ['NotRequired', 'RestartContainer']));
    if (restartPolicy === 'Never' && rp !== 'NotRequired') errs.push(FieldError.invalid(path, rp, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errs;
}


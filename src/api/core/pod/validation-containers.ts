// Container validation of ValidatePodSpec (pkg/apis/core/validation/validation.go, 1.33 defaults): regular, init
// and ephemeral containers, ports, env, mounts, resources, probes, lifecycle hooks and container security context.
// Checks run in Kubernetes' order so aggregated messages come out the same.
import { FieldError } from '../../../machinery/errors.js';
import type { Container, Handler, Probe, SecurityContext, VolumeMount } from './types.js';
import {
  bare, dns1123Label, invalidEach, isHTTPHeaderName, isObj, isValidID, isValidPortName, isValidPortNum, validateLocalDescendingPath,
  validatePathNoBacksteps, validateSecurityProfiles, type VolumeSources,
} from './validation-util.js';
import { validateEnv, validateEnvFrom, validatePorts, validateResizePolicy, validateResources } from './validation-fields.js';

export interface ContainerContext {
  volumes: VolumeSources;
  gracePeriod: number | undefined;
  restartPolicy: string;
  hostUsers: boolean;
}

function validateMounts(c: Container, volumes: VolumeSources, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const devices = new Map((c.volumeDevices ?? []).map((d) => [d.name ?? '', d.devicePath ?? '']));
  const devicePaths = new Set(devices.values());
  const seen = new Set<string>();
  (c.volumeMounts ?? []).forEach((m: VolumeMount, i) => {
    const ip = `${path}[${i}]`;
    const name = m.name ?? '';
    const mountPath = m.mountPath ?? '';
    if (!name) errs.push(FieldError.required(`${ip}.name`));
    if (!volumes.has(name)) errs.push(FieldError.notFound(`${ip}.name`, name));
    if (!mountPath) errs.push(FieldError.required(`${ip}.mountPath`));
    if (seen.has(mountPath)) errs.push(FieldError.invalid(`${ip}.mountPath`, mountPath, 'must be unique'));
    seen.add(mountPath);
    if (devices.has(name)) errs.push(FieldError.invalid(`${ip}.name`, name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(FieldError.invalid(`${ip}.mountPath`, mountPath, 'must not already exist as a path in volumeDevices'));
    if (volumes.get(name)?.image !== undefined) {
      if (m.subPath) errs.push(FieldError.invalid(`${ip}.subPath`, m.subPath, 'not allowed in image volume sources'));
      if (m.subPathExpr) errs.push(FieldError.invalid(`${ip}.subPathExpr`, m.subPathExpr, 'not allowed in image volume sources'));
    }
    // Kubernetes reports these three at the list's path, not the item's.
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, `${path}.subPath`));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(FieldError.invalid(`${ip}.subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, `${path}.subPathExpr`));
    }
    if (m.mountPropagation !== undefined) {
      const mp = m.mountPropagation;
      if (!['Bidirectional', 'HostToContainer', 'None'].includes(mp)) {
        errs.push(FieldError.notSupported(`${path}.mountPropagation`, mp, ['Bidirectional', 'HostToContainer', 'None']));
      }
      if (mp === 'Bidirectional' && c.securityContext?.privileged !== true) {
        errs.push(FieldError.forbidden(`${path}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    const rro = m.recursiveReadOnly;
    if (rro !== undefined && rro !== 'Disabled') {
      const rp = `${path}.recursiveReadOnly`;
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (!m.readOnly) errs.push(FieldError.forbidden(rp, 'may only be specified when readOnly is true'));
        if (m.mountPropagation && m.mountPropagation !== 'None') errs.push(FieldError.forbidden(rp, 'may only be specified when mountPropagation is None or not specified'));
      } else errs.push(FieldError.notSupported(rp, rro, ['Disabled', 'Enabled', 'IfPossible']));
    }
  });
  return errs;
}

function validateDevices(c: Container, volumes: VolumeSources, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.name ?? '', m.mountPath ?? '']));
  const mountPaths = new Set(mounts.values());
  const names = new Set<string>();
  const paths = new Set<string>();
  (c.volumeDevices ?? []).forEach((d, i) => {
    const ip = `${path}[${i}]`;
    const name = d.name ?? '';
    const devPath = d.devicePath ?? '';
    const src = volumes.get(name);
    if (!name) errs.push(FieldError.required(`${ip}.name`));
    if (names.has(name)) errs.push(FieldError.invalid(`${ip}.name`, name, 'must be unique'));
    if (src && src.persistentVolumeClaim === undefined && src.ephemeral === undefined) {
      errs.push(FieldError.invalid(`${ip}.name`, name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (!src) errs.push(FieldError.notFound(`${ip}.name`, name));
    if (!devPath) errs.push(FieldError.required(`${ip}.devicePath`));
    if (paths.has(devPath)) errs.push(FieldError.invalid(`${ip}.devicePath`, devPath, 'must be unique'));
    if (devPath && validatePathNoBacksteps(devPath, '').length) errs.push(FieldError.invalid(`${ip}.devicePath`, devPath, "can not contain backsteps ('..')"));
    else paths.add(devPath);
    if (mounts.has(name)) errs.push(FieldError.invalid(`${ip}.name`, name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devPath)) errs.push(FieldError.invalid(`${ip}.devicePath`, devPath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

export function validateContainerSecurityContext(sc: SecurityContext | undefined, path: string, hostUsers: boolean): FieldError[] {
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [];
  // kube-apiserver --allow-privileged is true on kubeadm/kind clusters, so privileged containers are accepted.
  if (sc.runAsUser !== undefined) errs.push(...invalidEach(`${path}.runAsUser`, sc.runAsUser, isValidID(sc.runAsUser)));
  if (sc.runAsGroup !== undefined) errs.push(...invalidEach(`${path}.runAsGroup`, sc.runAsGroup, isValidID(sc.runAsGroup)));
  if (sc.procMount !== undefined) {
    if (sc.procMount !== 'Default' && sc.procMount !== 'Unmasked') errs.push(FieldError.notSupported(`${path}.procMount`, sc.procMount, ['Default', 'Unmasked']));
    if (hostUsers && sc.procMount === 'Unmasked') errs.push(FieldError.invalid(`${path}.procMount`, sc.procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSecurityProfiles(sc, path, 'seccomp'));
  if (sc.allowPrivilegeEscalation === false) {
    const scText = bare('&core.SecurityContext{...}');
    if (sc.privileged === true) errs.push(FieldError.invalid(path, scText, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if ((sc.capabilities?.add ?? []).includes('CAP_SYS_ADMIN')) {
      errs.push(FieldError.invalid(path, scText, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  errs.push(...validateSecurityProfiles(sc, path, 'apparmor'));
  return errs;
}

/** validateContainerCommon: the checks every kind of container gets. */
export function validateContainerCommon(c: Container, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(FieldError.required(`${path}.name`));
  else errs.push(...dns1123Label(c.name, `${path}.name`));
  if (!c.image) errs.push(FieldError.required(`${path}.image`));
  const tmp = c.terminationMessagePolicy ?? '';
  if (tmp === '') errs.push(FieldError.required(`${path}.terminationMessagePolicy`));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    errs.push(FieldError.notSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validatePorts(c.ports, `${path}.ports`));
  errs.push(...validateEnv(c.env, `${path}.env`));
  errs.push(...validateEnvFrom(c.envFrom, `${path}.envFrom`));
  errs.push(...validateMounts(c, ctx.volumes, `${path}.volumeMounts`));
  errs.push(...validateDevices(c, ctx.volumes, `${path}.volumeDevices`));
  const pp = c.imagePullPolicy ?? '';
  if (pp === '') errs.push(FieldError.required(`${path}.imagePullPolicy`));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pp)) errs.push(FieldError.notSupported(`${path}.imagePullPolicy`, pp, ['Always', 'IfNotPresent', 'Never']));
  errs.push(...validateResources(c.resources, `${path}.resources`));
  errs.push(...validateResizePolicy(c, `${path}.resizePolicy`, ctx.restartPolicy));
  errs.push(...validateContainerSecurityContext(c.securityContext, `${path}.securityContext`, ctx.hostUsers));
  return errs;
}

function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return invalidEach(path, port, isValidPortNum(port));
  if (typeof port === 'string') return invalidEach(path, port, isValidPortName(port));
  return [FieldError.internal(path, `unknown type: ${typeof port}`)];
}

export function validateHandler(h: Handler, kinds: string[], gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const kind of kinds) {
    const v = h[kind];
    if (!isObj(v)) continue;
    if (n++ > 0) {
      errs.push(FieldError.forbidden(`${path}.${kind}`, 'may not specify more than 1 handler type'));
      continue;
    }
    const p = `${path}.${kind}`;
    if (kind === 'exec' && !(v.command as unknown[] | undefined)?.length) errs.push(FieldError.required(`${p}.command`));
    if (kind === 'httpGet') {
      if (!v.path) errs.push(FieldError.required(`${p}.path`));
      errs.push(...validatePortNumOrName(v.port, `${p}.port`));
      if (v.scheme !== 'HTTP' && v.scheme !== 'HTTPS') errs.push(FieldError.notSupported(`${p}.scheme`, v.scheme ?? '', ['HTTP', 'HTTPS']));
      for (const hd of (v.httpHeaders ?? []) as { name?: string }[]) errs.push(...invalidEach(`${p}.httpHeaders`, hd.name ?? '', isHTTPHeaderName(hd.name ?? '')));
    }
    if (kind === 'tcpSocket') errs.push(...validatePortNumOrName(v.port, `${p}.port`));
    if (kind === 'grpc') errs.push(...validatePortNumOrName(typeof v.port === 'number' ? v.port : 0, `${p}.port`));
    if (kind === 'sleep') {
      const secs = typeof v.seconds === 'number' ? v.seconds : 0;
      // PodLifecycleSleepActionAllowZero is on by default in 1.33.
      if (gracePeriod !== undefined && (secs < 0 || secs > gracePeriod)) {
        errs.push(FieldError.invalid(p, secs, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
      }
    }
  }
  if (n === 0) errs.push(FieldError.required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function validateProbe(p: Probe | undefined, kind: 'liveness' | 'readiness' | 'startup', gracePeriod: number | undefined, path: string): FieldError[] {
  if (!isObj(p)) return [];
  const errs = validateHandler(p, PROBE_HANDLERS, gracePeriod, path);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const v = p[f] ?? 0;
    if (v < 0) errs.push(FieldError.invalid(`${path}.${f}`, v, 'must be greater than or equal to 0'));
  }
  const tgps = p.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps !== null && tgps <= 0) errs.push(FieldError.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if (kind !== 'readiness' && (p.successThreshold ?? 0) !== 1) errs.push(FieldError.invalid(`${path}.successThreshold`, p.successThreshold ?? 0, 'must be 1'));
  if (kind === 'readiness' && tgps !== undefined && tgps !== null) {
    errs.push(FieldError.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
  }
  return errs;
}

/** Lifecycle and probes, allowed for regular containers and sidecars (restartable init containers). */
function validateHooksAndProbes(c: Container, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const lc = c.lifecycle;
  if (isObj(lc)) {
    if (isObj(lc.postStart)) errs.push(...validateHandler(lc.postStart, LIFECYCLE_HANDLERS, gracePeriod, `${path}.lifecycle.postStart`));
    if (isObj(lc.preStop)) errs.push(...validateHandler(lc.preStop, LIFECYCLE_HANDLERS, gracePeriod, `${path}.lifecycle.preStop`));
  }
  errs.push(...validateProbe(c.livenessProbe, 'liveness', gracePeriod, `${path}.livenessProbe`));
  errs.push(...validateProbe(c.readinessProbe, 'readiness', gracePeriod, `${path}.readinessProbe`));
  errs.push(...validateProbe(c.startupProbe, 'startup', gracePeriod, `${path}.startupProbe`));
  return errs;
}

/** AccumulateUniqueHostPorts: protocol/hostIP/hostPort must be unique among the given containers. */
function hostPortConflicts(containers: { c: Container; i: number }[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const { c, i } of containers) {
    (c.ports ?? []).forEach((p, j) => {
      if (!p.hostPort) return;
      const key = `${p.protocol ?? ''}/${p.hostIP ?? ''}/${p.hostPort}`;
      if (seen.has(key)) errs.push(FieldError.duplicate(`${path}[${i}].ports[${j}].hostPort`, key));
      else seen.add(key);
    });
  }
  return errs;
}

export function validateContainers(containers: Container[] | undefined, ctx: ContainerContext, path: string): FieldError[] {
  if (!containers?.length) return [FieldError.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, ctx, p));
    if (names.has(c.name ?? '')) errs.push(FieldError.duplicate(`${p}.name`, c.name ?? ''));
    else names.add(c.name ?? '');
    errs.push(...validateHooksAndProbes(c, ctx.gracePeriod, p));
    if (c.restartPolicy !== undefined) errs.push(FieldError.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers.map((c, i) => ({ c, i })), path));
  return errs;
}

const NO_SIDECAR = 'may not be set for init containers without restartPolicy=Always';

export function validateInitContainers(inits: Container[] | undefined, regular: Container[] | undefined, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set((regular ?? []).map((c) => c.name ?? ''));
  (inits ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, ctx, p));
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always') {
      errs.push(FieldError.notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
    }
    if (names.has(c.name ?? '')) errs.push(FieldError.duplicate(`${p}.name`, c.name ?? ''));
    else if (c.name) names.add(c.name);
    // Kubernetes checks each init container alone, as a one-element list, hence index 0 in the path.
    errs.push(...hostPortConflicts([{ c, i: 0 }], path));
    if (c.restartPolicy === 'Always') errs.push(...validateHooksAndProbes(c, ctx.gracePeriod, p));
    else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f] !== undefined && c[f] !== null) errs.push(FieldError.forbidden(`${p}.${f}`, NO_SIDECAR));
      }
    }
  });
  return errs;
}

const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

export function validateEphemeralContainers(eph: Container[] | undefined, regular: Container[] | undefined, inits: Container[] | undefined, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...(regular ?? []), ...(inits ?? [])].map((c) => c.name ?? ''));
  const all = new Set(others);
  (eph ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, ctx, p));
    if (c.image && c.image.trim() !== c.image) errs.push(FieldError.invalid(`${p}.image`, c.image, 'must not have leading or trailing whitespace'));
    if (all.has(c.name ?? '')) errs.push(FieldError.duplicate(`${p}.name`, c.name ?? ''));
    else all.add(c.name ?? '');
    if (c.targetContainerName && !others.has(c.targetContainerName)) errs.push(FieldError.notFound(`${p}.targetContainerName`, c.targetContainerName));
    for (const f of EPHEMERAL_FORBIDDEN) {
      const v = c[f];
      // Go compares with the zero value: the always-present `resources: {}` is zero.
      const empty = v === undefined || v === null || (isObj(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
      if (!empty) errs.push(FieldError.forbidden(`${p}.${f}`, 'cannot be set for an Ephemeral Container'));
    }
    (c.volumeMounts ?? []).forEach((m, j) => {
      if (m.subPath) errs.push(FieldError.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (m.subPathExpr) errs.push(FieldError.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

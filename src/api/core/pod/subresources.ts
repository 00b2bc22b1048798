// The pod subresources that update one part of a pod: pods/ephemeralcontainers and pods/resize
// (podEphemeralContainersStrategy and podResizeStrategy of pkg/registry/core/pod/strategy.go, validated as
// ValidatePodEphemeralContainersUpdate and ValidatePodResize in pkg/apis/core/validation, 1.33), and the
// core/v1 Binding body of pods/binding. Each subresource keeps everything of the stored pod except its own fields.
import { FieldError } from '../../../machinery/errors.js';
import { clone, deepEqual } from '../../../machinery/object.js';
import { Quantity } from '../../../machinery/quantity.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { computeQOS, dropDisabledPodFields, MIRROR_POD_ANNOTATION } from './admission.js';
import type { Container, Pod, ResourceRequirements } from './types.js';
import { validatePodMetadataAndSpec } from './validation.js';
import { kindHeader } from '../../meta.js';

export const POD_EXTRA_SUBRESOURCES = ['ephemeralcontainers', 'resize'];

export const bindingDefinitions: Definitions = {
  [`${CORE}Binding`]: s.obj(
    {
      ...kindHeader(),
      target: s.ref(`${CORE}ObjectReference`, 'The target object that you want to bind to the standard object.', { default: {} }),
    },
    { description: 'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.', required: ['target'] },
  ),
};

/** Spec changes move a pod's generation (updatePodGeneration); the subresources bump it themselves. */
function withGeneration(next: Pod, old: Pod): Pod {
  const gen = old.metadata.generation ?? 1;
  next.metadata.generation = deepEqual(next.spec ?? {}, old.spec ?? {}) ? gen : gen + 1;
  return next;
}

/** The stored pod with only `pod`'s ephemeral containers (dropNonEphemeralContainerUpdates); metadata stays old. */
function prepareEphemeral(pod: Pod, old: Pod): Pod {
  const next = clone(old);
  next.spec ??= {};
  const eph = pod.spec?.ephemeralContainers;
  if (eph === undefined || eph === null) delete next.spec.ephemeralContainers;
  else next.spec.ephemeralContainers = clone(eph);
  return next;
}

/** dropNonResizeUpdates: resources and resizePolicy of regular and init containers (matched by name) are taken. */
function prepareResize(pod: Pod, old: Pod): Pod {
  const next = clone(old);
  next.spec ??= {};
  for (const kind of ['containers', 'initContainers'] as const) {
    const byName = new Map((next.spec[kind] ?? []).map((c) => [c.name ?? '', c]));
    for (const c of pod.spec?.[kind] ?? []) {
      const target = byName.get(c.name ?? '');
      if (!target) continue;
      for (const f of ['resources', 'resizePolicy'] as const) {
        if (c[f] === undefined) delete target[f];
        else target[f] = clone(c[f]) as never;
      }
    }
  }
  return next;
}

export function preparePodSubresourceUpdate(sub: string, pod: Pod, old: Pod): Pod {
  const next = sub === 'resize' ? prepareResize(pod, old) : prepareEphemeral(pod, old);
  dropDisabledPodFields(next, old);
  return withGeneration(next, old);
}

export function validatePodSubresourceUpdate(sub: string, pod: Pod, old: Pod): FieldError[] {
  return sub === 'resize' ? validatePodResize(pod, old) : validateEphemeralContainersUpdate(pod, old);
}

const isMirror = (p: Pod) => (p.metadata.annotations ?? {})[MIRROR_POD_ANNOTATION] !== undefined;

// Go field order of EphemeralContainer, for the diff in "may not be changed" messages.
const EPHEMERAL_FIELDS = [
  'name', 'image', 'command', 'args', 'workingDir', 'ports', 'envFrom', 'env', 'resources', 'resizePolicy', 'restartPolicy', 'volumeMounts',
  'volumeDevices', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'terminationMessagePath', 'terminationMessagePolicy',
  'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty',
];
const goName = (k: string) => (k === 'tty' ? 'TTY' : k[0].toUpperCase() + k.slice(1));

/** A cmp.Diff-shaped rendering of an ephemeral container change (changed fields as JSON; equal runs elided). */
export function ephemeralContainerDiff(before: Container, after: Container): string {
  const lines = ['  core.EphemeralContainer{', '  \tEphemeralContainerCommon: core.EphemeralContainerCommon{'];
  let same = 0;
  const flush = (indent: string) => {
    if (same) lines.push(`  ${indent}... // ${same} identical field${same === 1 ? '' : 's'}`);
    same = 0;
  };
  const field = (k: string, indent: string) => {
    const a = before[k];
    const b = after[k];
    if (deepEqual(a ?? null, b ?? null)) {
      same++;
      return;
    }
    flush(indent);
    if (a !== undefined) lines.push(`- ${indent}${goName(k)}: ${JSON.stringify(a)},`);
    if (b !== undefined) lines.push(`+ ${indent}${goName(k)}: ${JSON.stringify(b)},`);
  };
  for (const k of EPHEMERAL_FIELDS) field(k, '\t\t');
  flush('\t\t');
  lines.push('  \t},');
  field('targetContainerName', '\t');
  flush('\t');
  lines.push('  }');
  return lines.join('\n') + '\n';
}

/** ValidatePodEphemeralContainersUpdate (metadata is validated by the registry). */
export function validateEphemeralContainersUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  if (isMirror(old)) return [FieldError.forbidden('', 'static pods do not support ephemeral containers')];
  // Patches do not keep the order, so containers are matched by name.
  const now = new Map((pod.spec?.ephemeralContainers ?? []).map((c) => [c.name ?? '', c]));
  const path = 'spec.ephemeralContainers';
  for (const o of old.spec?.ephemeralContainers ?? []) {
    const n = now.get(o.name ?? '');
    if (!n) errs.push(FieldError.forbidden(path, `existing ephemeral containers "${o.name ?? ''}" may not be removed\n`));
    else if (!deepEqual(o, n)) {
      errs.push(FieldError.forbidden(path, `existing ephemeral containers "${o.name ?? ''}" may not be changed\n${ephemeralContainerDiff(o, n)}`));
    }
  }
  return errs;
}

type List = Record<string, unknown>;
const nonEmpty = (l: unknown): l is List => typeof l === 'object' && l !== null && Object.keys(l).length > 0;

/** ResourceRequirements as Go compares them: nil and empty lists are equal. */
function normalResources(r: ResourceRequirements | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r ?? {})) {
    if (v === undefined || v === null || (Array.isArray(v) && !v.length) || (typeof v === 'object' && !Array.isArray(v) && !nonEmpty(v))) continue;
    out[k] = v;
  }
  return out;
}

const normalContainer = (c: Container): Container => ({ ...c, resources: normalResources(c.resources) });
const sameContainer = (a: Container, b: Container) => deepEqual(normalContainer(a), normalContainer(b));

/** dropCPUMemoryResourcesFromContainer: cpu and memory put back to the old values (and only limits/requests kept). */
function withOldCpuMemory(c: Container, old: Container): Container {
  const munge = (now: unknown, before: unknown): List | undefined => {
    if (!nonEmpty(before)) return undefined;
    const out: List = { ...(nonEmpty(now) ? now : {}) };
    delete out.cpu;
    delete out.memory;
    for (const k of ['cpu', 'memory']) if (before[k] !== undefined) out[k] = before[k];
    return out;
  };
  const res: List = {};
  const lim = munge(c.resources?.limits, old.resources?.limits);
  const req = munge(c.resources?.requests, old.resources?.requests);
  if (lim) res.limits = lim;
  if (req) res.requests = req;
  return { ...c, resources: res as ResourceRequirements };
}

const removed = (now: unknown, before: unknown): boolean => {
  const b = nonEmpty(before) ? Object.keys(before) : [];
  const n = nonEmpty(now) ? now : {};
  return b.some((k) => n[k] === undefined);
};

function quantity(v: unknown): Quantity | undefined {
  try {
    return Quantity.fromJSON(v);
  } catch {
    return undefined;
  }
}

/** validateContainerResize: no removed requests or limits; memory limits only shrink with RestartContainer. */
function validateContainerResize(c: Container, old: Container, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (removed(c.resources?.requests, old.resources?.requests)) errs.push(FieldError.forbidden(`${path}.requests`, 'resource requests cannot be removed'));
  if (removed(c.resources?.limits, old.resources?.limits)) errs.push(FieldError.forbidden(`${path}.limits`, 'resource limits cannot be removed'));
  const memPolicy = (c.resizePolicy ?? []).find((p) => p.resourceName === 'memory')?.restartPolicy ?? '';
  if (memPolicy === 'NotRequired' || memPolicy === '') {
    const now = quantity((c.resources?.limits as List | undefined)?.memory);
    const before = quantity((old.resources?.limits as List | undefined)?.memory);
    if (now && before && now.cmp(before) < 0) {
      errs.push(FieldError.forbidden(`${path}.limits[memory]`, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'));
    } else if (now && !before) {
      errs.push(FieldError.forbidden(`${path}.limits[memory]`, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
    }
  }
  return errs;
}

/** isPodResizeRequestSupported: a running container without status resources means a kubelet without resize. */
function resizeSupported(old: Pod): boolean {
  for (const cs of old.status?.containerStatuses ?? []) {
    if (cs.state?.running) return cs.resources !== undefined && cs.resources !== null;
  }
  return true;
}

const isSidecar = (c: Container) => c.restartPolicy === 'Always';

/** ValidatePodResize (metadata is validated by the registry). */
export function validatePodResize(pod: Pod, old: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const podLevel = (p: Pod) => nonEmpty(p.spec?.resources?.requests) || nonEmpty(p.spec?.resources?.limits);
  if (podLevel(old) || podLevel(pod)) return [FieldError.forbidden('', 'pods with pod-level resources cannot be resized')];
  if (isMirror(old)) return [FieldError.forbidden('', 'static pods cannot be resized')];
  if (old.spec?.os?.name === 'windows') return [FieldError.forbidden('', 'windows pods cannot be resized')];
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  if ((old.status?.qosClass || computeQOS(old)) !== computeQOS(pod)) {
    errs.push(FieldError.invalid('spec', pod.status?.qosClass ?? '', 'Pod QOS Class may not change as a result of resizing'));
  }
  if (!resizeSupported(old)) errs.push(FieldError.forbidden('spec', 'Pod running on node without support for resize'));
  const inits = spec.initContainers ?? [];
  const regular = spec.containers ?? [];
  (oldSpec.initContainers ?? []).forEach((o, i) => {
    if (isSidecar(o) && inits[i]) errs.push(...validateContainerResize(inits[i], o, `spec.initContainers[${i}].resources`));
  });
  (oldSpec.containers ?? []).forEach((o, i) => {
    if (regular[i]) errs.push(...validateContainerResize(regular[i], o, `spec.containers[${i}].resources`));
  });
  // Put cpu and memory back to the old values: whatever still differs was a forbidden change.
  const munged = clone(spec);
  munged.containers = regular.map((c, i) => {
    const o = oldSpec.containers?.[i] ?? {};
    const m = withOldCpuMemory(c, o);
    if (!sameContainer(m, o)) errs.push(FieldError.forbidden('spec', 'only cpu and memory resources are mutable'));
    return m;
  });
  if (munged.initContainers) {
    munged.initContainers = inits.map((c, i) => {
      const o = oldSpec.initContainers?.[i] ?? {};
      if (!isSidecar(c)) {
        if (!sameContainer(c, o)) errs.push(FieldError.forbidden('spec', 'resources for non-sidecar init containers are immutable'));
        return c;
      }
      const m = withOldCpuMemory(c, o);
      if (!sameContainer(m, o)) errs.push(FieldError.forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
      return m;
    });
  }
  if (errs.length) return errs;
  const normal = (sp: typeof spec) => ({ ...sp, containers: sp.containers?.map(normalContainer), initContainers: sp.initContainers?.map(normalContainer) });
  if (!deepEqual(normal(munged), normal(oldSpec))) errs.push(FieldError.forbidden('spec', 'only cpu and memory resources are mutable'));
  return errs;
}

/**
 * podutil.UpdatePodCondition: sets the condition of its type (appended when new), with a new transition time only
 * when the status changes.
 */
export function updatePodCondition(pod: Pod, cond: { type: string; status: string; reason?: string; message?: string }, now: string): void {
  const list = ((pod.status ??= {}).conditions ??= []);
  const next: Record<string, unknown> = { type: cond.type, status: cond.status, lastProbeTime: null, lastTransitionTime: now };
  if (cond.reason) next.reason = cond.reason;
  if (cond.message) next.message = cond.message;
  const i = list.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    list.push(next);
    return;
  }
  if (list[i].status === cond.status) next.lastTransitionTime = list[i].lastTransitionTime ?? null;
  list[i] = next;
}

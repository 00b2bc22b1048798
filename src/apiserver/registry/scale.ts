// The scale subresource (autoscaling/v1 Scale), one implementation for every kind with replicas: the definition
// names where replicas and the selector live.
import type { KObject, ScaleSubresource } from '../../api/types.js';
import { errors, FieldError } from '../../machinery/errors.js';
import { fromLabelSelector, selectorFromSet, type MetaLabelSelector } from '../../machinery/labels.js';
import { clone, isPlainObject } from '../../machinery/object.js';
import type { RequestContext } from '../context.js';
import type { ResourceStore } from './store.js';

function pathParts(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

function read(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of pathParts(path)) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function write(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = pathParts(path);
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isPlainObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

function selectorString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isPlainObject(v)) {
    // a metav1.LabelSelector, or a plain label map (ReplicationController's selector)
    if ('matchLabels' in v || 'matchExpressions' in v) return fromLabelSelector(v as MetaLabelSelector).toString();
    return selectorFromSet(v as Record<string, string>).toString();
  }
  return undefined;
}

export function scaleOf(obj: KObject, sc: ScaleSubresource): KObject {
  const m = obj.metadata;
  const status: Record<string, unknown> = { replicas: (read(obj, sc.statusReplicasPath) as number | undefined) ?? 0 };
  const sel = sc.labelSelectorPath ? selectorString(read(obj, sc.labelSelectorPath)) : undefined;
  if (sel) status.selector = sel;
  const replicas = read(obj, sc.specReplicasPath) as number | undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: replicas === undefined ? {} : { replicas },
    status,
  };
}

function scaleSpec(rs: ResourceStore): ScaleSubresource {
  const sc = rs.def.subresources?.scale;
  if (!sc) throw errors.notFound(rs.gr, '');
  return sc;
}

export async function getScale(rs: ResourceStore, ns: string, name: string): Promise<KObject> {
  return scaleOf(await rs.get(ns, name), scaleSpec(rs));
}

/**
 * Writes replicas from a Scale (or from `mutate`, which turns the current Scale into the desired one, for patches).
 * A resourceVersion in the Scale pins the update as it does for the object itself.
 */
export async function updateScale(
  rs: ResourceStore,
  ctx: RequestContext,
  ns: string,
  name: string,
  mutate: (current: KObject) => KObject,
): Promise<KObject> {
  const sc = scaleSpec(rs);
  const res = await rs.guaranteedUpdate(
    ctx,
    ns,
    name,
    (current) => {
      if (!current) throw errors.notFound(rs.gr, name);
      const desired = mutate(scaleOf(current, sc));
      if (desired.kind !== undefined && desired.kind !== 'Scale') {
        throw errors.badRequest(`the kind in the data (${String(desired.kind)}) does not match the expected kind (Scale)`);
      }
      const replicas = (desired.spec as { replicas?: unknown } | undefined)?.replicas;
      if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
        throw errors.badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
      }
      if (typeof replicas === 'number' && replicas < 0) {
        throw errors.invalid('Scale', 'autoscaling', name, [FieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
      }
      const next = clone(current);
      write(next as Record<string, unknown>, sc.specReplicasPath, replicas ?? 0);
      next.metadata.resourceVersion = desired.metadata?.resourceVersion || undefined;
      return next;
    },
    { subresource: 'scale' },
  );
  return scaleOf(res.object, sc);
}

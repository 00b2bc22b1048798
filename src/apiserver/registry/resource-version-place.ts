// Where metadata.resourceVersion goes among metadata's members in kube's JSON: after name, generateName,
// namespace, selfLink and uid (ObjectMeta's Go field order), or among sorted keys for a custom resource (an
// unstructured map). The store writes objects without it and adds it once the revision is known, so whoever adds
// it (decoding, the stored-text splices) puts it where kube writes it.

const BEFORE_IN_OBJECT_META = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid']);

/** true for a metadata key written after resourceVersion */
export type FollowsResourceVersion = (key: string) => boolean;

export const followsInObjectMeta: FollowsResourceVersion = (k) => !BEFORE_IN_OBJECT_META.has(k);
export const followsInSortedMap: FollowsResourceVersion = (k) => k > 'resourceVersion';

/** `meta` with resourceVersion `rv` in its place (a new object unless it is there already or would go last). */
export function withResourceVersion<M extends Record<string, unknown>>(meta: M, rv: string, follows: FollowsResourceVersion): M {
  const keys = Object.keys(meta);
  const at = keys.findIndex((k) => k === 'resourceVersion' || follows(k));
  if (at < 0 || keys[at] === 'resourceVersion') {
    (meta as Record<string, unknown>).resourceVersion = rv;
    return meta;
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    if (i === at) out.resourceVersion = rv;
    const k = keys[i]!;
    if (k !== 'resourceVersion') out[k] = meta[k];
  }
  return out as M;
}

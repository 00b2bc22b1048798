// Which transformer a stored value goes through, by its key: keys are /registry/<group, or core>/<resource>/…, and
// the resource's transformer is its own, else its group's (`*.apps`), else every resource's (`*.*`), as kube's
// transformerFromOverrides looks them up. Resources with none are stored as they are and refuse encrypted values.
// The overrides can be swapped while the store runs (the configuration file reloaded).
import { IdentityTransformer } from './identity.js';
import { TransformError, type PrefixTransformers } from './transformer.js';

export interface GroupResource {
  group: string;
  resource: string;
}

/** `group/resource` of a transformer map; `*` in either place is a wildcard. */
export function overrideKey(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

/** The group and resource of a storage key, or undefined for a key outside /registry/<group>/<resource>/. */
export function resourceOfKey(key: string): GroupResource | undefined {
  const m = /^\/registry\/([^/]+)\/([^/]+)\//.exec(key);
  if (!m) return undefined;
  return { group: m[1] === 'core' ? '' : m[1]!, resource: m[2]! };
}

const identity = new IdentityTransformer();

export class KeyTransformers {
  private overrides: Map<string, PrefixTransformers>;
  /** a key's resource prefix → its transformer (null: none); emptied when the overrides change */
  private readonly byPrefix = new Map<string, PrefixTransformers | null>();

  constructor(overrides: Map<string, PrefixTransformers>) {
    this.overrides = overrides;
  }

  /** Replaces every resource's transformer (a reloaded configuration); writes from now on use the new ones. */
  set(overrides: Map<string, PrefixTransformers>): void {
    this.overrides = overrides;
    this.byPrefix.clear();
  }

  /** The transformer of a resource: exact, then `*.group`, then `*.*`. */
  forResource(gr: GroupResource): PrefixTransformers | undefined {
    return (
      this.overrides.get(overrideKey(gr)) ??
      this.overrides.get(overrideKey({ group: gr.group, resource: '*' })) ??
      this.overrides.get(overrideKey({ group: '*', resource: '*' }))
    );
  }

  forKey(key: string): PrefixTransformers | undefined {
    const end = key.indexOf('/', key.indexOf('/', 10) + 1); // after /registry/<group>/<resource>
    const prefix = end > 0 ? key.slice(0, end + 1) : key;
    let t = this.byPrefix.get(prefix);
    if (t === undefined) {
      const gr = resourceOfKey(prefix);
      t = (gr && this.forResource(gr)) ?? null;
      this.byPrefix.set(prefix, t);
    }
    return t ?? undefined;
  }

  /** The stored form of a value: its transformer's bytes, or the text itself (no transformer, or identity first). */
  encode(key: string, value: string): string | Buffer {
    const t = this.forKey(key);
    if (!t || t.transformers[0]!.prefix.length === 0) return value;
    return t.toStorage(Buffer.from(value), Buffer.from(key));
  }

  /** The value of a stored form, and whether a write now would store it otherwise; throws TransformError. */
  read(key: string, stored: string | Uint8Array): { value: string; stale: boolean } {
    const t = this.forKey(key);
    if (!t) {
      if (typeof stored === 'string') return { value: stored, stale: false };
      return { value: bufferOf(identityRead(stored)).toString(), stale: false };
    }
    const r = t.fromStorage(typeof stored === 'string' ? Buffer.from(stored) : bufferOf(stored), Buffer.from(key));
    return { value: r.data.toString(), stale: r.stale };
  }

  decode(key: string, stored: string | Uint8Array): string {
    return this.read(key, stored).value;
  }

  /** The prefix a write of this key stores now ('' for plain values). */
  writePrefix(key: string): string {
    return this.forKey(key)?.writePrefix() ?? '';
  }
}

/** Bytes stored under no transformer: readable only when they are not encrypted (kube's identity check). */
export function identityRead(stored: Uint8Array): Uint8Array {
  try {
    return identity.fromStorage(bufferOf(stored)).data;
  } catch (e) {
    throw new TransformError((e as Error).message);
  }
}

/** A Buffer over the same bytes (values come back from a writer thread as plain Uint8Arrays). */
export function bufferOf(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

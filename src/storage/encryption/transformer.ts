// Encryption at rest as kube-apiserver's storage transformers (k8s.io/apiserver/pkg/storage/value): a transformer
// turns a stored value into the object's bytes and back. Values are written by the first transformer of a list and
// read by the first whose prefix they carry; a value read by any other is stale (a no-op update rewrites it).

/** What a read gives: the plain bytes, and whether a write now would store them otherwise (an older key). */
export interface FromStorage {
  data: Buffer;
  stale: boolean;
}

export interface Transformer {
  /** `context` is the value's authenticated data (its storage key): AES-GCM binds the value to it */
  fromStorage(data: Buffer, context: Buffer): FromStorage;
  toStorage(data: Buffer, context: Buffer): Buffer;
}

/** A value no transformer could read, with kube's message (the API answers 500 Internal error with it). */
export class TransformError extends Error {}

export interface PrefixTransformer {
  prefix: Buffer;
  transformer: Transformer;
}

/** Messages of several errors as Go's utilerrors aggregate prints them: one alone, else `[a, b]` without repeats. */
export function aggregateMessage(errs: Error[]): string {
  const msgs = [...new Set(errs.map((e) => e.message))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

/**
 * Tries the transformers whose prefix the value has, in order; the first writes. A failure of a matching prefix
 * does not end the search (two aescbc providers share `k8s:enc:aescbc:v1:`), and an empty prefix (identity) that
 * fails is skipped without a word, so identity may come first while data is decrypted back.
 */
export class PrefixTransformers implements Transformer {
  constructor(
    readonly transformers: PrefixTransformer[],
    /** the message when no prefix matched */
    private readonly noMatch = 'the provided value does not match any of the supported transformers',
  ) {}

  fromStorage(data: Buffer, context: Buffer): FromStorage {
    const errs: Error[] = [];
    for (let i = 0; i < this.transformers.length; i++) {
      const t = this.transformers[i]!;
      if (!hasPrefix(data, t.prefix)) continue;
      try {
        const r = t.transformer.fromStorage(data.subarray(t.prefix.length), context);
        return { data: r.data, stale: r.stale || i !== 0 };
      } catch (e) {
        if (t.prefix.length === 0) continue;
        errs.push(e instanceof Error ? e : new Error(String(e)));
      }
    }
    throw new TransformError(errs.length ? aggregateMessage(errs) : this.noMatch);
  }

  toStorage(data: Buffer, context: Buffer): Buffer {
    const t = this.transformers[0]!;
    return Buffer.concat([t.prefix, t.transformer.toStorage(data, context)]);
  }

  /** The prefix the first transformer writes, nested ones included (e.g. `k8s:enc:aescbc:v1:key1:`). */
  writePrefix(): string {
    const t = this.transformers[0]!;
    const inner = t.transformer instanceof PrefixTransformers ? t.transformer.writePrefix() : '';
    return t.prefix.toString('latin1') + inner;
  }
}

function hasPrefix(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

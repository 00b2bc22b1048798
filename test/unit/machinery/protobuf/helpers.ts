// A tiny protobuf encoder for building request bodies in tests.

export type Bytes = number[];

export function varint(n: number | bigint): Bytes {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: Bytes = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

export const key = (tag: number, wire: number): Bytes => varint(tag * 8 + wire);

/** varint field */
export const vint = (tag: number, n: number | bigint): Bytes => [...key(tag, 0), ...varint(n)];

/** length-delimited field (string, bytes or message) */
export function len(tag: number, payload: Bytes | Uint8Array | string): Bytes {
  const b = typeof payload === 'string' ? [...Buffer.from(payload, 'utf8')] : [...payload];
  return [...key(tag, 2), ...varint(b.length), ...b];
}

/** fixed64 double field */
export function dbl(tag: number, x: number): Bytes {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...key(tag, 1), ...b];
}

export const cat = (...parts: Bytes[]): Bytes => parts.flat();

export const MAGIC: Bytes = [0x6b, 0x38, 0x73, 0x00];

/** "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw, ...extra} */
export function envelope(apiVersion: string, kind: string, raw: Bytes, extra: Bytes = []): Buffer {
  return Buffer.from([...MAGIC, ...len(1, cat(len(1, apiVersion), len(2, kind))), ...len(2, raw), ...extra]);
}

/** Drops null values recursively: Go's JSON prints nil pointers / zero Times as null where protobuf has nothing. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
    return out;
  }
  return v;
}

/** A deterministic pseudo-random generator (LCG) for fuzzing. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

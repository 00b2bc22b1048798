// Protocol buffers wire format: a bounds-checked reader over one message's bytes. Every malformed input ends in a
// StatusError 400 (BadRequest), never in an exception of another kind.
import { StatusError } from '../errors.js';

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

export function protoError(message: string): StatusError {
  return new StatusError(400, 'BadRequest', `unable to decode protobuf request body: ${message}`);
}

export interface FieldKey {
  tag: number;
  wire: number;
}

export class ProtoReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint that must fit in 32 unsigned bits (keys and lengths). */
  uint32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) throw protoError('truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (result > 0xffffffff) throw protoError('varint overflows 32 bits');
        return result;
      }
    }
    throw protoError('varint overflows 32 bits');
  }

  /** A full 64-bit varint, as an unsigned bigint. */
  uint64(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw protoError('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    throw protoError('varint longer than 10 bytes');
  }

  /** int64 / int32 as Go encodes them: two's complement in a (possibly 10-byte) varint, never zigzag. */
  int(bits: 32 | 64): number {
    return Number(BigInt.asIntN(bits, this.uint64()));
  }

  key(): FieldKey {
    const k = this.uint32();
    const tag = Math.floor(k / 8);
    const wire = k & 7;
    if (tag === 0) throw protoError('field number 0');
    return { tag, wire };
  }

  /** The bounds of a length-delimited value; advances past it. */
  bytes(): Uint8Array {
    const n = this.uint32();
    if (n > this.end - this.pos) throw protoError('length-delimited field runs past the end of its message');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  fixed64(): DataView {
    return this.fixed(8);
  }

  fixed32(): DataView {
    return this.fixed(4);
  }

  private fixed(n: number): DataView {
    if (n > this.end - this.pos) throw protoError('truncated fixed-width field');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return v;
  }

  /** Skips a field of an unknown number (proto2 parsers drop unknown fields). */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.uint64();
        return;
      case WIRE_FIXED64:
        this.fixed(8);
        return;
      case WIRE_LEN:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.fixed(4);
        return;
      default:
        throw protoError(`unsupported wire type ${wire}`);
    }
  }
}

const utf8 = new TextDecoder('utf-8');

export function utf8String(b: Uint8Array): string {
  return utf8.decode(b);
}

/** Reads every field of a message into tag → raw values (for the small fixed-shape helper messages). */
export function readFields(buf: Uint8Array): Map<number, { wire: number; value: bigint | Uint8Array }> {
  const r = new ProtoReader(buf);
  const out = new Map<number, { wire: number; value: bigint | Uint8Array }>();
  while (!r.done()) {
    const { tag, wire } = r.key();
    if (wire === WIRE_VARINT) out.set(tag, { wire, value: r.uint64() });
    else if (wire === WIRE_LEN) out.set(tag, { wire, value: r.bytes() });
    else r.skip(wire);
  }
  return out;
}

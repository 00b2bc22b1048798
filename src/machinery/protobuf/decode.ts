// Decoding of Kubernetes protobuf request bodies (Content-Type application/vnd.kubernetes.protobuf) into the JSON
// object the same Go value marshals to. kubectl (1.32 and later) sends the bodies of its typed commands this
// way and does not retry with JSON on 415, so the API server must read them.
//
// The wire form is the 4-byte magic "k8s\0" followed by a runtime.Unknown message {typeMeta=1 {apiVersion=1,
// kind=2}, raw=2, contentEncoding=3, contentType=4}; raw is the object's own message. That message is walked
// with the OpenAPI schema (field types, names) and a table of field numbers (ProtoTags, from the Go struct
// tags). Go's protobuf encoding writes non-pointer scalars even when zero, while its JSON encoding drops them
// where the field is `omitempty`; the tag table marks the fields whose zero value JSON keeps (pointers and
// fields without omitempty), and every other zero scalar is dropped, so both encodings yield the same object.
import { StatusError } from '../errors.js';
import type { Schema, SchemaSet } from '../schema.js';
import {
  decodeDuration,
  decodeFieldsV1,
  decodeIntOrString,
  decodeQuantity,
  decodeRawExtension,
  decodeTime,
  SPECIAL_BY_DEFINITION,
  type SpecialType,
} from './special.js';
import { ProtoReader, protoError, readFields, utf8String, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './wire.js';

export { goDuration } from './special.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/**
 * One field of a message: its number, and `keep` when JSON prints its zero value (a pointer, or a field without
 * `omitempty`). `inline` marks a Go struct embedded with `json:",inline"` that protobuf still nests as a message
 * of field `tag`: its fields (table `inline`) are merged into the enclosing JSON object. Tag 0 is a field that
 * is not in the message (apiVersion/kind of TypeMeta, carried by the envelope).
 */
export interface ProtoField {
  tag: number;
  keep?: boolean;
  inline?: string;
}

/** Field numbers by definition name, then by JSON field name (inline entries use any key, e.g. "@volumeSource"). */
export type ProtoTags = Record<string, Record<string, number | ProtoField>>;

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const MAX_DEPTH = 100;

interface Entry {
  json: string;
  keep: boolean;
  inline?: string;
}

type Kind =
  | { k: 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'double' }
  | { k: 'special'; special: SpecialType }
  | { k: 'message'; def: string; schema: Schema }
  | { k: 'array'; item: Kind }
  | { k: 'map'; value: Kind };

function entryOf(json: string, f: number | ProtoField): Entry & { tag: number } {
  return typeof f === 'number' ? { json, tag: f, keep: false } : { json, tag: f.tag, keep: f.keep === true, inline: f.inline };
}

function hasMagic(b: Uint8Array): boolean {
  return b.length >= 4 && MAGIC.every((m, i) => b[i] === m);
}

function isZeroScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/**
 * Decodes a Kubernetes protobuf body. `rootFor` names the schema definition of apiVersion/kind (undefined: not
 * served). Throws StatusError 400 on anything malformed or undecodable.
 */
export function decodeK8sProtobuf(
  body: Uint8Array,
  schemas: SchemaSet,
  tags: ProtoTags,
  rootFor: (apiVersion: string, kind: string) => string | undefined,
): Record<string, unknown> {
  return new Decoder(schemas, tags, rootFor).envelope(body, 0);
}

class Decoder {
  private readonly tables = new Map<string, Map<number, Entry>>();
  private readonly kinds = new Map<Schema, Kind>();

  constructor(
    private readonly schemas: SchemaSet,
    private readonly tags: ProtoTags,
    private readonly rootFor: (apiVersion: string, kind: string) => string | undefined,
  ) {}

  envelope(body: Uint8Array, depth: number): Record<string, unknown> {
    if (!hasMagic(body)) throw protoError('the body does not start with the Kubernetes protobuf prefix "k8s\\x00"');
    const f = readFields(body.subarray(4));
    const str = (m: typeof f, tag: number): string => {
      const v = m.get(tag);
      if (v === undefined) return '';
      if (v.wire !== WIRE_LEN) throw protoError(`envelope field ${tag} has wire type ${v.wire}`);
      return utf8String(v.value as Uint8Array);
    };
    const tm = f.get(1);
    if (tm !== undefined && tm.wire !== WIRE_LEN) throw protoError('envelope typeMeta is not a message');
    const typeMeta = readFields(tm ? (tm.value as Uint8Array) : new Uint8Array());
    const apiVersion = str(typeMeta, 1);
    const kind = str(typeMeta, 2);
    const encoding = str(f, 3);
    const contentType = str(f, 4);
    const rawField = f.get(2);
    if (rawField !== undefined && rawField.wire !== WIRE_LEN) throw protoError('envelope raw is not length-delimited');
    const raw = rawField ? (rawField.value as Uint8Array) : new Uint8Array();
    if (encoding !== '') throw protoError(`unsupported content encoding "${encoding}"`);
    if (!kind) throw protoError('the object has no kind');
    if (!apiVersion) throw protoError('the object has no apiVersion');
    if (contentType !== '' && contentType !== PROTOBUF_MEDIA_TYPE) {
      throw protoError(`unsupported embedded content type "${contentType}"`);
    }
    const def = this.rootFor(apiVersion, kind);
    const sc = def === undefined ? undefined : this.schemas.resolve({ ref: def });
    if (def === undefined || !sc) throw protoError(`no kind "${kind}" is registered for version "${apiVersion}"`);
    const out: Record<string, unknown> = { kind, apiVersion };
    this.message(raw, def, sc, out, depth + 1);
    out.kind = kind;
    out.apiVersion = apiVersion;
    return out;
  }

  /** field number → entry for a definition (inline tables included as their own entries). */
  private table(def: string): Map<number, Entry> {
    let t = this.tables.get(def);
    if (t) return t;
    const fields = this.tags[def];
    if (!fields) throw protoError(`the protobuf form of ${def} is not supported`);
    t = new Map();
    for (const [json, f] of Object.entries(fields)) {
      const e = entryOf(json, f);
      if (e.tag > 0) t.set(e.tag, e);
    }
    this.tables.set(def, t);
    return t;
  }

  /** Decodes the message `buf` of definition `def` (schema `sc`, already resolved) into `out`. */
  private message(buf: Uint8Array, def: string, sc: Schema, out: Record<string, unknown>, depth: number): void {
    if (depth > MAX_DEPTH) throw protoError('messages nested too deeply');
    const table = this.table(def);
    const r = new ProtoReader(buf);
    while (!r.done()) {
      const { tag, wire } = r.key();
      const e = table.get(tag);
      if (!e) {
        r.skip(wire);
        continue;
      }
      if (e.inline !== undefined) {
        if (wire !== WIRE_LEN) throw protoError(`${def} field ${tag} has wire type ${wire}, expected a message`);
        this.message(r.bytes(), e.inline, sc, out, depth + 1);
        continue;
      }
      const prop = sc.properties?.[e.json];
      if (!prop) {
        r.skip(wire); // a field this server's schema does not know: dropped, as proto2 parsers drop unknown fields
        continue;
      }
      this.field(r, wire, this.kindOf(prop), e, out, `${def}.${e.json}`, depth);
    }
  }

  private field(r: ProtoReader, wire: number, kind: Kind, e: Entry, out: Record<string, unknown>, where: string, depth: number): void {
    if (kind.k === 'array') {
      const arr = Array.isArray(out[e.json]) ? (out[e.json] as unknown[]) : [];
      out[e.json] = arr;
      const item = kind.item;
      if (wire === WIRE_LEN && (item.k === 'int32' || item.k === 'int64' || item.k === 'bool' || item.k === 'double')) {
        // packed repeated scalars (Go's generated code writes them unpacked; accept both)
        const b = r.bytes();
        const pr = new ProtoReader(b);
        const w = item.k === 'double' ? WIRE_FIXED64 : WIRE_VARINT;
        while (!pr.done()) arr.push(this.value(pr, w, item, where, depth) ?? null);
        return;
      }
      arr.push(this.value(r, wire, item, where, depth) ?? null);
      return;
    }
    if (kind.k === 'map') {
      if (wire !== WIRE_LEN) throw protoError(`${where}: map entry has wire type ${wire}`);
      const m = out[e.json] !== null && typeof out[e.json] === 'object' ? (out[e.json] as Record<string, unknown>) : {};
      out[e.json] = m;
      const er = new ProtoReader(r.bytes());
      let key = '';
      let value: unknown;
      while (!er.done()) {
        const k = er.key();
        if (k.tag === 1) {
          if (k.wire !== WIRE_LEN) throw protoError(`${where}: map key has wire type ${k.wire}`);
          key = utf8String(er.bytes());
        } else if (k.tag === 2) {
          const v = kind.value;
          value = v.k === 'array' ? this.wrappedList(er, k.wire, v.item, where, depth) : this.value(er, k.wire, v, where, depth);
        } else er.skip(k.wire);
      }
      m[key] = value === undefined ? this.zero(kind.value) : value;
      return;
    }
    const prev = out[e.json];
    const v = this.value(r, wire, kind, where, depth, prev);
    if (v === undefined || (isZeroScalar(v) && !e.keep && kind.k !== 'special')) delete out[e.json];
    else out[e.json] = v;
  }

  /** A map value of list type is a message wrapping `repeated items = 1` (e.g. authorization ExtraValue). */
  private wrappedList(r: ProtoReader, wire: number, item: Kind, where: string, depth: number): unknown[] {
    if (wire !== WIRE_LEN) throw protoError(`${where}: list value has wire type ${wire}`);
    const lr = new ProtoReader(r.bytes());
    const out: unknown[] = [];
    while (!lr.done()) {
      const k = lr.key();
      if (k.tag === 1) out.push(this.value(lr, k.wire, item, where, depth) ?? null);
      else lr.skip(k.wire);
    }
    return out;
  }

  private zero(kind: Kind): unknown {
    switch (kind.k) {
      case 'string':
      case 'bytes':
        return '';
      case 'int32':
      case 'int64':
      case 'double':
        return 0;
      case 'bool':
        return false;
      case 'array':
        return [];
      case 'special':
        return this.special(new Uint8Array(), kind.special, 0) ?? null;
      default:
        return {};
    }
  }

  private value(r: ProtoReader, wire: number, kind: Kind, where: string, depth: number, prev?: unknown): unknown {
    const expect = (w: number) => {
      if (wire !== w) throw protoError(`${where} has wire type ${wire}, expected ${w}`);
    };
    switch (kind.k) {
      case 'string':
        expect(WIRE_LEN);
        return utf8String(r.bytes());
      case 'bytes':
        expect(WIRE_LEN);
        return Buffer.from(r.bytes()).toString('base64');
      case 'int32':
      case 'int64':
        expect(WIRE_VARINT);
        return r.int(kind.k === 'int32' ? 32 : 64);
      case 'bool':
        expect(WIRE_VARINT);
        return r.uint64() !== 0n;
      case 'double':
        if (wire === WIRE_FIXED64) return r.fixed64().getFloat64(0, true);
        if (wire === WIRE_FIXED32) return r.fixed32().getFloat32(0, true);
        expect(WIRE_VARINT);
        return r.int(64);
      case 'special':
        expect(WIRE_LEN);
        return this.special(r.bytes(), kind.special, depth);
      case 'message': {
        expect(WIRE_LEN);
        // proto2 merges repeated occurrences of a singular message field
        const obj = prev !== null && typeof prev === 'object' && !Array.isArray(prev) ? (prev as Record<string, unknown>) : {};
        this.message(r.bytes(), kind.def, kind.schema, obj, depth + 1);
        return obj;
      }
      case 'array':
        return this.wrappedList(r, wire, kind.item, where, depth);
      case 'map':
        throw protoError(`${where}: nested maps are not supported`);
    }
  }

  private special(b: Uint8Array, special: SpecialType, depth: number): unknown {
    switch (special) {
      case 'Time':
        return decodeTime(b, false);
      case 'MicroTime':
        return decodeTime(b, true);
      case 'Duration':
        return decodeDuration(b);
      case 'Quantity':
        return decodeQuantity(b);
      case 'IntOrString':
        return decodeIntOrString(b);
      case 'FieldsV1':
        return decodeFieldsV1(b);
      case 'RawExtension':
        return decodeRawExtension(b, (raw) => {
          if (depth + 1 > MAX_DEPTH) throw protoError('messages nested too deeply');
          return this.envelope(raw, depth + 1);
        });
    }
  }

  /** How a schema is encoded on the wire (follows refs; special apimachinery types by definition name). */
  private kindOf(sc: Schema): Kind {
    const cached = this.kinds.get(sc);
    if (cached) return cached;
    let name: string | undefined;
    let cur: Schema | undefined = sc;
    for (let i = 0; cur?.ref !== undefined && i < 32; i++) {
      name = cur.ref;
      cur = this.schemas.get(cur.ref);
    }
    if (!cur || cur.ref !== undefined) throw new StatusError(500, 'InternalError', `unresolvable schema reference ${name}`);
    const kind = this.classify(cur, name);
    this.kinds.set(sc, kind);
    return kind;
  }

  private classify(sc: Schema, name: string | undefined): Kind {
    const special = name === undefined ? undefined : SPECIAL_BY_DEFINITION.get(name);
    if (special) return { k: 'special', special };
    if (sc.intOrString) return { k: 'special', special: 'IntOrString' };
    switch (sc.type) {
      case 'array':
        if (!sc.items) throw new StatusError(500, 'InternalError', `array schema ${name ?? ''} has no items`);
        return { k: 'array', item: this.kindOf(sc.items) };
      case 'string':
        if (sc.format === 'byte') return { k: 'bytes' };
        if (sc.format === 'date-time') return { k: 'special', special: 'Time' };
        return { k: 'string' };
      case 'integer':
        return { k: sc.format === 'int32' ? 'int32' : 'int64' };
      case 'boolean':
        return { k: 'bool' };
      case 'number':
        return { k: 'double' };
      default:
        if (sc.properties === undefined && sc.additionalProperties) return { k: 'map', value: this.kindOf(sc.additionalProperties) };
        if (sc.properties === undefined && sc.preserveUnknownFields) return { k: 'special', special: 'RawExtension' };
        if (name === undefined) throw new StatusError(500, 'InternalError', 'an inline object schema has no protobuf field numbers');
        return { k: 'message', def: name, schema: sc };
    }
  }
}

/** Every "definition.field" of the schema set that has no protobuf field number in `tags`. */
export function missingProtoTags(schemas: SchemaSet, tags: ProtoTags): string[] {
  const missing: string[] = [];
  const covered = (def: string, seen: Set<string>, acc: Set<string>): Set<string> => {
    if (seen.has(def)) return acc;
    seen.add(def);
    for (const [json, f] of Object.entries(tags[def] ?? {})) {
      const e = entryOf(json, f);
      if (e.inline !== undefined) covered(e.inline, seen, acc);
      else acc.add(json);
    }
    return acc;
  };
  for (const name of schemas.names()) {
    if (SPECIAL_BY_DEFINITION.has(name)) continue;
    const sc = schemas.get(name);
    if (!sc?.properties) continue;
    const have = covered(name, new Set(), new Set());
    for (const field of Object.keys(sc.properties)) if (!have.has(field)) missing.push(`${name}.${field}`);
  }
  return missing;
}

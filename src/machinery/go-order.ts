// The member order Go's encoding/json writes, for clients that compare response bytes: a struct's fields in the
// order its Go type declares them (TypeMeta's kind before apiVersion), a map's keys sorted, and an unstructured
// object (a custom resource: map[string]interface{} all the way down) sorted at every level.
//
// Orders are pure: a value already in order is returned as it is (no copy), and only the objects on the path to
// one out of order are rebuilt, so ordering what the store wrote in order costs a walk, not an allocation.
import type { ProtoField, ProtoTags } from './protobuf/decode.js';
import { SPECIAL_BY_DEFINITION } from './protobuf/special.js';
import type { Schema, SchemaSet } from './schema.js';

/** How to order a value: a struct by its plan, a map's keys, a list's items, or nothing (scalars, raw JSON). */
type Sub = { k: 'struct'; def: string } | { k: 'map'; value: Sub } | { k: 'array'; item: Sub } | { k: 'leaf' };

/** A struct's fields: each JSON name's position and, unless its value is written as it is, how to order it. */
type Plan = Map<string, { i: number; sub: Sub | undefined }>;

const LEAF: Sub = { k: 'leaf' };
/** members Go's type does not declare go last, in the order they came */
const UNKNOWN = Number.MAX_SAFE_INTEGER;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go sorts map keys by their bytes; for the keys APIs use (below U+D800) that is UTF-16 order, as `<` compares. */
function sortedKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return keys.slice().sort();
  return keys;
}

/** A copy of `value` with its members in `order`, the ones in `changed` replaced. */
function rebuilt(value: Record<string, unknown>, order: string[], changed: Map<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) out[k] = changed !== undefined && changed.has(k) ? changed.get(k) : value[k];
  return out;
}

export class GoOrder {
  private readonly plans = new Map<string, Plan>();

  constructor(
    private readonly schemas: SchemaSet,
    private readonly tags: ProtoTags,
  ) {}

  /** `value` with its members in the order Go writes the definition `def` (the same object when it already is). */
  struct<T>(value: T, def: string): T {
    return this.order(value, { k: 'struct', def }) as T;
  }

  /** `value` as Go writes a map[string]interface{}: every object's keys sorted, at every level. */
  sorted<T>(value: T): T {
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = this.sorted(value[i]);
        if (v !== value[i]) (out ??= value.slice())[i] = v;
      }
      return (out ?? value) as T;
    }
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    const order = sortedKeys(keys);
    let changed = order !== keys;
    const vals = order.map((k) => {
      const v = this.sorted(value[k]);
      if (v !== value[k]) changed = true;
      return v;
    });
    if (!changed) return value;
    const out: Record<string, unknown> = {};
    order.forEach((k, i) => (out[k] = vals[i]));
    return out as T;
  }

  // a walk over an object in order allocates nothing: members are visited with for-in (no key array) and a
  // rebuild happens only where a member moved or a nested value had to be rebuilt
  private order(value: unknown, sub: Sub): unknown {
    switch (sub.k) {
      case 'leaf':
        return value;
      case 'array': {
        if (!Array.isArray(value)) return value;
        let out: unknown[] | undefined;
        for (let i = 0; i < value.length; i++) {
          const v = this.order(value[i], sub.item);
          if (v !== value[i]) (out ??= value.slice())[i] = v;
        }
        return out ?? value;
      }
      case 'map': {
        if (!isObject(value)) return value;
        let prev: string | undefined;
        let moved = false;
        let changed: Map<string, unknown> | undefined;
        for (const k in value) {
          if (prev !== undefined && prev > k) moved = true;
          prev = k;
          if (sub.value.k !== 'leaf') {
            const v = value[k];
            const nv = this.order(v, sub.value);
            if (nv !== v) (changed ??= new Map()).set(k, nv);
          }
        }
        if (!moved && !changed) return value;
        return rebuilt(value, moved ? Object.keys(value).sort() : Object.keys(value), changed);
      }
      case 'struct': {
        if (!isObject(value)) return value;
        const plan = this.plan(sub.def);
        if (!plan) return value;
        let last = -1;
        let moved = false;
        let changed: Map<string, unknown> | undefined;
        for (const k in value) {
          const f = plan.get(k);
          const i = f === undefined ? UNKNOWN : f.i;
          if (i < last) moved = true;
          else last = i;
          if (f?.sub !== undefined) {
            const v = value[k];
            const nv = this.order(v, f.sub);
            if (nv !== v) (changed ??= new Map()).set(k, nv);
          }
        }
        if (!moved && !changed) return value;
        const pos = (k: string) => plan.get(k)?.i ?? UNKNOWN;
        return rebuilt(value, moved ? Object.keys(value).sort((a, b) => pos(a) - pos(b)) : Object.keys(value), changed);
      }
    }
  }

  private plan(def: string): Plan | undefined {
    let plan = this.plans.get(def);
    if (plan) return plan;
    const table = this.tags[def];
    const schema = this.schemas.get(def);
    if (!table && !schema?.properties) return undefined;
    const names: string[] = [];
    const typeMeta: string[] = [];
    const add = (t: Record<string, number | ProtoField>, depth: number) => {
      for (const [json, f] of Object.entries(t)) {
        const field = typeof f === 'number' ? { tag: f } : f;
        if (field.inline) {
          const inner = this.tags[field.inline];
          if (inner && depth < 8) add(inner, depth + 1);
        } else if (field.tag === 0 && (json === 'kind' || json === 'apiVersion')) typeMeta.push(json);
        else names.push(json);
      }
    };
    if (table) add(table, 0);
    // an embedded TypeMeta comes first, and Go declares its Kind before its APIVersion
    const ordered = [...['kind', 'apiVersion'].filter((k) => typeMeta.includes(k)), ...names];
    // fields the schema has and the table lacks keep the schema's order, after the others
    for (const k of Object.keys(schema?.properties ?? {})) if (!ordered.includes(k)) ordered.push(k);
    plan = new Map();
    ordered.forEach((k, i) => {
      const sub = this.subOf(schema?.properties?.[k]);
      plan!.set(k, { i, sub: sub.k === 'leaf' ? undefined : sub });
    });
    this.plans.set(def, plan);
    return plan;
  }

  private subOf(sc: Schema | undefined, depth = 0): Sub {
    if (!sc || depth > 8 || sc.preserveUnknownFields) return LEAF;
    if (sc.ref) {
      // Time, Quantity, RawExtension (raw JSON as it came), FieldsV1 (raw JSON): written as they are
      if (SPECIAL_BY_DEFINITION.has(sc.ref)) return LEAF;
      const target = this.schemas.get(sc.ref);
      if (!target) return LEAF;
      if (target.properties || this.tags[sc.ref]) return { k: 'struct', def: sc.ref };
      return this.subOf({ ...target, ref: undefined }, depth + 1);
    }
    if (sc.type === 'array' && sc.items) {
      const item = this.subOf(sc.items, depth + 1);
      return item.k === 'leaf' ? LEAF : { k: 'array', item };
    }
    if (sc.additionalProperties) return { k: 'map', value: this.subOf(sc.additionalProperties, depth + 1) };
    return LEAF;
  }
}

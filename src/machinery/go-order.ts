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

interface Plan {
  /** position of each JSON field name */
  index: Map<string, number>;
  /** the Sub of each field */
  subs: Map<string, Sub>;
}

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
        const keys = Object.keys(value);
        const order = sortedKeys(keys);
        return this.rebuild(value, order, order !== keys, () => sub.value);
      }
      case 'struct': {
        if (!isObject(value)) return value;
        const plan = this.plan(sub.def);
        if (!plan) return value;
        const keys = Object.keys(value);
        let last = -1;
        let outOfOrder = false;
        for (const k of keys) {
          const i = plan.index.get(k) ?? UNKNOWN;
          if (i < last) {
            outOfOrder = true;
            break;
          }
          last = i;
        }
        const order = outOfOrder ? keys.slice().sort((a, b) => (plan.index.get(a) ?? UNKNOWN) - (plan.index.get(b) ?? UNKNOWN)) : keys;
        return this.rebuild(value, order, outOfOrder, (k) => plan.subs.get(k) ?? LEAF);
      }
    }
  }

  /** `value` with members in `order` and each member ordered by its Sub; itself when nothing moved or changed. */
  private rebuild(value: Record<string, unknown>, order: string[], moved: boolean, subOf: (k: string) => Sub): Record<string, unknown> {
    let vals: unknown[] | undefined;
    for (let i = 0; i < order.length; i++) {
      const k = order[i]!;
      const sub = subOf(k);
      if (sub.k === 'leaf') continue;
      const v = this.order(value[k], sub);
      if (v !== value[k]) (vals ??= [])[i] = v;
    }
    if (!moved && !vals) return value;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < order.length; i++) {
      const k = order[i]!;
      out[k] = vals && i in vals ? vals[i] : value[k];
    }
    return out;
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
    plan = { index: new Map(ordered.map((k, i) => [k, i])), subs: new Map() };
    for (const k of ordered) {
      const sub = this.subOf(schema?.properties?.[k]);
      if (sub.k !== 'leaf') plan.subs.set(k, sub);
    }
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

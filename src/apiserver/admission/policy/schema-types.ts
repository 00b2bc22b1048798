// The CEL type of a served kind from its OpenAPI schema (common.SchemaDeclType over the resolved schema), for type
// checking policies: objects with their fields, maps, lists, int-or-string and unknown fields as dyn, date-time as
// timestamp, byte as bytes. Types are built once per definition and shared by recursive references.
import { T, escapeName, objectType, type DeclType } from '../../../machinery/cel/index.js';
import type { Schema, SchemaSet } from '../../../machinery/schema.js';
import type { ResourceStore } from '../../registry/store.js';

let unique = 0;

/** The kind's type, or undefined when it has no schema to check against. */
export function kindDeclType(store: ResourceStore, schemas: SchemaSet): DeclType | undefined {
  const d = store.def;
  const defs = d.definitions as Record<string, Schema> | undefined;
  const lookup = (ref: string): Schema | undefined => defs?.[ref] ?? schemas.get(ref);
  const root = lookup(d.schemaRef);
  if (!root) return undefined;
  const byRef = new Map<string, DeclType>();
  const prefix = `${d.kind}${++unique}`;

  const convert = (s0: Schema | undefined, path: string, depth: number): DeclType | undefined => {
    let s = s0;
    let ref: string | undefined;
    for (let i = 0; s?.ref && i < 32; i++) {
      ref = s.ref;
      const known = byRef.get(ref);
      if (known) return known;
      s = lookup(ref);
    }
    if (!s || depth > 64) return undefined;
    if (s.intOrString) return T.dyn();
    switch (s.type) {
      case 'string':
        if (s.format === 'date-time' || s.format === 'date') return T.timestamp();
        if (s.format === 'byte') return T.bytes();
        if (s.format === 'duration') return T.duration();
        return T.string();
      case 'integer':
        return T.int();
      case 'number':
        return T.double();
      case 'boolean':
        return T.bool();
      case 'array': {
        const e = convert(s.items, `${path}.@idx`, depth + 1);
        return e && T.list(e);
      }
      case 'object':
      case undefined: {
        if (s.additionalProperties) {
          const v = convert(s.additionalProperties, `${path}.@elem`, depth + 1);
          return v && T.map(v);
        }
        if (!s.properties) return s.preserveUnknownFields || s.type === undefined ? T.dyn() : T.map(T.dyn());
        // object types are registered before their fields are filled, so a recursive reference finds them
        const fields = new Map<string, DeclType>();
        const json = new Map<string, string>();
        const t = objectType(`${prefix}${path}`.replace(/[^A-Za-z0-9_.]/g, '_'), fields, json);
        if (ref) byRef.set(ref, t);
        for (const [k, p] of Object.entries(s.properties)) {
          const esc = escapeName(k);
          if (!esc) continue;
          const ft = convert(p, `${path}.${esc}`, depth + 1);
          if (!ft) continue;
          fields.set(esc, ft);
          json.set(esc, k);
        }
        return t;
      }
    }
    return undefined;
  };
  const t = convert(root, '', 0);
  return t?.kind === 'object' ? t : undefined;
}

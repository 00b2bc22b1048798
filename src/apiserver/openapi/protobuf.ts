// /openapi/v2 as protobuf. client-go's OpenAPISchema() asks only for
// `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and proto-decodes whatever comes back, so kubectl
// cannot use a JSON-only /openapi/v2: `explain --output=plaintext-openapiv2`, client-side validation (kinds whose
// PATCH lacks fieldValidation) and apply's fallback source of patch metadata all fail with "proto: cannot parse
// invalid wire-format data". This encodes the Swagger JSON produced by openapiV2 as gnostic's openapi.v2.Document
// (OpenAPIv2.proto field numbers). Values of `default`, `enum` and `x-*` extensions travel as Any{yaml}: JSON text
// is valid YAML, which is how clients (kube-openapi, kubectl) read them back.

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_OLD = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** Which form of /openapi/v2 to serve for an Accept header (kube-openapi's handler order: JSON first, then protobuf). */
export function negotiateOpenapiV2(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (!accept) return 'json';
  const clauses = accept.split(',').map((c) => {
    const [type, ...params] = c.trim().split(';').map((x) => x.trim());
    const qp = params.find((p) => p.startsWith('q='));
    return { type: type.toLowerCase(), q: qp ? Number(qp.slice(2)) : 1 };
  });
  clauses.sort((a, b) => b.q - a.q);
  for (const { type, q } of clauses) {
    if (q <= 0) continue;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'json';
    if (type === OPENAPI_V2_PROTOBUF || type === OPENAPI_V2_PROTOBUF_OLD) return 'protobuf';
  }
  return undefined;
}

type Json = Record<string, unknown>;

/** Minimal proto3 writer: length-delimited fields, varints, and nothing written for empty scalars. */
class Writer {
  private readonly parts: Buffer[] = [];

  private varint(n: number): void {
    const bytes: number[] = [];
    let v = n;
    while (v > 0x7f) {
      bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: 0 | 2): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Buffer): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
  }

  str(field: number, v: unknown): void {
    if (typeof v === 'string' && v !== '') this.bytes(field, Buffer.from(v, 'utf8'));
  }

  strs(field: number, v: unknown): void {
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') this.bytes(field, Buffer.from(x, 'utf8'));
  }

  bool(field: number, v: unknown): void {
    if (v === true) {
      this.tag(field, 0);
      this.varint(1);
    }
  }

  /** A message field; written even when empty, since presence matters for oneofs and optional messages. */
  msg(field: number, fill: (w: Writer) => void): void {
    const w = new Writer();
    fill(w);
    this.bytes(field, w.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): [string, unknown][] => (isObj(v) ? Object.entries(v) : []);

/** Any { string yaml = 2 } */
const any = (v: unknown) => (w: Writer) => w.str(2, JSON.stringify(v));

/** repeated NamedAny vendor_extension: every `x-` key of `j`. NamedAny { name = 1; Any value = 2 } */
function extensions(w: Writer, field: number, j: Json): void {
  for (const [k, v] of Object.entries(j))
    if (k.startsWith('x-'))
      w.msg(field, (n) => {
        n.str(1, k);
        n.msg(2, any(v));
      });
}

function schema(w: Writer, j: Json): void {
  w.str(1, j.$ref);
  w.str(2, j.format);
  w.str(3, j.title);
  w.str(4, j.description);
  if ('default' in j) w.msg(5, any(j.default));
  w.str(13, j.pattern);
  w.bool(16, j.uniqueItems);
  w.strs(19, j.required);
  if (Array.isArray(j.enum)) for (const e of j.enum) w.msg(20, any(e));
  // AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2 } }; openapiV2 emits schemas only.
  const ap = j.additionalProperties;
  if (isObj(ap)) w.msg(21, (a) => a.msg(1, (s) => schema(s, ap)));
  if (j.type !== undefined) w.msg(22, (t) => t.strs(1, Array.isArray(j.type) ? j.type : [j.type]));
  const items = j.items;
  if (items !== undefined) w.msg(23, (i) => (Array.isArray(items) ? items : [items]).forEach((it) => isObj(it) && i.msg(1, (s) => schema(s, it))));
  if (Array.isArray(j.allOf)) for (const x of j.allOf) if (isObj(x)) w.msg(24, (s) => schema(s, x));
  if (isObj(j.properties)) w.msg(25, (p) => named(p, j.properties, schema));
  w.bool(27, j.readOnly);
  extensions(w, 31, j);
}

/** Repeated Named* entries { name = 1; value = 2 } at field 1 of the enclosing message. */
function named(w: Writer, obj: unknown, enc: (w: Writer, j: Json) => void, field = 1): void {
  for (const [k, v] of entries(obj))
    if (isObj(v))
      w.msg(field, (n) => {
        n.str(1, k);
        n.msg(2, (x) => enc(x, v));
      });
}

/** Query and path parameters share field numbers up to `type`; after that the two layouts differ by one. */
function nonBody(w: Writer, j: Json): void {
  const query = j.in === 'query' || j.in === 'formData';
  const field = j.in === 'header' ? 1 : j.in === 'formData' ? 2 : query ? 3 : 4;
  w.msg(field, (p) => {
    p.bool(1, j.required);
    p.str(2, j.in);
    p.str(3, j.description);
    p.str(4, j.name);
    const base = query ? 6 : 5;
    p.str(base, j.type);
    p.str(base + 1, j.format);
    p.bool(query ? 20 : 19, j.uniqueItems);
    extensions(p, query ? 23 : 22, j);
  });
}

/** ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2 } } */
function parametersItem(w: Writer, j: Json): void {
  if (typeof j.$ref === 'string') {
    w.msg(2, (r) => {
      r.str(1, j.$ref);
      r.str(2, j.description);
    });
    return;
  }
  w.msg(1, (p) => {
    if (j.in === 'body')
      p.msg(1, (b) => {
        b.str(1, j.description);
        b.str(2, j.name);
        b.str(3, j.in);
        b.bool(4, j.required);
        if (isObj(j.schema)) b.msg(5, (s) => schema(s, j.schema as Json));
        extensions(b, 6, j);
      });
    else p.msg(2, (nb) => nonBody(nb, j));
  });
}

function operation(w: Writer, j: Json): void {
  w.strs(1, j.tags);
  w.str(2, j.summary);
  w.str(3, j.description);
  w.str(5, j.operationId);
  w.strs(6, j.produces);
  w.strs(7, j.consumes);
  if (Array.isArray(j.parameters)) for (const p of j.parameters) if (isObj(p)) w.msg(8, (x) => parametersItem(x, p));
  w.msg(9, (rs) => {
    for (const [code, r] of entries(j.responses))
      if (isObj(r))
        rs.msg(1, (n) => {
          n.str(1, code);
          n.msg(2, (rv) =>
            rv.msg(1, (resp) => {
              resp.str(1, r.description);
              if (isObj(r.schema)) resp.msg(2, (si) => si.msg(1, (s) => schema(s, r.schema as Json)));
              extensions(resp, 5, r);
            }),
          );
        });
  });
  w.strs(10, j.schemes);
  w.bool(11, j.deprecated);
  extensions(w, 13, j);
}

const METHOD_FIELDS: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(w: Writer, j: Json): void {
  w.str(1, j.$ref);
  for (const [m, f] of METHOD_FIELDS) if (isObj(j[m])) w.msg(f, (o) => operation(o, j[m] as Json));
  if (Array.isArray(j.parameters)) for (const p of j.parameters) if (isObj(p)) w.msg(9, (x) => parametersItem(x, p));
  extensions(w, 10, j);
}

/** The protobuf form of a Swagger 2.0 document (as produced by openapiV2). */
export function openapiV2Protobuf(doc: Json): Buffer {
  const w = new Writer();
  w.str(1, doc.swagger);
  if (isObj(doc.info))
    w.msg(2, (i) => {
      const info = doc.info as Json;
      i.str(1, info.title);
      i.str(2, info.version);
      i.str(3, info.description);
      extensions(i, 7, info);
    });
  w.str(3, doc.host);
  w.str(4, doc.basePath);
  w.strs(5, doc.schemes);
  w.strs(6, doc.consumes);
  w.strs(7, doc.produces);
  // Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2 }
  w.msg(8, (p) => named(p, doc.paths, pathItem, 2));
  if (isObj(doc.definitions)) w.msg(9, (d) => named(d, doc.definitions, schema));
  extensions(w, 16, doc);
  return w.finish();
}

// A small OpenAPI-shaped schema language. One schema per type drives: OpenAPI v2/v3 documents, strict field
// validation (unknown/duplicate fields), strategic-merge-patch metadata (merge keys, strategies) and
// server-side apply (list types and map keys). Definitions are plain data; names follow Kubernetes'
// OpenAPI definition names (e.g. "io.k8s.api.core.v1.PodSpec") so clients that key on them keep working.

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface Schema {
  type?: SchemaType;
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  items?: Schema;
  enum?: string[];
  default?: unknown;
  /** Name of a definition (no "#/definitions/" prefix). */
  ref?: string;
  /** x-kubernetes-int-or-string */
  intOrString?: boolean;
  /** x-kubernetes-preserve-unknown-fields: any JSON value or unknown fields allowed */
  preserveUnknownFields?: boolean;
  /** x-kubernetes-embedded-resource */
  embeddedResource?: boolean;
  /** x-kubernetes-patch-merge-key */
  patchMergeKey?: string;
  /** x-kubernetes-patch-strategy: "merge", "retainKeys", "merge,retainKeys", "replace" */
  patchStrategy?: string;
  /** x-kubernetes-list-type */
  listType?: 'atomic' | 'set' | 'map';
  /** x-kubernetes-list-map-keys */
  listMapKeys?: string[];
  /** x-kubernetes-map-type */
  mapType?: 'atomic' | 'granular';
  /** x-kubernetes-unions etc. are not modelled */
}

export type Definitions = Record<string, Schema>;

interface Common {
  description?: string;
  default?: unknown;
}

interface ListOpts extends Common {
  /** strategic merge: merge lists of objects keyed by this field */
  mergeKey?: string;
  /** strategic merge patch strategy; "merge" is implied by mergeKey for object lists */
  strategy?: string;
  /** server-side apply list type; defaults: "map" with mergeKey, else "atomic" */
  listType?: 'atomic' | 'set' | 'map';
  /** server-side apply keys for listType "map"; defaults to [mergeKey] */
  mapKeys?: string[];
}

/** Schema builders. `description` is what `kubectl explain` prints. */
export const s = {
  str(description?: string, extra: Partial<Schema> = {}): Schema {
    return { type: 'string', description, ...extra };
  },
  enumOf(values: string[], description?: string): Schema {
    return { type: 'string', enum: values, description };
  },
  int32(description?: string, extra: Partial<Schema> = {}): Schema {
    return { type: 'integer', format: 'int32', description, ...extra };
  },
  int64(description?: string, extra: Partial<Schema> = {}): Schema {
    return { type: 'integer', format: 'int64', description, ...extra };
  },
  num(description?: string): Schema {
    return { type: 'number', format: 'double', description };
  },
  bool(description?: string, extra: Partial<Schema> = {}): Schema {
    return { type: 'boolean', description, ...extra };
  },
  /** base64-encoded bytes ([]byte in Go) */
  bytes(description?: string): Schema {
    return { type: 'string', format: 'byte', description };
  },
  /** metav1.Time */
  time(description?: string): Schema {
    return { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time', description };
  },
  microTime(description?: string): Schema {
    return { ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', description };
  },
  quantity(description?: string): Schema {
    return { ref: 'io.k8s.apimachinery.pkg.api.resource.Quantity', description };
  },
  intOrString(description?: string): Schema {
    return { ref: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', description };
  },
  ref(name: string, description?: string, extra: Partial<Schema> = {}): Schema {
    return { ref: name, description, ...extra };
  },
  obj(properties: Record<string, Schema>, opts: Common & { required?: string[]; mapType?: 'atomic' | 'granular' } = {}): Schema {
    const sc: Schema = { type: 'object', properties, description: opts.description };
    if (opts.required?.length) sc.required = opts.required;
    if (opts.mapType) sc.mapType = opts.mapType;
    if (opts.default !== undefined) sc.default = opts.default;
    return sc;
  },
  /** map[string]T */
  map(values: Schema, description?: string): Schema {
    return { type: 'object', additionalProperties: values, description };
  },
  /** map[string]string */
  strMap(description?: string): Schema {
    return { type: 'object', additionalProperties: { type: 'string', default: '' }, description };
  },
  arr(items: Schema, opts: ListOpts = {}): Schema {
    const sc: Schema = { type: 'array', items, description: opts.description };
    if (opts.mergeKey) {
      sc.patchMergeKey = opts.mergeKey;
      sc.patchStrategy = opts.strategy ?? 'merge';
    } else if (opts.strategy) sc.patchStrategy = opts.strategy;
    const lt = opts.listType ?? (opts.mergeKey ? 'map' : 'atomic');
    sc.listType = lt;
    if (lt === 'map') sc.listMapKeys = opts.mapKeys ?? (opts.mergeKey ? [opts.mergeKey] : undefined);
    return sc;
  },
  /** []string kept as a set for apply and merged for strategic merge patch (e.g. finalizers) */
  strSet(description?: string, opts: { strategy?: string } = {}): Schema {
    const sc: Schema = { type: 'array', items: { type: 'string', default: '' }, description, listType: 'set' };
    if (opts.strategy) sc.patchStrategy = opts.strategy;
    return sc;
  },
  any(description?: string): Schema {
    return { type: 'object', preserveUnknownFields: true, description };
  },
};

/** Resolves refs across a set of definitions. One instance per cluster (definitions may grow with CRDs). */
export class SchemaSet {
  private readonly defs = new Map<string, Schema>();
  /** what walkers derive from one schema node (server-side apply's atoms, fieldsV1 keys), kept per node object */
  readonly derived = new WeakMap<object, unknown>();

  constructor(...sets: Definitions[]) {
    for (const d of sets) this.add(d);
  }

  add(defs: Definitions): void {
    for (const [name, sc] of Object.entries(defs)) this.defs.set(name, sc);
  }

  remove(names: string[]): void {
    for (const n of names) this.defs.delete(n);
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  get(name: string): Schema | undefined {
    return this.defs.get(name);
  }

  names(): string[] {
    return [...this.defs.keys()];
  }

  /** Follows `ref` (keeping nothing but the target; descriptions on refs are for documentation only). */
  resolve(sc: Schema | undefined): Schema | undefined {
    let cur = sc;
    for (let i = 0; cur?.ref && i < 32; i++) cur = this.defs.get(cur.ref);
    return cur;
  }

  /** Schema of the value under `key` of an object described by `sc` (properties or additionalProperties). */
  field(sc: Schema | undefined, key: string): Schema | undefined {
    const r = this.resolve(sc);
    if (!r) return undefined;
    if (r.properties && key in r.properties) return r.properties[key];
    if (r.additionalProperties) return r.additionalProperties;
    return undefined;
  }

  /** Schema of the items of an array described by `sc`. */
  items(sc: Schema | undefined): Schema | undefined {
    return this.resolve(sc)?.items;
  }
}

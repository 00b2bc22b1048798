import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineResource } from '../../../src/api/types.js';
import { s, SchemaSet, type Schema } from '../../../src/machinery/schema.js';
import {
  negotiateOpenapiV2,
  openapiV2,
  openapiV2Protobuf,
  openapiV3GroupVersion,
  openapiV3Hash,
  openapiV3Index,
  PATCH_TYPES_NO_SMP,
} from '../../../src/apiserver/openapi/index.js';
import { OBJECT_META, resources, schemaSet, toy } from './openapi-fixtures.js';

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOY_ITEM = '/apis/example.com/v1/namespaces/{namespace}/toys/{name}';
const v2 = () => openapiV2(resources, schemaSet(), { version: 'v1.33.0' }) as J;
const v3 = (gv = 'apis/example.com/v1') => openapiV3GroupVersion(resources, schemaSet(), gv) as J;

/** Every "$ref" string anywhere in a document. */
function refs(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) x.forEach((y) => refs(y, out));
  else if (x && typeof x === 'object')
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  return out;
}

const ops = (doc: J) => Object.values(doc.paths as J).flatMap((p: J) => ['get', 'put', 'post', 'patch', 'delete'].filter((m) => p[m]).map((m) => p[m] as J));
const paramNames = (op: J) => (op.parameters ?? []).map((p: J) => p.name);

describe('openapi v2', () => {
  it('has definitions with group-version-kinds, generated lists and apimachinery stand-ins', () => {
    const d = v2().definitions as J;
    assert.deepEqual(d['com.example.v1.Toy']['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Toy', version: 'v1' }]);
    const list = d['com.example.v1.ToyList'];
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'ToyList', version: 'v1' }]);
    assert.deepEqual(list.properties.items.items, { $ref: '#/definitions/com.example.v1.Toy', default: {} });
    assert.equal(list.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
    assert.deepEqual(list.required, ['items']);
    assert.deepEqual(d['io.k8s.api.core.v1.WidgetList']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'WidgetList', version: 'v1' }]);
    assert.deepEqual(d['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
    for (const n of ['ListMeta', 'Status', 'DeleteOptions', 'WatchEvent', 'Patch']) assert.ok(d[`io.k8s.apimachinery.pkg.apis.meta.v1.${n}`], n);
    assert.deepEqual(Object.keys(d), [...Object.keys(d)].sort(), 'definitions are sorted');
  });

  it('keeps description and default beside $ref and renders the vendor extensions', () => {
    const d = v2().definitions as J;
    assert.deepEqual(d['com.example.v1.Toy'].properties.metadata, { $ref: `#/definitions/${OBJECT_META}`, description: 'Standard object metadata.', default: {} });
    const spec = d['com.example.v1.ToySpec'];
    assert.deepEqual(spec.required, ['color']);
    assert.deepEqual(spec.properties.color, { description: 'Colour of the toy.', type: 'string', enum: ['Blue', 'Green', 'Red'] });
    const parts = spec.properties.parts;
    assert.equal(parts['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(parts['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(parts['x-kubernetes-list-type'], 'map');
    assert.deepEqual(parts['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(spec.properties.tags['x-kubernetes-list-type'], 'set');
    assert.equal(spec.properties.extra['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(d['com.example.v1.ToyStatus']['x-kubernetes-map-type'], 'granular');
    assert.deepEqual(d[OBJECT_META].properties.finalizers['x-kubernetes-patch-strategy'], 'merge');
  });

  it('resolves every $ref and drops refs to unknown definitions', () => {
    const doc = v2();
    for (const r of refs(doc)) assert.ok(doc.definitions[r.replace('#/definitions/', '')], r);
    const broken = defineResource({
      ...toy,
      schemaRef: 'B',
      definitions: { B: s.obj({ x: s.ref('Nowhere', 'a missing type'), y: { type: 'object', intOrString: true } }) },
    });
    const d = (openapiV2([broken], new SchemaSet()) as J).definitions;
    assert.deepEqual(d.B.properties.x, { description: 'a missing type' });
    assert.equal(d.B.properties.y['x-kubernetes-int-or-string'], true);
  });

  it('describes every operation with action, group-version-kind and the write parameters kubectl checks', () => {
    const doc = v2();
    const item = doc.paths[TOY_ITEM];
    assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
    const patch = item.patch;
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'example.com', kind: 'Toy', version: 'v1' });
    assert.deepEqual(paramNames(patch), ['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
    assert.deepEqual(patch.parameters[3], { uniqueItems: true, type: 'string', description: patch.parameters[3].description, name: 'fieldValidation', in: 'query' });
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'));
    assert.equal(patch.parameters[0].schema.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    assert.deepEqual(item.parameters.map((p: J) => [p.name, p.in, p.required]), [['name', 'path', true], ['namespace', 'path', true], ['pretty', 'query', undefined]]);
    assert.ok(paramNames(item.put).includes('fieldValidation') && paramNames(item.put).includes('dryRun'));
    const coll = doc.paths['/apis/example.com/v1/namespaces/{namespace}/toys'];
    assert.deepEqual([coll.get['x-kubernetes-action'], coll.post['x-kubernetes-action'], coll.delete['x-kubernetes-action']], ['list', 'post', 'deletecollection']);
    assert.ok(paramNames(coll.post).includes('fieldValidation'));
    assert.equal(coll.get.responses['200'].schema.$ref, '#/definitions/com.example.v1.ToyList');
    assert.equal(coll.get.operationId, 'listExampleComV1NamespacedToy');
    assert.equal(doc.paths['/apis/example.com/v1/toys'].get.operationId, 'listExampleComV1ToyForAllNamespaces');
    assert.equal(doc.paths['/apis/example.com/v1/watch/namespaces/{namespace}/toys'].get['x-kubernetes-action'], 'watchlist');
    assert.equal(doc.paths['/apis/example.com/v1/watch/namespaces/{namespace}/toys/{name}'].get['x-kubernetes-action'], 'watch');
    const status = doc.paths[`${TOY_ITEM}/status`];
    assert.deepEqual(status.patch['x-kubernetes-group-version-kind'], { group: 'example.com', kind: 'Toy', version: 'v1' });
    assert.ok(paramNames(status.patch).includes('fieldValidation'));
    const scale = doc.paths[`${TOY_ITEM}/scale`];
    assert.deepEqual(scale.put['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    assert.equal(scale.get.responses['200'].schema.$ref, '#/definitions/io.k8s.api.autoscaling.v1.Scale');
    const ids = ops(doc).map((o) => o.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
  });

  it('serves only the verbs a resource has', () => {
    const doc = v2();
    assert.deepEqual(Object.keys(doc.paths['/api/v1/widgets']).sort(), ['get', 'parameters', 'post']);
    assert.deepEqual(Object.keys(doc.paths['/api/v1/widgets/{name}']).sort(), ['delete', 'get', 'parameters']);
    assert.equal(doc.paths['/api/v1/widgets'].get.operationId, 'listCoreV1Widget');
    assert.ok(doc.paths['/api/v1/watch/widgets/{name}']);
  });
});

describe('openapi v3', () => {
  it('indexes group-versions with hashed links', () => {
    const seen: string[] = [];
    const idx = openapiV3Index(resources, (k) => (seen.push(k), `H-${k.length}`));
    assert.deepEqual(Object.keys(idx.paths), ['api/v1', 'apis/example.com/v1', 'apis/example.com/v1beta1']);
    assert.equal(idx.paths['apis/example.com/v1'].serverRelativeURL, '/openapi/v3/apis/example.com/v1?hash=H-19');
    assert.deepEqual(seen.sort(), Object.keys(idx.paths));
    const bySet = openapiV3Index(resources, schemaSet());
    assert.equal(bySet.paths['api/v1'].serverRelativeURL, `/openapi/v3/api/v1?hash=${openapiV3Hash(v3('api/v1'))}`);
    assert.match(openapiV3Hash('x'), /^[0-9A-F]{128}$/);
  });

  it('carries only the schemas its kinds reach, wrapping refs with siblings in allOf', () => {
    const doc = v3();
    assert.equal(doc.openapi, '3.0.0');
    const sc = doc.components.schemas as J;
    for (const n of ['com.example.v1.Toy', 'com.example.v1.ToyList', 'com.example.v1.ToyPart', OBJECT_META, 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'io.k8s.api.autoscaling.v1.Scale'])
      assert.ok(sc[n], n);
    for (const n of ['io.k8s.api.core.v1.Widget', 'com.example.v1beta1.Toy']) assert.equal(sc[n], undefined, n);
    assert.deepEqual(sc['com.example.v1.Toy'].properties.metadata, { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }], description: 'Standard object metadata.', default: {} });
    assert.deepEqual(sc['com.example.v1.ToySpec'].properties.parts.items, { allOf: [{ $ref: '#/components/schemas/com.example.v1.ToyPart' }], default: {} });
    assert.deepEqual(sc['com.example.v1.ToyList'].properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' }]);
    assert.deepEqual(sc['com.example.v1.Toy']['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Toy', version: 'v1' }]);
    for (const r of refs(doc)) assert.ok(sc[r.replace('#/components/schemas/', '')], r);
    assert.deepEqual(Object.keys(v3('apis/example.com/v1beta1').paths).filter((p) => p.includes('/v1/')), []);
  });

  it('describes operations the way kubectl reads them', () => {
    const doc = v3();
    const patch = doc.paths[TOY_ITEM].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'example.com', kind: 'Toy', version: 'v1' });
    const fv = patch.parameters.find((p: J) => p.name === 'fieldValidation');
    assert.deepEqual(fv, { name: 'fieldValidation', in: 'query', description: fv.description, schema: { type: 'string', uniqueItems: true } });
    assert.deepEqual(Object.keys(patch.requestBody.content).sort(), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    assert.equal(patch.requestBody.required, true);
    assert.equal(patch.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/com.example.v1.Toy');
    const list = doc.paths['/apis/example.com/v1/namespaces/{namespace}/toys'].get;
    assert.ok(list.responses['200'].content['application/json;stream=watch']);
    assert.equal(doc.paths[TOY_ITEM].parameters[0].required, true);
    for (const op of ops(doc)) assert.ok(op['x-kubernetes-action'] && op['x-kubernetes-group-version-kind'], op.operationId);
    assert.equal(openapiV3GroupVersion(resources, schemaSet(), { group: 'nope', version: 'v1' }), undefined);
    assert.equal(openapiV3GroupVersion(resources, schemaSet(), 'version'), undefined);
    const crdLike = openapiV3GroupVersion(resources, schemaSet(), 'apis/example.com/v1', undefined, { patchTypes: () => PATCH_TYPES_NO_SMP }) as J;
    assert.equal(crdLike.paths[TOY_ITEM].patch.requestBody.content['application/strategic-merge-patch+json'], undefined);
  });
});

/** Minimal protobuf reader: field number → raw values (varints as numbers, length-delimited as Buffers). */
function fields(buf: Buffer): Map<number, (number | Buffer)[]> {
  const out = new Map<number, (number | Buffer)[]>();
  let i = 0;
  const varint = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      n += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return n;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const [f, wire] = [Math.floor(tag / 8), tag % 8];
    let v: number | Buffer;
    if (wire === 0) v = varint();
    else if (wire === 2) {
      const len = varint();
      v = buf.subarray(i, i + len);
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(f, [...(out.get(f) ?? []), v]);
  }
  return out;
}
const str = (b: number | Buffer | undefined) => (b as Buffer).toString('utf8');
const msgs = (m: Map<number, (number | Buffer)[]>, f: number) => (m.get(f) ?? []).map((b) => fields(b as Buffer));
/** Named* entries of a repeated field as name → value message. */
const named = (m: Map<number, (number | Buffer)[]>, f: number) => new Map(msgs(m, f).map((n) => [str(n.get(1)![0]), fields(n.get(2)![0] as Buffer)]));

describe('openapi v2 protobuf', () => {
  it('negotiates like kube-openapi', () => {
    assert.equal(negotiateOpenapiV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf'), 'protobuf');
    assert.equal(negotiateOpenapiV2('application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json'), 'protobuf');
    assert.equal(negotiateOpenapiV2('application/json, */*'), 'json');
    assert.equal(negotiateOpenapiV2(undefined), 'json');
    assert.equal(negotiateOpenapiV2('text/html'), undefined);
  });

  it('encodes the document as gnostic openapi.v2.Document', () => {
    const doc = fields(openapiV2Protobuf(v2()));
    assert.equal(str(doc.get(1)![0]), '2.0');
    assert.equal(str(fields(doc.get(2)![0] as Buffer).get(2)![0]), 'v1.33.0');
    const defs = named(msgs(doc, 9)[0], 1);
    const toyDef = defs.get('com.example.v1.Toy')!;
    const ext = named(toyDef, 31).get('x-kubernetes-group-version-kind')!;
    assert.deepEqual(JSON.parse(str(ext.get(2)![0])), [{ group: 'example.com', kind: 'Toy', version: 'v1' }]);
    const props = named(msgs(toyDef, 25)[0], 1);
    const meta = props.get('metadata')!;
    assert.equal(str(meta.get(1)![0]), `#/definitions/${OBJECT_META}`);
    assert.equal(str(meta.get(4)![0]), 'Standard object metadata.');
    assert.equal(str(fields(meta.get(5)![0] as Buffer).get(2)![0]), '{}');
    const spec = defs.get('com.example.v1.ToySpec')!;
    assert.deepEqual(spec.get(19)!.map(str), ['color']);
    const parts = named(msgs(spec, 25)[0], 1).get('parts')!;
    assert.deepEqual(msgs(parts, 22)[0].get(1)!.map(str), ['array']);
    assert.equal(str(msgs(msgs(parts, 23)[0], 1)[0].get(1)![0]), '#/definitions/com.example.v1.ToyPart');
    const paths = named(msgs(doc, 8)[0], 2);
    const patch = msgs(paths.get(TOY_ITEM)!, 8)[0];
    const params = msgs(patch, 8).map((pi) => fields(pi.get(1)![0] as Buffer));
    const query = params.filter((p) => p.has(2)).map((p) => msgs(msgs(p, 2)[0], 3)[0]);
    assert.ok(query.some((q) => str(q.get(4)![0]) === 'fieldValidation' && str(q.get(2)![0]) === 'query' && q.get(20)![0] === 1));
    const body = params.find((p) => p.has(1))!;
    assert.equal(str(msgs(msgs(body, 1)[0], 5)[0].get(1)![0]), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    const action = named(patch, 13).get('x-kubernetes-action')!;
    assert.equal(JSON.parse(str(action.get(2)![0])), 'patch');
    const ok = named(msgs(patch, 9)[0], 1).get('200')!;
    assert.equal(str(msgs(msgs(msgs(ok, 1)[0], 2)[0], 1)[0].get(1)![0]), '#/definitions/com.example.v1.Toy');
  });
});

describe('openapi fixtures', () => {
  it('are valid resource definitions whose refs all resolve', () => {
    const set = schemaSet();
    for (const name of set.names()) {
      const refs: string[] = [];
      const walk = (sc: Schema) => {
        if (sc.ref) refs.push(sc.ref);
        Object.values(sc.properties ?? {}).forEach(walk);
        if (sc.items) walk(sc.items);
        if (sc.additionalProperties) walk(sc.additionalProperties);
      };
      walk(set.get(name)!);
      for (const r of refs) assert.ok(set.has(r), `${name} refers to missing ${r}`);
    }
  });
});

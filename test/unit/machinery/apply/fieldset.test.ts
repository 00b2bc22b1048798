import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from '../../../../src/machinery/apply/fieldset.js';
import {
  comparePathElements,
  fieldElement as f,
  formatPath,
  indexElement,
  keyElement as k,
  parsePathElement,
  serializePathElement,
  valueElement as v,
} from '../../../../src/machinery/apply/path.js';
import { changedFields, compareObjects, fieldsOf } from '../../../../src/machinery/apply/walk.js';
import { cmSchema, configMap, deepFreeze, pod, podSchema, set } from './fixtures.js';

const json = (fs: FieldSet): string => JSON.stringify(fs.toFieldsV1());

describe('path elements', () => {
  it('serialise as kube does', () => {
    assert.equal(serializePathElement(f('metadata')), 'f:metadata');
    assert.equal(serializePathElement(k({ protocol: 'TCP', containerPort: 80 })), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement(v('a<b')), 'v:"a\\u003cb"');
    assert.equal(serializePathElement(v(3)), 'v:3');
    assert.equal(serializePathElement(indexElement(2)), 'i:2');
  });

  it('parse, sorting key fields, and reject malformed keys', () => {
    assert.deepEqual(parsePathElement('k:{"protocol":"TCP","containerPort":80}'), k({ containerPort: 80, protocol: 'TCP' }));
    assert.deepEqual(parsePathElement('v:"x"'), v('x'));
    assert.deepEqual(parsePathElement('i:7'), indexElement(7));
    assert.equal(parsePathElement('z:whatever'), undefined);
    assert.throws(() => parsePathElement('f'), /key must be 2 characters long/);
    assert.throws(() => parsePathElement('fx'), /missing colon: fx/);
  });

  it('order fields < keys < values < indexes', () => {
    const sorted = [indexElement(0), v('a'), k({ name: 'a' }), f('z'), f('a'), v(1)].sort(comparePathElements);
    assert.deepEqual(sorted.map(serializePathElement), ['f:a', 'f:z', 'k:{"name":"a"}', 'v:1', 'v:"a"', 'i:0']);
  });

  it('format paths for conflict messages', () => {
    assert.equal(formatPath([f('spec'), f('containers'), k({ name: 'nginx' }), f('image')]), '.spec.containers[name="nginx"].image');
    assert.equal(formatPath([f('metadata'), f('labels'), f('app')]), '.metadata.labels.app');
    assert.equal(formatPath([f('ports'), k({ protocol: 'TCP', containerPort: 80 })]), '.ports[containerPort=80,protocol="TCP"]');
    assert.equal(formatPath([f('metadata'), f('finalizers'), v('x')]), '.metadata.finalizers[="x"]');
    assert.equal(formatPath([f('args'), indexElement(1)]), '.args[1]');
  });
});

describe('fieldsV1', () => {
  it('round-trips the documented ConfigMap example (keys come back in kube order)', () => {
    const text = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:data': { '.': {}, 'f:key': {} } };
    const fs = FieldSet.fromFieldsV1(text);
    assert.equal(json(fs), '{"f:data":{".":{},"f:key":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}');
    assert.deepEqual(fs.paths().map(formatPath), ['.data', '.data.key', '.metadata.labels', '.metadata.labels.app']);
    assert.equal(fs.size, 4);
  });

  it('round-trips a deployment-like set with map-list keys', () => {
    const text =
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}';
    const fs = FieldSet.fromFieldsV1(JSON.parse(text));
    assert.equal(json(fs), text);
    assert.ok(fs.has([f('spec'), f('template'), f('spec'), f('containers'), k({ name: 'nginx' }), f('image')]));
  });

  it('a canonical decoding reuses its unchanged subtrees when encoded after a change, and encodes as a fresh set does', () => {
    const text =
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}},"f:status":{"f:phase":{},"f:qosClass":{}}}';
    const stored = JSON.parse(text) as Record<string, Record<string, unknown>>;
    const canonical = FieldSet.fromFieldsV1(stored, { canonical: true });
    assert.equal(canonical.toFieldsV1(), stored);
    const changed = canonical.difference(FieldSet.of([f('status'), f('phase')]));
    const fresh = FieldSet.fromFieldsV1(JSON.parse(text)).difference(FieldSet.of([f('status'), f('phase')]));
    const out = changed.toFieldsV1() as Record<string, unknown>;
    assert.equal(JSON.stringify(out), json(fresh));
    assert.equal(JSON.stringify(out), '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}},"f:status":{"f:qosClass":{}}}');
    assert.equal(out['f:spec'], stored['f:spec']);
    assert.equal(out['f:metadata'], stored['f:metadata']);
    // a member with children is written with "." whether its subtree came from the text or not
    const spec = FieldSet.fromFieldsV1(stored, { canonical: true }).withPrefix(f('spec'));
    assert.equal(JSON.stringify(spec.toFieldsV1()), '{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}}');
  });

  it('encodes every member as one shared frozen {} (encodings are read-only: stored objects carry them)', () => {
    const out = FieldSet.fromFieldsV1({ 'f:a': {}, 'f:b': { '.': {}, 'f:c': {} } }).toFieldsV1() as Record<string, Record<string, unknown>>;
    assert.equal(JSON.stringify(out), '{"f:a":{},"f:b":{".":{},"f:c":{}}}');
    assert.ok(Object.isFrozen(out['f:a']));
    assert.equal(out['f:a'], out['f:b']!['.']);
    assert.equal(out['f:a'], out['f:b']!['f:c']);
  });

  it('drops unknown element types and treats {} as a member', () => {
    const fs = FieldSet.fromFieldsV1({ 'f:a': { 'x:weird': {} }, 'f:b': {} });
    assert.equal(json(fs), '{"f:a":{},"f:b":{}}');
    assert.equal(json(FieldSet.empty()), '{}');
  });
});

describe('set operations', () => {
  const a = FieldSet.of([f('a')], [f('b'), f('c')], [f('b')]);
  const b = FieldSet.of([f('b')], [f('d')]);

  it('union, intersection, difference', () => {
    assert.equal(json(a.union(b)), '{"f:a":{},"f:b":{".":{},"f:c":{}},"f:d":{}}');
    assert.equal(json(a.intersection(b)), '{"f:b":{}}');
    // difference is exact: removing .b keeps .b.c
    assert.equal(json(a.difference(b)), '{"f:a":{},"f:b":{"f:c":{}}}');
    assert.equal(json(a.recursiveDifference(b)), '{"f:a":{}}');
    assert.equal(json(a.leaves()), '{"f:a":{},"f:b":{"f:c":{}}}');
    assert.ok(a.has([f('b'), f('c')]) && !a.has([f('c')]));
    assert.ok(a.union(b).equals(b.union(a)));
    assert.ok(a.difference(a).isEmpty());
  });
});

describe('fieldsOf', () => {
  it('gives the set of an applied ConfigMap (no "." for declared fields)', () => {
    const fs = fieldsOf(deepFreeze(configMap({ key: 'v' }, { 'test-label': 'x' })), cmSchema, set);
    assert.equal(
      json(fs),
      '{"f:apiVersion":{},"f:data":{"f:key":{}},"f:kind":{},"f:metadata":{"f:labels":{"f:test-label":{}},"f:name":{},"f:namespace":{}}}',
    );
  });

  it('walks map lists, sets, atomic lists and maps, defaults of keys and untyped fields', () => {
    const obj = pod(
      {
        containers: [{ name: 'nginx', image: 'nginx', args: ['a'], ports: [{ containerPort: 80 }] }],
        selector: { matchLabels: { a: 'b' } },
        extra: { x: { y: 1 }, list: [1, 2] },
      },
      { finalizers: ['f1'] },
    );
    const fs = fieldsOf(obj, podSchema, set);
    const spec = fs.withPrefix(f('spec'));
    assert.equal(
      json(spec.withPrefix(f('containers'))),
      '{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:args":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}',
    );
    assert.equal(json(spec.withPrefix(f('extra'))), '{"f:list":{},"f:x":{".":{},"f:y":{}}}');
    assert.ok(spec.hasMember(f('selector')));
    assert.equal(json(fs.withPrefix(f('metadata')).withPrefix(f('finalizers'))), '{"v:\\"f1\\"":{}}');
  });

  it('marks empty maps and nulls as members', () => {
    const fs = fieldsOf({ data: {}, metadata: { labels: null } }, cmSchema, set);
    assert.equal(json(fs), '{"f:data":{},"f:metadata":{"f:labels":{}}}');
  });
});

describe('compareObjects', () => {
  it('reports added containers with "." and modified leaves', () => {
    const c = compareObjects({}, configMap({ key: 'v' }, { app: 'x' }), cmSchema, set);
    assert.equal(
      json(c.added),
      '{"f:apiVersion":{},"f:data":{".":{},"f:key":{}},"f:kind":{},"f:metadata":{".":{},"f:labels":{".":{},"f:app":{}},"f:name":{},"f:namespace":{}}}',
    );
    assert.ok(c.modified.isEmpty() && c.removed.isEmpty());
  });

  it('finds modified, added and removed fields', () => {
    const before = configMap({ a: '1', b: '2' });
    const after = configMap({ a: '1', b: '3', c: '4' }, { app: 'x' });
    const c = compareObjects(deepFreeze(before), deepFreeze(after), cmSchema, set);
    assert.equal(json(c.modified), '{"f:data":{"f:b":{}}}');
    assert.equal(json(c.added), '{"f:data":{"f:c":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}');
    assert.equal(json(changedFields(after, before, cmSchema, set)), '{"f:data":{"f:b":{},"f:c":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}');
  });

  it('compares map-list items by key and atomic values whole', () => {
    const a = pod({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }], selector: { matchLabels: { a: '1' } } });
    const b = pod({ containers: [{ name: 'b', image: 'z' }, { name: 'a', image: 'x' }], selector: { matchLabels: { a: '2' } } });
    const c = compareObjects(a, b, podSchema, set);
    assert.equal(json(c.modified), '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"b\\"}":{"f:image":{}}},"f:selector":{}}}');
    assert.ok(c.added.isEmpty() && c.removed.isEmpty());
  });
});

describe('lazily decoded sets', () => {
  // canonical fieldsV1 as toFieldsV1 writes them: fields, map-list keys, set values, indexes, "." on members with children
  const podStatus = {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } },
    'f:status': {
      'f:conditions': {
        '.': {},
        'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:status': {}, 'f:type': {} },
        'k:{"type":"PodScheduled"}': { '.': {}, 'f:status': {}, 'f:type': {} },
      },
      'f:containerStatuses': {},
      'f:phase': {},
      'f:podIPs': { '.': {}, 'k:{"ip":"10.0.0.5"}': { '.': {}, 'f:ip': {} } },
    },
  };
  const creator = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} }, 'f:finalizers': { '.': {}, 'v:"a/b"': {} } },
    'f:spec': {
      '.': {},
      'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } },
      'f:args': { 'i:0': {}, 'i:1': { 'f:x': {} } },
    },
    'f:status': { '.': {}, 'f:phase': {}, 'f:qosClass': {} },
  };
  // not canonical but decodable: unknown element types are dropped, a node of nothing understood is a member
  const odd = { 'f:status': { 'x:whatever': {}, 'f:phase': { 'z:q': {} } }, 'f:spec': {} };
  const fixtures = [podStatus, creator, odd, {}, { 'f:status': { 'f:phase': {} } }];
  const eager = (o: object) => FieldSet.fromFieldsV1(structuredClone(o), { canonical: true });
  const lazy = (o: object) => FieldSet.fromFieldsV1(structuredClone(o), { canonical: true, lazy: true });
  const show = (s: FieldSet) => [s.toString(), json(s), s.size, s.isEmpty()];

  it('answer every set operation as eagerly decoded sets do', () => {
    for (const a of fixtures) {
      assert.deepEqual(show(lazy(a)), show(eager(a)));
      assert.deepEqual(show(lazy(a).leaves()), show(eager(a).leaves()));
      for (const b of fixtures) {
        for (const [x, y] of [[lazy(a), eager(b)], [eager(a), lazy(b)], [lazy(a), lazy(b)]] as const) {
          const e = [eager(a), eager(b)] as const;
          assert.deepEqual(show(x.union(y)), show(e[0].union(e[1])));
          assert.deepEqual(show(x.intersection(y)), show(e[0].intersection(e[1])));
          assert.deepEqual(show(x.difference(y)), show(e[0].difference(e[1])));
          assert.deepEqual(show(x.recursiveDifference(y)), show(e[0].recursiveDifference(e[1])));
          assert.equal(x.equals(y), e[0].equals(e[1]));
        }
      }
    }
    assert.ok(lazy(creator).has([f('spec'), f('containers'), k({ name: 'c' }), f('ports'), k({ containerPort: 80, protocol: 'TCP' }), f('containerPort')]));
    assert.ok(lazy(odd).has([f('status'), f('phase')]));
  });

  it('are written back as the objects they were read from, untouched subtrees included', () => {
    const obj = structuredClone(creator);
    const s = FieldSet.fromFieldsV1(obj, { canonical: true, lazy: true });
    assert.equal(s.toFieldsV1(), obj);
    const d = s.difference(FieldSet.of([f('status'), f('phase')]));
    const out = d.toFieldsV1();
    assert.notEqual(out, obj);
    assert.equal(out['f:spec'], obj['f:spec']);
    assert.equal(out['f:metadata'], obj['f:metadata']);
    assert.equal(JSON.stringify(out), json(eager(creator).difference(FieldSet.of([f('status'), f('phase')]))));
  });

  it('throw on a malformed key when it is read', () => {
    const bad = { 'f:spec': { 'k:{not json': {} }, 'f:status': { 'f:phase': {} } };
    assert.throws(() => eager(bad));
    const s = lazy(bad);
    assert.ok(s.withPrefix(f('status')).has([f('phase')]));
    assert.throws(() => s.withPrefix(f('spec')).isEmpty());
  });
});

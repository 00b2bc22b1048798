// Fast paths on the write path against the straightforward code they replaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgainstSchema, duplicateFields } from '../../../src/machinery/field-validation.js';
import { podSchema, set } from './apply/fixtures.js';
import { normalizePodEncoding } from '../../../src/api/core/pod/encoding.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { formatTime } from '../../../src/machinery/apply/managed-fields.js';
import { clone, rfc3339 } from '../../../src/machinery/object.js';
import { isQualifiedName } from '../../../src/machinery/validation.js';

describe('write-path fast paths', () => {
  it('isQualifiedName gives the same (read-only) answers when it remembers them, also after forgetting', () => {
    const bad = [...isQualifiedName('x<y')];
    assert.ok(bad.length > 0);
    assert.deepEqual(isQualifiedName('x<y'), bad);
    assert.deepEqual(isQualifiedName('example.com/app'), []);
    assert.ok(Object.isFrozen(isQualifiedName('example.com/app')));
    for (let i = 0; i < 5000; i++) isQualifiedName(`k${i}`);
    assert.deepEqual(isQualifiedName('x<y'), bad);
    assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  });

  it('pod normalisation (one table lookup per key) drops zero omitempty fields and nulls and fills Go\'s always-written ones', () => {
    const pod = {
      spec: {
        containers: [{ name: 'c', image: '', ports: [{ containerPort: 80, hostPort: 0, protocol: null }], resources: null, env: [{ name: 'a', value: '' }] }],
        nodeSelector: {},
        hostNetwork: false,
        tolerations: [{ key: '', operator: 'Exists' }],
        weird: null,
        volumes: [{ name: 'v', downwardAPI: { items: [{ path: 'x', resourceFieldRef: { resource: 'limits.cpu' } }] } }],
      },
      status: { phase: '', conditions: [{ type: 'Ready', status: 'True', reason: '' }], containerStatuses: [{ name: 'c', state: null, ready: false, restartCount: 0 }] },
    } as unknown as Pod;
    normalizePodEncoding(pod);
    assert.deepEqual(pod, {
      spec: {
        containers: [{ name: 'c', ports: [{ containerPort: 80 }], resources: {}, env: [{ name: 'a' }] }],
        tolerations: [{ operator: 'Exists' }],
        volumes: [{ name: 'v', downwardAPI: { items: [{ path: 'x', resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } }] } }],
      },
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }],
        containerStatuses: [{ name: 'c', state: {}, ready: false, restartCount: 0, lastState: {} }],
      },
    });
  });

  it('the schema walk names the paths of type errors and unknown fields (kept as a stack, spelled out on demand)', () => {
    const body = { metadata: { name: 1, nope: 2 }, spec: { containers: [{ name: 'a', bad: 1 }, null, { name: 2, args: ['x', 3] }], replicas: 'x' } };
    assert.deepEqual(checkAgainstSchema(body, podSchema, set), {
      typeErrors: [
        'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
        'json: cannot unmarshal number into Go struct field Container.spec.containers[2].name of type string',
        'json: cannot unmarshal number into Go struct field Container.spec.containers[2].args[1] of type string',
        'json: cannot unmarshal string into Go struct field PodSpec.spec.replicas of type int32',
      ],
      unknownFields: ['metadata.nope', 'spec.containers[0].bad'],
    });
  });

  it('rfc3339 and formatTime floor to the second exactly as before', () => {
    const times = [0, 1, 999, 1000, -1, -500, -1000, -1001, 1_700_000_000_123, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1, 0, 0, 0, 1), -62198755200001];
    for (const ms of times) {
      assert.equal(rfc3339(ms), new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z'), String(ms));
      assert.equal(formatTime(new Date(ms)), new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'), String(ms));
    }
    assert.equal(formatTime('2026-01-02T03:04:05.678+01:00'), '2026-01-02T02:04:05Z');
    assert.equal(formatTime('not a time'), 'not a time');
  });

  it('duplicateFields reads plain and escaped keys alike', () => {
    assert.deepEqual(duplicateFields('{"a":1,"b":{"c":1,"c":2},"a":3}'), ['b.c', 'a']);
    assert.deepEqual(duplicateFields('{"\\u0061":1,"a":2,"x\\"y":[{"k":1,"k":2}],"x\\"y":0}'), ['a', 'x"y[0].k', 'x"y']);
    assert.deepEqual(duplicateFields('{"a":{"é":1,"\\u00e9":2}}'), ['a.é']);
    // values of every kind are skipped, including strings with escaped quotes and braces
    assert.deepEqual(
      duplicateFields('{ "s": "x\\"}{,", "n": -1.5e3, "t": true, "z": null, "l": [[1, {"q": "]", "q": 2}], []], "e": {}, "s": 0 }'),
      ['l[0][1].q', 's'],
    );
    assert.deepEqual(duplicateFields('{"":{"x":1,"x":2},"a":[{"":1,"":2}]}'), ['x', 'a[0].']);
    assert.deepEqual(duplicateFields('{"a":1,"a":'), ['a'], 'a truncated body keeps what was found');
    const many = Array.from({ length: 40 }, (_, i) => `"k${i}":1`);
    assert.deepEqual(duplicateFields(`{${[...many, '"k3":2', '"k30":2', '"k3":3'].join(',')}}`), ['k3', 'k30', 'k3'], 'a large object');
    assert.deepEqual(duplicateFields('{"a":1,"a'), []);
    assert.deepEqual(duplicateFields('{"a":1,"a\u0001":2,"a\u0001":3}'), []);
    // strings that end in an escaped backslash or hold escaped quotes, before and after plain ones
    assert.deepEqual(duplicateFields('{"v":"a\\\\","k":1,"k":2,"w":"\\"}","w":"x"}'), ['k', 'w']);
    assert.deepEqual(duplicateFields('{"a\\\\":1,"a\\\\":2,"b":"\\\\\\"","b":3}'), ['a\\', 'b']);
  });

  it('duplicateFields against the structure the text was written from (random bodies with escapes and duplicates)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) >> 8) % n;
    const words = ['a', 'b', 'k"q', 'x\\', 'é', '\u{1F600}', 'tab\t', '', 'x\\"y'];
    type Node = { kind: 'obj'; entries: [string, Node][] } | { kind: 'arr'; items: Node[] } | { kind: 'str' | 'num'; text: string };
    const gen = (depth: number): Node => {
      const r = rand(depth > 3 ? 2 : 4);
      if (r === 0) return { kind: 'str', text: JSON.stringify(words[rand(words.length)] + words[rand(words.length)]) };
      if (r === 1) return { kind: 'num', text: ['1', '-2.5e3', 'true', 'null'][rand(4)] };
      if (r === 2) return { kind: 'arr', items: Array.from({ length: rand(4) }, () => gen(depth + 1)) };
      return { kind: 'obj', entries: Array.from({ length: rand(5) }, () => [words[rand(words.length)], gen(depth + 1)] as [string, Node]) };
    };
    const text = (n: Node): string =>
      n.kind === 'obj'
        ? `{${n.entries.map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`).join(rand(2) ? ',' : ' , ')}}`
        : n.kind === 'arr'
          ? `[${n.items.map(text).join(',')}]`
          : n.text;
    const dups = (n: Node, path: string, out: string[]): string[] => {
      if (n.kind === 'obj') {
        const seen = new Set<string>();
        for (const [k, v] of n.entries) {
          const p = path ? `${path}.${k}` : k;
          if (seen.has(k)) out.push(p);
          seen.add(k);
          dups(v, p, out);
        }
      } else if (n.kind === 'arr') n.items.forEach((v, i) => dups(v, `${path}[${i}]`, out));
      return out;
    };
    for (let i = 0; i < 500; i++) {
      const body: Node = { kind: 'obj', entries: Array.from({ length: 1 + rand(5) }, () => [words[rand(words.length)], gen(1)] as [string, Node]) };
      const t = text(body);
      // each duplicate is reported when its second occurrence is read: after what lies below the first
      assert.deepEqual(duplicateFields(t), dups(body, '', []), t);
    }
  });
});

describe('clone', () => {
  const roundTrip = (v: unknown) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
  it('copies exactly what a JSON round trip gives, and never shares', () => {
    class Box {
      constructor(readonly x = 1) {}
    }
    const withProtoKey = JSON.parse('{"a":1,"__proto__":{"b":2}}');
    const withGetter = { get g() { return 5; } };
    const sparse = [1, , 3];
    const cases: unknown[] = [
      { a: 1, b: 'x', c: null, d: true, e: [1, 'two', { f: [] }], g: {} },
      { 2: 'b', 1: 'a', z: 1, y: { 10: 1, 9: 2 } },
      { u: undefined, f: () => 1, s: Symbol('x'), n: NaN, i: Infinity, z: -0, ok: 1 },
      [undefined, () => 1, Symbol('y'), NaN, -0, 1],
      sparse,
      { d: new Date(0), b: new Box(), m: new Map([[1, 2]]), t: { toJSON: () => 'T' } },
      Object.assign(Object.create(null), { a: 1 }),
      withProtoKey,
      withGetter,
      'str', 3, -0, NaN, null, true, undefined,
      'lone \ud800 surrogate',
    ];
    for (const c of cases) {
      const got = clone(c);
      assert.deepEqual(got, roundTrip(c), JSON.stringify(c));
      assert.equal(JSON.stringify(got), JSON.stringify(roundTrip(c)));
      if (got !== null && typeof got === 'object') assert.notEqual(got, c);
    }
    assert.equal(Object.getPrototypeOf(clone(withProtoKey)), Object.prototype);
    assert.deepEqual(Object.keys(clone(withProtoKey)), ['a', '__proto__']);
    const nested = { a: { b: [{ c: 1 }] } };
    const copy = clone(nested);
    copy.a.b[0].c = 2;
    assert.equal(nested.a.b[0].c, 1);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => clone(cyclic), /circular/i);
    assert.throws(() => clone({ n: 1n }), TypeError);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 500; i++) deep = { d: deep };
    assert.deepEqual(clone(deep), roundTrip(deep));
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podDefinitions } from '../../../../src/api/core/pod/schema.js';
import { baseDefinitions } from '../../../../src/api/index.js';
import { META, metaDefinitions } from '../../../../src/api/meta.js';
import { protoTags } from '../../../../src/api/proto-tags/index.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { decodeK8sProtobuf, goDuration, type ProtoTags } from '../../../../src/machinery/protobuf/decode.js';
import { SchemaSet, s } from '../../../../src/machinery/schema.js';
import { kubectlFixtures } from './fixtures.js';
import { cat, dbl, envelope, key, len, MAGIC, prng, varint, vint, type Bytes } from './helpers.js';

const T = 'test.k1s.v1.';
const DURATION = 'io.k8s.apimachinery.pkg.apis.meta.v1.Duration';

const schemas = new SchemaSet(metaDefinitions, {
  [DURATION]: { type: 'string' },
  [`${T}Thing`]: s.obj({
    apiVersion: s.str(),
    kind: s.str(),
    metadata: s.ref(META.ObjectMeta),
    t: s.time(),
    mt: s.microTime(),
    d: s.ref(DURATION),
    q: s.quantity(),
    ios: s.intOrString(),
    raw: s.ref(META.RawExtension),
    fields: s.ref(META.FieldsV1),
    n32: s.int32(),
    n64: s.int64(),
    flag: s.bool(),
    str: s.str(),
    kept: s.str(),
    bin: s.bytes(),
    ints: s.arr(s.int32()),
    strs: s.arr(s.str()),
    labels: s.strMap(),
    quantities: s.map(s.quantity()),
    extra: s.map(s.arr(s.str())),
    child: s.ref(`${T}Thing`),
    children: s.arr(s.ref(`${T}Thing`)),
    ratio: s.num(),
    embedded: s.str(),
  }),
});

const tags: ProtoTags = {
  ...protoTags,
  [`${T}Thing`]: {
    apiVersion: 0, kind: 0, metadata: 1, t: 2, mt: 3, d: 4, q: 5, ios: 6, raw: 7, fields: 8, n32: 9, n64: 10, flag: 11, str: 12,
    kept: { tag: 13, keep: true }, bin: 14, ints: 15, strs: 16, labels: 17, quantities: 18, extra: 19, child: 20, children: 21,
    ratio: 22, '@inner': { tag: 23, inline: `${T}Inner` }, unknownToSchema: 24,
  },
  [`${T}Inner`]: { embedded: 1 },
};

const rootFor = (apiVersion: string, kind: string) => (apiVersion === 'test.k1s/v1' && kind === 'Thing' ? `${T}Thing` : undefined);
const decode = (raw: Bytes, extra: Bytes = []) => decodeK8sProtobuf(envelope('test.k1s/v1', 'Thing', raw, extra), schemas, tags, rootFor);
const thing = (raw: Bytes) => {
  const o = decode(raw);
  delete o.kind;
  delete o.apiVersion;
  return o;
};

const unix = (iso: string) => Date.parse(iso) / 1000;
const timeMsg = (seconds: number, nanos = 0) => cat(vint(1, seconds), nanos ? vint(2, nanos) : []);

function assertBadRequest(fn: () => unknown, match?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    if (match) assert.match(e.message, match);
    return true;
  });
}

describe('decodeK8sProtobuf: special apimachinery types', () => {
  it('Time → RFC3339 in UTC, whole seconds; the empty message (zero time) is dropped', () => {
    assert.deepEqual(thing(len(2, timeMsg(unix('2024-01-02T03:04:05Z'), 999_999_999))), { t: '2024-01-02T03:04:05Z' });
    assert.deepEqual(thing(len(2, [])), {});
    assert.deepEqual(thing(len(2, timeMsg(0))), { t: '1970-01-01T00:00:00Z' });
    assert.deepEqual(thing(len(2, timeMsg(-1))), { t: '1969-12-31T23:59:59Z' });
    assert.deepEqual(thing(len(2, timeMsg(unix('0001-01-01T00:00:00Z')))), {}); // Go's zero time marshals as null
  });

  it('MicroTime → RFC3339 with six fraction digits (truncated)', () => {
    assert.deepEqual(thing(len(3, timeMsg(unix('2024-01-02T03:04:05Z'), 123_456_789))), { mt: '2024-01-02T03:04:05.123456Z' });
    assert.deepEqual(thing(len(3, timeMsg(unix('2024-01-02T03:04:05Z')))), { mt: '2024-01-02T03:04:05.000000Z' });
  });

  it('Duration → Go duration string', () => {
    assert.deepEqual(thing(len(4, vint(1, 90_000_000_000))), { d: '1m30s' });
    const cases: [bigint, string][] = [
      [0n, '0s'], [1n, '1ns'], [1_100n, '1.1µs'], [2_200_000n, '2.2ms'], [1_500_000_000n, '1.5s'], [3_600_000_000_000n, '1h0m0s'],
      [5_400_000_000_000n, '1h30m0s'], [-2_000_000_000n, '-2s'], [100_000_000n, '100ms'], [(1n << 63n) - 1n, '2562047h47m16.854775807s'],
      [-(1n << 63n), '-2562047h47m16.854775808s'],
    ];
    for (const [ns, want] of cases) assert.equal(goDuration(ns), want, String(ns));
  });

  it('Quantity → its string; an empty message is "0"', () => {
    assert.deepEqual(thing(len(5, len(1, '500m'))), { q: '500m' });
    assert.deepEqual(thing(len(5, [])), { q: '0' });
    assert.deepEqual(thing(len(18, cat(len(1, 'cpu'), len(2, len(1, '2'))))), { quantities: { cpu: '2' } });
  });

  it('IntOrString → number or string (negative int32 as a 10-byte varint)', () => {
    assert.deepEqual(thing(len(6, cat(vint(1, 0), vint(2, 8080), len(3, '')))), { ios: 8080 });
    assert.deepEqual(thing(len(6, cat(vint(1, 1), vint(2, 0), len(3, 'http')))), { ios: 'http' });
    assert.deepEqual(thing(len(6, cat(vint(1, 0), vint(2, -1)))), { ios: -1 });
    assert.deepEqual(thing(len(6, [])), { ios: 0 });
    assertBadRequest(() => thing(len(6, vint(1, 2))), /IntOrString/);
  });

  it('RawExtension → the embedded JSON, or a nested protobuf object', () => {
    assert.deepEqual(thing(len(7, len(1, '{"a":[1,"x"]}'))), { raw: { a: [1, 'x'] } });
    assert.deepEqual(thing(len(7, [])), {});
    const nested = [...envelope('test.k1s/v1', 'Thing', len(12, 'inner'))];
    assert.deepEqual(thing(len(7, len(1, nested))), { raw: { kind: 'Thing', apiVersion: 'test.k1s/v1', str: 'inner' } });
    assertBadRequest(() => thing(len(7, len(1, '{nope'))), /RawExtension/);
  });

  it('FieldsV1 (managedFields) → the parsed field set', () => {
    const entry = cat(len(1, 'kubectl'), len(2, 'Update'), len(3, 'v1'), len(6, 'FieldsV1'), len(7, len(1, '{"f:data":{".":{}}}')));
    const got = thing(len(1, len(17, entry)));
    assert.deepEqual(got, { metadata: { managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {} } } }] } });
  });
});

describe('decodeK8sProtobuf: scalars, lists, maps, messages', () => {
  it('decodes int32/int64/bool/string/bytes/double', () => {
    const got = thing(cat(vint(9, -5), vint(10, 2 ** 40), vint(11, 1), len(12, 'héllo'), len(14, [0, 1, 255]), dbl(22, 0.25)));
    assert.deepEqual(got, { n32: -5, n64: 2 ** 40, flag: true, str: 'héllo', bin: 'AAH/', ratio: 0.25 });
  });

  it('drops zero scalars unless the field is marked keep', () => {
    assert.deepEqual(thing(cat(vint(9, 0), vint(10, 0), vint(11, 0), len(12, ''), len(14, []), len(13, ''))), { kept: '' });
  });

  it('reads repeated fields unpacked and packed; list elements keep zero values', () => {
    assert.deepEqual(thing(cat(vint(15, 1), vint(15, 0), len(15, cat(varint(3), varint(-4))))), { ints: [1, 0, 3, -4] });
    assert.deepEqual(thing(cat(len(16, 'a'), len(16, ''))), { strs: ['a', ''] });
  });

  it('reads map entries (key=1, value=2), including missing values and list values', () => {
    const got = thing(cat(len(17, cat(len(1, 'a'), len(2, 'b'))), len(17, len(1, 'empty')), len(19, cat(len(1, 'groups'), len(2, cat(len(1, 'x'), len(1, 'y')))))));
    assert.deepEqual(got, { labels: { a: 'b', empty: '' }, extra: { groups: ['x', 'y'] } });
  });

  it('decodes nested and repeated messages; a repeated singular message merges', () => {
    const got = thing(cat(len(20, len(12, 'c')), len(20, vint(9, 7)), len(21, []), len(21, len(12, 'second'))));
    assert.deepEqual(got, { child: { str: 'c', n32: 7 }, children: [{}, { str: 'second' }] });
  });

  it('merges inline (embedded) structs into the enclosing object', () => {
    assert.deepEqual(thing(len(23, len(1, 'inlined'))), { embedded: 'inlined' });
  });

  it('skips unknown field numbers and fields the schema lacks', () => {
    assert.deepEqual(thing(cat(vint(99, 5), len(98, 'x'), dbl(97, 1), vint(24, 3), len(12, 'kept'))), { str: 'kept' });
  });

  it('takes kind and apiVersion from the envelope', () => {
    assert.deepEqual(decode(len(1, len(1, 'n'))), { kind: 'Thing', apiVersion: 'test.k1s/v1', metadata: { name: 'n' } });
  });
});

describe('decodeK8sProtobuf: malformed bodies are 400 BadRequest', () => {
  const bad: [string, () => unknown, RegExp?][] = [
    ['empty body', () => decodeK8sProtobuf(Buffer.alloc(0), schemas, tags, rootFor), /k8s/],
    ['a JSON body', () => decodeK8sProtobuf(Buffer.from('{"kind":"Thing"}'), schemas, tags, rootFor), /k8s/],
    ['truncated envelope', () => decodeK8sProtobuf(envelope('test.k1s/v1', 'Thing', len(12, 'abcdef')).subarray(0, 20), schemas, tags, rootFor), /past the end|truncated/],
    ['truncated varint', () => decode(cat(key(9, 0), [0x80]))],
    ['over-long varint', () => decode(cat(key(9, 0), Array(11).fill(0xff), [1]))],
    ['string field as varint', () => decode(vint(12, 1)), /wire type/],
    ['message field as varint', () => decode(vint(1, 1)), /wire type/],
    ['group wire type', () => decode(key(12, 3)), /wire type 3/],
    ['field number 0', () => decode([0x02, 0x00]), /field number 0/],
    ['unknown kind', () => decodeK8sProtobuf(envelope('v1', 'Nope', []), schemas, tags, rootFor), /no kind "Nope" is registered for version "v1"/],
    ['missing kind', () => decodeK8sProtobuf(envelope('v1', '', []), schemas, tags, rootFor), /no kind/],
    ['content encoding', () => decode([], len(3, 'gzip')), /encoding/],
    ['time out of range', () => decode(len(2, timeMsg(unix('9999-12-31T23:59:59Z') + 1))), /out of range/],
    ['invalid FieldsV1', () => decode(len(8, len(1, 'x'))), /FieldsV1/],
  ];
  for (const [name, fn, re] of bad) it(name, () => assertBadRequest(fn, re));

  it('nesting too deep', () => {
    let raw: Bytes = [];
    for (let i = 0; i < 150; i++) raw = len(7, len(1, [...envelope('test.k1s/v1', 'Thing', raw)]));
    assertBadRequest(() => decode(raw), /too deeply/);
  });

  it('never throws anything but a 400 on mutated kubectl bodies (fuzz)', () => {
    const rand = prng(42);
    const seeds = kubectlFixtures.filter((f) => f.json.apiVersion === 'v1').map((f) => Buffer.from(f.protobuf, 'base64'));
    const served = new SchemaSet(...baseDefinitions(), podDefinitions);
    const core = (apiVersion: string, kind: string) => (apiVersion === 'v1' && served.has(`io.k8s.api.core.v1.${kind}`) ? `io.k8s.api.core.v1.${kind}` : undefined);
    for (let i = 0; i < 3000; i++) {
      const seed = seeds[i % seeds.length];
      const b = Buffer.from(seed);
      const edits = 1 + Math.floor(rand() * 4);
      for (let j = 0; j < edits; j++) b[4 + Math.floor(rand() * (b.length - 4))] = Math.floor(rand() * 256);
      const body = rand() < 0.3 ? b.subarray(0, Math.floor(rand() * b.length)) : b;
      try {
        decodeK8sProtobuf(body, served, protoTags, core);
      } catch (e) {
        assert.ok(e instanceof StatusError && e.code === 400, `iteration ${i}: ${String(e)}`);
      }
    }
  });

  it('MAGIC is "k8s\\0"', () => assert.equal(Buffer.from(MAGIC).toString('latin1'), 'k8s\0'));
});

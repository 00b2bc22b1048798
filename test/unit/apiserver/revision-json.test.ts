import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { revisionJSON } from '../../../src/apiserver/registry/revision-json.js';
import { followsInObjectMeta, followsInSortedMap, withResourceVersion } from '../../../src/apiserver/registry/resource-version-place.js';

/** What a watch event's object serialises to without the splice: the store's decode, then JSON.stringify. */
function decoded(text: string, rev: number, apiVersion: string, kind: string, follows = followsInObjectMeta): string {
  const obj = JSON.parse(text) as Record<string, unknown> & { metadata: Record<string, unknown> };
  obj.apiVersion = apiVersion;
  obj.kind = kind;
  obj.metadata = withResourceVersion(obj.metadata, String(rev), follows);
  return JSON.stringify(obj);
}

const kv = (value: string, modRevision = 42) => ({ key: '/registry/x', value, modRevision, createRevision: 1, version: 1 });

describe('revisionJSON: a revision serialised from its stored text', () => {
  it('equals JSON.stringify of the decoded object, whatever the key order and the strings hold', () => {
    const nasty = ['', 'a"b', 'back\\slash', 'ends with \\', '\\"', '{not}', '[x]', ',:', 'é ☃ 😀', '\u2028', 'tab\tnew\nline', 'lone \ud800'];
    const objects: Record<string, unknown>[] = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] }, status: {} },
      { metadata: { name: 'm' }, kind: 'Pod', spec: { n: [1, 2.5, -3e-7, true, null, [], {}] }, apiVersion: 'v1' },
      { kind: 'Pod', apiVersion: 'v1', metadata: {} },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', annotations: Object.fromEntries(nasty.map((s, i) => [`k${i}${s}`, s])) }, data: nasty },
      { apiVersion: 'v1', kind: 'Pod', metadata: { managedFields: [{ fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } }], name: '}"]' }, z: '"metadata":{}' },
    ];
    for (const o of objects) {
      const text = JSON.stringify(o);
      assert.equal(revisionJSON(kv(text), 'v1', 'Pod', followsInObjectMeta), decoded(text, 42, 'v1', 'Pod'), text);
    }
  });

  it('random objects round-trip', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const chars = ['a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'é', '\n'];
    const str = () => Array.from({ length: rnd(6) }, () => chars[rnd(chars.length)]).join('');
    const value = (depth: number): unknown => {
      switch (depth > 3 ? rnd(4) : rnd(6)) {
        case 0: return str();
        case 1: return rnd(1000) - 500;
        case 2: return rnd(2) === 0;
        case 3: return null;
        case 4: return Array.from({ length: rnd(4) }, () => value(depth + 1));
        default: return Object.fromEntries(Array.from({ length: rnd(4) }, () => [str(), value(depth + 1)]));
      }
    };
    for (let i = 0; i < 500; i++) {
      const meta = Object.fromEntries(Array.from({ length: rnd(4) }, () => [str() + 'm', value(1)]));
      const parts: [string, unknown][] = [['apiVersion', 'apps/v1'], ['kind', 'Deployment'], ['metadata', meta], ['spec', value(1)], ['status', value(1)]];
      parts.sort(() => rnd(3) - 1);
      const text = JSON.stringify(Object.fromEntries(parts));
      assert.equal(revisionJSON(kv(text, i + 1), 'apps/v1', 'Deployment', followsInObjectMeta), decoded(text, i + 1, 'apps/v1', 'Deployment'), text);
    }
  });

  it('puts resourceVersion where kube writes it: after uid in ObjectMeta, in key order for a custom resource', () => {
    const t = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"d","uid":"u","generation":2,"labels":{"a":"b"}}}';
    assert.equal(revisionJSON(kv(t), 'v1', 'Pod', followsInObjectMeta), '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"d","uid":"u","resourceVersion":"42","generation":2,"labels":{"a":"b"}}}');
    const c = '{"apiVersion":"x.io/v1","kind":"C","metadata":{"generation":1,"name":"c","namespace":"d","uid":"u"},"spec":{}}';
    assert.equal(revisionJSON(kv(c), 'x.io/v1', 'C', followsInSortedMap), '{"apiVersion":"x.io/v1","kind":"C","metadata":{"generation":1,"name":"c","namespace":"d","resourceVersion":"42","uid":"u"},"spec":{}}');
    assert.equal(revisionJSON(kv(c), 'x.io/v1', 'C', followsInSortedMap), decoded(c, 42, 'x.io/v1', 'C', followsInSortedMap));
  });

  it('declines texts the splice would not reproduce', () => {
    // decoding sets these in place or appends them elsewhere
    assert.equal(revisionJSON(kv('{"kind":"Pod","metadata":{}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","metadata":{}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v2","kind":"Pod","metadata":{}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","kind":"Pods","metadata":{}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"3","name":"a"}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","resourceVersion":"3"}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","kind":"Pod"}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('{"apiVersion":"v1","kind":"Pod","metadata":null}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    // not compact JSON
    assert.equal(revisionJSON(kv('{ "apiVersion":"v1","kind":"Pod","metadata":{}}'), 'v1', 'Pod', followsInObjectMeta), undefined);
    assert.equal(revisionJSON(kv('[]'), 'v1', 'Pod', followsInObjectMeta), undefined);
    // a nested resourceVersion is data like any other
    const t = '{"apiVersion":"v1","kind":"Pod","metadata":{"x":{"resourceVersion":"1"}}}';
    assert.equal(revisionJSON(kv(t), 'v1', 'Pod', followsInObjectMeta), decoded(t, 42, 'v1', 'Pod'));
  });
});

// DecodedRevisions: the kept decoded objects of recent revisions, and the dropped ones still alive elsewhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { DecodedRevisions } from '../../../src/apiserver/decoded-revisions.js';

const obj = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '1' } }) as KObject;
const kv = (key: string, modRevision: number, value = '') => ({ key, modRevision, value, createRevision: 1 });

describe('DecodedRevisions', () => {
  it('a revision dropped from the kept ones is found again while something holds its object, for that revision only', () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false, size: 2 });
    const a = obj('a');
    r.remember('a', 1, a);
    r.remember('b', 2, obj('b'));
    r.remember('c', 3, obj('c')); // drops a
    assert.equal(r.get(kv('a', 2)), undefined);
    assert.equal(r.get(kv('a', 1)), a);
    // kept again: b is now the oldest and dropped by the next key
    r.remember('d', 4, obj('d'));
    assert.equal(r.get(kv('a', 1)), a);
  });

  it('peek finds a committed revision (kept, previous or dropped) by key and revision alone, never a pending write', () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false, size: 1 });
    const a1 = obj('a');
    r.remember('a', 1, a1);
    assert.equal(r.peek('a', 1), a1);
    assert.equal(r.peek('a', 2), undefined);
    const a2 = { ...obj('a'), metadata: { name: 'a' } } as KObject;
    r.expect('a', 'v2', a2); // our write of revision 2, not committed yet
    assert.equal(r.peek('a', 1), a1, 'the revision it replaces');
    assert.equal(r.peek('a', 2), undefined, 'a pending write is not a committed revision');
    assert.equal(r.get(kv('a', 2, 'v2')), a2); // committed and decoded by a watcher
    assert.equal(r.peek('a', 2), a2);
    r.remember('b', 3, obj('b')); // drops a@2
    assert.equal(r.peek('a', 2), a2, 'dropped, still alive');
    assert.equal(r.peek('zzz', 1), undefined);
  });

  it('a newer revision of a dropped key replaces it', () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false, size: 1 });
    const a = obj('a');
    r.remember('a', 1, a);
    r.remember('b', 2, obj('b')); // drops a
    const a2 = obj('a');
    r.remember('a', 5, a2);
    r.remember('c', 6, obj('c')); // drops a@5
    assert.equal(r.get(kv('a', 1)), undefined);
    assert.equal(r.get(kv('a', 5)), a2);
  });

  it('a write keeps the revision it replaces as the previous one, for the watch event that reads both', () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false });
    const a1 = obj('a');
    r.remember('a', 1, a1);
    const a2 = { ...obj('a'), metadata: { name: 'a' } } as KObject;
    r.expect('a', 'v2', a2);
    assert.equal(r.get(kv('a', 1)), a1);
    assert.equal(r.get(kv('a', 2, 'v2')), a2);
    assert.equal(a2.metadata.resourceVersion, '2');
    assert.equal(r.get(kv('a', 1)), a1);
    // the next write drops the oldest
    r.expect('a', 'v3', obj('a'));
    assert.equal(r.get(kv('a', 1)), undefined);
    assert.equal(r.get(kv('a', 2)), a2);
  });
});

// DecodedRevisions: the kept decoded objects of recent revisions, and the dropped ones still alive elsewhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KObject } from '../../../src/api/types.js';
import { DecodedRevisions } from '../../../src/apiserver/registry/decoded-revisions.js';

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

  it('an older revision decoded after a newer one is kept as its previous, not in its place', () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false, size: 4 });
    const a1 = obj('a');
    const a3 = obj('a');
    r.remember('a', 3, a3);
    r.remember('a', 1, a1); // a watch event's previous object, decoded from the store late
    assert.equal(r.get(kv('a', 3)), a3);
    assert.equal(r.get(kv('a', 1)), a1);
    r.remember('a', 2, obj('a')); // newer than that previous one: it takes its place
    assert.equal(r.get(kv('a', 3)), a3);
    assert.equal(r.get(kv('a', 1)), undefined);
    assert.notEqual(r.get(kv('a', 2)), undefined);
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

  it('every dropped revision something still holds stays findable, past the sweep bound; dead ones are swept out', async () => {
    const r = new DecodedRevisions({ enabled: true, freeze: false, size: 1, droppedSize: 4 });
    const held = Array.from({ length: 50 }, (_, i) => obj(`h${i}`));
    held.forEach((o, i) => r.remember(`h${i}`, i + 1, o));
    r.remember('last', 100, obj('last')); // drops h49
    held.forEach((o, i) => assert.equal(r.peek(`h${i}`, i + 1), o, `h${i}`));

    // objects nobody holds: once collected, a sweep forgets their entries
    for (let i = 0; i < 50; i++) r.remember(`t${i}`, 200 + i, obj(`t${i}`));
    await new Promise((res) => setImmediate(res)); // a WeakRef's target lives at least until the job that made it ends
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const us = Array.from({ length: 150 }, (_, i) => obj(`u${i}`));
    us.forEach((o, i) => r.remember(`u${i}`, 300 + i, o));
    const dropped = (r as unknown as { dropped: Map<string, unknown> }).dropped;
    // dropped: 50 held, 'last' and t0..t48 collected, t49 (kept, so alive at the collection), 149 held; a sweep
    // past the bound (190 by then) forgets the collected
    assert.equal(dropped.size, 50 + 1 + 149, `${dropped.size} entries: the collected t* were swept`);
    us.slice(0, 149).forEach((o, i) => assert.equal(r.peek(`u${i}`, 300 + i), o, `u${i}`));
    assert.equal(r.peek('t0', 200), undefined);
    held.forEach((o, i) => assert.equal(r.peek(`h${i}`, i + 1), o, `h${i} after the sweep`));
  });
});

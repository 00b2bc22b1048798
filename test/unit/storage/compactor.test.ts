import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compactor } from '../../../src/storage/compactor.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

describe('Compactor', () => {
  it('compacts to the newest revision at least retentionMs old', async () => {
    const s = SqliteStore.open({ path: ':memory:' });
    let now = 1_000_000;
    const c = new Compactor(s, { retentionMs: 300, now: () => now });
    await s.create('/a', '1'); // rev 1
    await c.tick(); // sample (t0, 1)
    now += 100;
    await s.create('/b', '1'); // rev 2
    await c.tick(); // sample (t0+100, 2)
    now += 100;
    await s.create('/c', '1'); // rev 3
    await c.tick();
    assert.equal(s.compactedRevision(), 0, 'nothing is 300 ms old yet');
    now += 150; // t0+350: revision 1 is old enough, 2 is not
    await c.tick();
    assert.equal(s.compactedRevision(), 1);
    now += 100; // t0+450: revision 2 (seen at t0+100) is old enough, 3 (seen at t0+200) is not
    await c.tick();
    assert.equal(s.compactedRevision(), 2);
    now += 50;
    await c.tick();
    assert.equal(s.compactedRevision(), 3);
    await c.tick();
    assert.equal(s.compactedRevision(), 3);
    await s.close();
  });

  it('runs on its timer and stops quietly when the store closes', async () => {
    const s = SqliteStore.open({ path: ':memory:' });
    const errors: unknown[] = [];
    const c = new Compactor(s, { intervalMs: 10, retentionMs: 0, onError: (e) => errors.push(e) });
    await s.create('/a', '1');
    c.start();
    await s.create('/b', '1');
    const deadline = Date.now() + 2000;
    while (s.compactedRevision() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(s.compactedRevision(), 2);
    await s.close();
    await new Promise((r) => setTimeout(r, 40));
    await c.stop();
    assert.deepEqual(errors, []);
  });
});

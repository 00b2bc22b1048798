import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit } from '../../../src/storage/group-commit.js';

describe('GroupCommit', () => {
  it('commits the writes of one turn together, in order', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>({ commit: (ops) => (batches.push(ops), ops.map((o) => o * 2)) });
    const rs = await Promise.all([1, 2, 3].map((n) => gc.enqueue(n)));
    assert.deepEqual(rs, [2, 4, 6]);
    assert.deepEqual(batches, [[1, 2, 3]]);
    await gc.enqueue(4);
    assert.deepEqual(batches, [[1, 2, 3], [4]]);
  });

  it('isolates a failing write by retrying the batch one by one', async () => {
    const calls: number[][] = [];
    const gc = new GroupCommit<number, number>({
      commit: (ops) => {
        calls.push(ops);
        if (ops.includes(13)) throw new Error('unlucky');
        return ops;
      },
    });
    const rs = await Promise.allSettled([1, 13, 3].map((n) => gc.enqueue(n)));
    assert.deepEqual(
      rs.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(calls, [[1, 13, 3], [1], [13], [3]]);
  });

  it('flushAll commits synchronously', () => {
    const seen: number[] = [];
    const gc = new GroupCommit<number, number>({ commit: (ops) => (seen.push(...ops), ops), maxBatch: 2 });
    for (let i = 0; i < 5; i++) void gc.enqueue(i);
    gc.flushAll();
    assert.deepEqual(seen, [0, 1, 2, 3, 4]);
    assert.equal(gc.pending, 0);
  });
});

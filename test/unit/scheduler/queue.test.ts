import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchedulingQueue } from '../../../src/scheduler/queue.js';

const ref = (key: string, priority = 0, creation = 0) => ({ key, uid: `uid-${key}`, priority, creation });

async function drain(q: SchedulingQueue, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await q.pop())!.key);
  return out;
}

describe('scheduling queue', () => {
  // the queue's timers are unref'd (a cluster keeps the process alive); hold the loop open while tests wait on them
  let keepAlive: NodeJS.Timeout;
  before(() => (keepAlive = setInterval(() => {}, 1000)));
  after(() => clearInterval(keepAlive));

  it('pops by priority, then queue time, then creation time', async () => {
    let now = 1000;
    const q = new SchedulingQueue({ now: () => now });
    try {
      q.add(ref('a', 0, 5));
      q.add(ref('b', 10, 9));
      q.add(ref('c', 0, 1)); // same queue time as a, created earlier
      now++;
      q.add(ref('d', 0, 0)); // oldest, but queued later
      q.add(ref('e', 10, 10));
      assert.deepEqual(await drain(q, 5), ['b', 'e', 'c', 'a', 'd']);
    } finally {
      q.close();
    }
  });

  it('keeps that order through thousands of random adds and deletes', async () => {
    let seed = 11;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const q = new SchedulingQueue({ now: () => 0 });
    try {
      const live = new Map<string, { priority: number; creation: number; seq: number }>();
      let seq = 0;
      for (let i = 0; i < 4000; i++) {
        if (live.size && rnd(3) === 0) {
          const keys = [...live.keys()];
          const k = keys[rnd(keys.length)]!;
          q.delete(k);
          live.delete(k);
        } else {
          const r = { priority: rnd(4), creation: rnd(50), seq: seq++ };
          q.add(ref(`p${i}`, r.priority, r.creation));
          live.set(`p${i}`, r);
        }
      }
      const want = [...live].sort(([, a], [, b]) => b.priority - a.priority || a.creation - b.creation || a.seq - b.seq).map(([k]) => k);
      assert.deepEqual(await drain(q, want.length), want);
    } finally {
      q.close();
    }
  });

  it('parks unschedulable pods until an event one of their plugins cares about', async () => {
    let now = 0;
    const q = new SchedulingQueue({ now: () => now });
    try {
      q.add(ref('fit'));
      q.add(ref('taint'));
      q.add(ref('any'));
      for (const k of await drain(q, 3)) q.addUnschedulable(k, k === 'fit' ? ['NodeResourcesFit'] : k === 'taint' ? ['TaintToleration'] : []);
      assert.equal(q.state('fit'), 'unschedulable');
      now = 2000; // past the 1 s back-off
      q.moveOnEvent(new Set(['NodeResourcesFit', 'NodePorts']));
      assert.equal(q.state('fit'), 'active');
      assert.equal(q.state('any'), 'active'); // rejected by no plugin in particular: any event may help
      assert.equal(q.state('taint'), 'unschedulable');
      q.moveOnEvent('all');
      assert.equal(q.state('taint'), 'active');
    } finally {
      q.close();
    }
  });

  it('backs off 1 s doubling to 10 s, and a pod moved during its back-off waits in backoffQ', async () => {
    let now = 0;
    const q = new SchedulingQueue({ now: () => now, initialBackoffMs: 20, maxBackoffMs: 50 });
    try {
      q.add(ref('p'));
      let got = await q.pop();
      assert.equal(q.backoffDuration(got!), 20);
      q.addUnschedulable('p', ['NodeResourcesFit']);
      q.moveOnEvent('all');
      assert.equal(q.state('p'), 'backoff');
      now = 25;
      got = await q.pop(); // the back-off timer moves it to activeQ
      assert.equal(got?.key, 'p');
      assert.equal(q.backoffDuration(got!), 40);
      q.addBackoff('p');
      now = 100;
      got = await q.pop();
      assert.equal(q.backoffDuration(got!), 50);
      const defaults = new SchedulingQueue();
      defaults.add(ref('x'));
      const x = (await defaults.pop())!;
      const durations = [];
      for (let i = 0; i < 6; i++, x.attempts++) durations.push(defaults.backoffDuration(x));
      assert.deepEqual(durations, [1000, 2000, 4000, 8000, 10000, 10000]);
      defaults.close();
    } finally {
      q.close();
    }
  });

  it('a pod that changed while being scheduled is not parked', async () => {
    const q = new SchedulingQueue();
    try {
      q.add(ref('p'));
      await q.pop();
      q.updated('p');
      q.addUnschedulable('p', ['NodeAffinity']);
      assert.notEqual(q.state('p'), 'unschedulable');
      q.delete('p');
      assert.equal(q.state('p'), undefined);
      assert.equal(q.length, 0);
    } finally {
      q.close();
    }
  });

  it('pop waits for a pod and ends with undefined on close', async () => {
    const q = new SchedulingQueue();
    const waiting = q.pop();
    setTimeout(() => q.add(ref('late')), 10);
    assert.equal((await waiting)?.key, 'late');
    const ended = q.pop();
    q.close();
    assert.equal(await ended, undefined);
  });
});

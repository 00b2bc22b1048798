import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { SchedulerCache } from '../../../src/scheduler/node-info.js';
import { findPlacement } from '../../../src/scheduler/scheduler.js';
import { node, pod } from './fixtures.js';

describe('scheduling throughput', () => {
  it('places 10,000 pods on 100 nodes in memory, never overcommitting', () => {
    const cache = new SchedulerCache();
    for (let i = 0; i < 100; i++) cache.setNode(node(`n${i}`, { cpu: '32', memory: '128Gi', pods: '110' }));
    let start = 0;
    let placed = 0;
    let failed = 0;
    for (let i = 0; i < 10_500; i++) {
      const p = pod(`p${i}`, { cpu: '300m', memory: '1Gi' });
      p.metadata.uid = `u${i}`;
      const r = findPlacement(podInfo(p), cache.nodes(), { start });
      start = r.nextStart;
      if (r.host) {
        cache.assume(p, r.host.name);
        placed++;
      } else failed++;
    }
    // by cpu 106 pods fit a node (10,600 in all), by count 110: all 10,500 are placed, 105 per node
    assert.equal(placed + failed, 10_500);
    assert.equal(placed, 10_500);
    for (const ni of cache.nodes()) {
      assert.ok(ni.requested.milliCPU <= ni.allocatable.milliCPU, `${ni.name} overcommitted`);
      assert.ok(ni.pods.size <= 110);
    }
    const counts = cache.nodes().map((n) => n.pods.size);
    // LeastAllocated spreads evenly
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `uneven spread ${Math.min(...counts)}..${Math.max(...counts)}`);
    // the next pod fits nowhere, with one reason per node
    const extra = pod('extra', { cpu: '1' });
    const r = findPlacement(podInfo(extra), cache.nodes());
    assert.equal(r.host, undefined);
    assert.equal(r.statuses.size, 100);
  });
});

// The scheduler cache following a bound pod's updates: a status-only change (the kubelet's, which shares the spec
// with the revision before) swaps the object and keeps what was counted; anything counted is counted again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { SchedulerCache } from '../../../src/scheduler/node-info.js';
import { node, pod } from './fixtures.js';

function bound(name: string, cpu: string): KObject {
  const p = pod(name, { cpu });
  p.metadata.uid = `uid-${name}`;
  p.metadata.namespace = 'default';
  p.metadata.labels = { app: 'a' };
  (p as unknown as { spec: { nodeName?: string } }).spec.nodeName = 'n1';
  return p;
}

describe('scheduler cache: updates of a bound pod', () => {
  it('a status change sharing the spec swaps the object; label, deletion and spec changes are counted again', () => {
    const cache = new SchedulerCache();
    cache.setNode(node('n1'));
    const p1 = bound('p', '500m');
    cache.updatePod(p1);
    const ni = cache.nodeInfo('n1')!;
    assert.equal(ni.requested.milliCPU, 500);
    let computed = 0;
    const appPods = () => ni.memoized('app=a', () => (computed++, [...ni.pods.values()].filter((e) => e.pod.metadata.labels?.app === 'a' && !e.pod.metadata.deletionTimestamp).length));
    assert.equal(appPods(), 1);

    // the kubelet's write: new status, same spec object, equal labels in a new object
    const p2 = { ...p1, metadata: { ...p1.metadata, labels: { app: 'a' } }, status: { phase: 'Running' } } as KObject;
    cache.updatePod(p2);
    assert.equal(ni.pods.get('uid-p')!.pod, p2);
    assert.equal(ni.requested.milliCPU, 500);
    assert.equal(appPods(), 1);
    assert.equal(computed, 1, 'nothing counted changed: the memoized count stays');

    // labels changed: counted again
    const p3 = { ...p2, metadata: { ...p2.metadata, labels: { app: 'b' } } } as KObject;
    cache.updatePod(p3);
    assert.equal(appPods(), 0);
    assert.equal(computed, 2);

    // terminating: counted again
    const p4 = { ...p3, metadata: { ...p3.metadata, labels: { app: 'a' }, deletionTimestamp: '2026-01-01T00:00:00Z' } } as KObject;
    cache.updatePod(p4);
    assert.equal(appPods(), 0);
    assert.equal(computed, 3);

    // a new spec (a resize): requests counted again
    const p5 = { ...bound('p', '2'), metadata: p1.metadata } as KObject;
    cache.updatePod(p5);
    assert.equal(ni.requested.milliCPU, 2000);
    assert.equal(ni.pods.get('uid-p')!.pod, p5);
    assert.equal(ni.pods.size, 1);
  });
});

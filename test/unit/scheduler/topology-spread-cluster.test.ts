import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { controllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition } from './fixtures.js';

const ZONE = 'topology.kubernetes.io/zone';

function replica(i: number): KObject {
  const p = pod(`web-${i}`);
  p.metadata.labels = { app: 'web' };
  (p as unknown as { spec: Record<string, unknown> }).spec.topologySpreadConstraints = [
    { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } },
  ];
  return p;
}

describe('PodTopologySpread in a cluster', () => {
  it('spreads replicas over unequal zones with maxSkew held, then leaves the rest Pending', async () => {
    const c = await controllerCluster([schedulerFactory()]);
    try {
      // zoneA has three nodes, zoneB one that holds at most four pods: without the constraint zoneA would take 3 of 4
      for (const n of ['a1', 'a2', 'a3']) await c.client.resource('v1', 'nodes').create('', node(n, { labels: { [ZONE]: 'zoneA' } }));
      await c.client.resource('v1', 'nodes').create('', node('b1', { labels: { [ZONE]: 'zoneB' }, pods: '4' }));
      for (let i = 0; i < 10; i++) await c.client.resource('v1', 'pods').create('default', replica(i));
      const msg =
        "0/4 nodes are available: 1 Too many pods, 3 node(s) didn't match pod topology spread constraints. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.";
      const all = await c.waitFor('9 bound and 1 unschedulable', async () => {
        const items = (await c.client.resource('v1', 'pods').list('default')).items;
        const bound = items.filter((p) => nodeNameOf(p));
        const pending = items.filter((p) => scheduledCondition(p)?.reason === 'Unschedulable');
        return bound.length === 9 && pending.length === 1 ? items : undefined;
      });
      const on = (nodes: string[]) => all.filter((p) => nodes.includes(nodeNameOf(p) ?? '')).length;
      assert.equal(on(['a1', 'a2', 'a3']), 5);
      assert.equal(on(['b1']), 4);
      const pending = all.find((p) => !nodeNameOf(p))!;
      assert.equal(scheduledCondition(pending)?.status, 'False');
      assert.equal(scheduledCondition(pending)?.message, msg);
    } finally {
      await c.close();
    }
  });
});

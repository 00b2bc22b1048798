import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { controllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition } from './fixtures.js';

function replica(i: number): KObject {
  const p = pod(`cache-${i}`);
  p.metadata.labels = { app: 'store' };
  (p as unknown as { spec: Record<string, unknown> }).spec.affinity = {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['store'] }] }, topologyKey: 'kubernetes.io/hostname' }],
    },
  };
  return p;
}

describe('InterPodAffinity in a cluster', () => {
  it('required anti-affinity puts one replica per node and leaves the rest Pending', async () => {
    const c = await controllerCluster([schedulerFactory()]);
    try {
      for (const n of ['n1', 'n2', 'n3']) await c.client.resource('v1', 'nodes').create('', node(n));
      for (let i = 0; i < 5; i++) await c.client.resource('v1', 'pods').create('default', replica(i));
      const all = await c.waitFor('3 bound and 2 unschedulable', async () => {
        const items = (await c.client.resource('v1', 'pods').list('default')).items;
        const bound = items.filter((p) => nodeNameOf(p));
        const pending = items.filter((p) => scheduledCondition(p)?.reason === 'Unschedulable');
        return bound.length === 3 && pending.length === 2 ? items : undefined;
      });
      assert.deepEqual(all.map((p) => nodeNameOf(p)).filter(Boolean).sort(), ['n1', 'n2', 'n3']);
      const msg =
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
      for (const p of all.filter((p) => !nodeNameOf(p))) assert.equal(scheduledCondition(p)?.message, msg);
      // a pod the replicas' own anti-affinity rejects: symmetry, reported as such
      const intruder = pod('intruder');
      intruder.metadata.labels = { app: 'store' };
      await c.client.resource('v1', 'pods').create('default', intruder);
      const got = await c.waitFor('intruder unschedulable', async () => {
        const p = await c.client.resource('v1', 'pods').get('default', 'intruder');
        return scheduledCondition(p)?.reason === 'Unschedulable' ? p : undefined;
      });
      assert.match(scheduledCondition(got)!.message!, /^0\/3 nodes are available: 3 node\(s\) didn't satisfy existing pods anti-affinity rules\./);
    } finally {
      await c.close();
    }
  });
});

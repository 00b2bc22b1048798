// Preemption in a real in-process cluster: PriorityClasses through the API (the Priority admission resolves them),
// victims marked DisruptionTarget and deleted, the preemptor nominated and bound once they are gone. There is no
// kubelet here: the test finishes the victims' graceful deletion itself, as a kubelet would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition, type PodOpts } from './fixtures.js';

type Ev = KObject & { reason: string; message: string; type: string; involvedObject?: { name?: string }; source?: { component?: string } };
type PodStatusView = { nominatedNodeName?: string; conditions?: { type: string; status?: string; reason?: string; message?: string }[] };

async function withCluster(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  // random 0: the dry run starts at the first node, so ties are broken by node order
  const c = await controllerCluster([schedulerFactory({ random: () => 0 })]);
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const rc = (c: ControllerCluster) => c.client.resource('v1', 'pods');
const status = (p: KObject) => (p as { status?: PodStatusView }).status ?? {};
const events = async (c: ControllerCluster) => (await c.client.resource('v1', 'events').list('default')).items as Ev[];

async function priorityClass(c: ControllerCluster, name: string, value: number, preemptionPolicy?: string): Promise<void> {
  await c.client.resource('scheduling.k8s.io/v1', 'priorityclasses').create('', {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    value,
    ...(preemptionPolicy ? { preemptionPolicy } : {}),
  } as KObject);
}

async function createBound(c: ControllerCluster, name: string, o: PodOpts & { labels?: Record<string, string> }): Promise<KObject> {
  const p = pod(name, o);
  if (o.labels) p.metadata.labels = o.labels;
  await rc(c).create('default', p);
  return c.waitFor(`${name} bound`, async () => {
    const got = await rc(c).get('default', name);
    return nodeNameOf(got) ? got : undefined;
  });
}

/** What the kubelet does once a terminating pod's containers are gone. */
async function finishTermination(c: ControllerCluster, name: string): Promise<void> {
  await rc(c).delete('default', name, { gracePeriodSeconds: 0 });
}

const exists = async (c: ControllerCluster, name: string) => rc(c).get('default', name).then(() => true, () => false);

describe('preemption in a cluster', () => {
  it('evicts the lower-priority pods of a full node, nominates it, and binds the preemptor once they are gone', async () => {
    await withCluster(async (c) => {
      await priorityClass(c, 'low', 10);
      await priorityClass(c, 'high', 1000);
      await c.client.resource('v1', 'nodes').create('', node('n', { cpu: '3' }));
      const keep = await createBound(c, 'keep', { cpu: '1', priorityClassName: 'high' });
      await createBound(c, 'v1', { cpu: '1', priorityClassName: 'low' });
      await createBound(c, 'v2', { cpu: '1' });
      assert.equal(nodeNameOf(keep), 'n');

      await rc(c).create('default', pod('big', { cpu: '2', priorityClassName: 'high' }));
      const big = await c.waitFor('big nominated', async () => {
        const p = await rc(c).get('default', 'big');
        return status(p).nominatedNodeName ? p : undefined;
      });
      assert.equal(status(big).nominatedNodeName, 'n');
      // the FailedScheduling of a successful preemption carries no "preemption:" part
      assert.equal(scheduledCondition(big)?.message, '0/1 nodes are available: 1 Insufficient cpu.');

      for (const name of ['v1', 'v2']) {
        const v = await c.waitFor(`${name} terminating`, async () => {
          const p = await rc(c).get('default', name);
          return p.metadata.deletionTimestamp ? p : undefined;
        });
        const dt = status(v).conditions?.find((x) => x.type === 'DisruptionTarget');
        assert.deepEqual(
          { status: dt?.status, reason: dt?.reason, message: dt?.message },
          { status: 'True', reason: 'PreemptionByScheduler', message: 'default-scheduler: preempting to accommodate a higher priority pod' },
        );
        const ev = await c.waitFor(`Preempted event on ${name}`, async () => (await events(c)).find((e) => e.reason === 'Preempted' && e.involvedObject?.name === name));
        assert.equal(ev.type, 'Normal');
        assert.equal(ev.message, `Preempted by pod ${big.metadata.uid} on node n`);
        assert.equal(ev.source?.component, 'default-scheduler');
      }
      // the pod of higher priority is no victim
      assert.equal((await rc(c).get('default', 'keep')).metadata.deletionTimestamp, undefined);

      // one victim gone: the other still terminates, so the preemptor waits instead of preempting again
      await finishTermination(c, 'v1');
      const waiting = await c.waitFor('big told to wait', async () => {
        const cnd = scheduledCondition(await rc(c).get('default', 'big'));
        return cnd?.message?.includes('terminating') ? cnd : undefined;
      });
      assert.equal(waiting.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.');
      assert.equal(status(await rc(c).get('default', 'big')).nominatedNodeName, 'n');

      await finishTermination(c, 'v2');
      await c.waitFor('big bound', async () => nodeNameOf(await rc(c).get('default', 'big')) === 'n', 5000);
      assert.equal(await exists(c, 'v1'), false);
      assert.equal(await exists(c, 'v2'), false);
    });
  });

  it('leaves the node reserved for the nominated pod while victims terminate', async () => {
    await withCluster(async (c) => {
      await priorityClass(c, 'high', 1000);
      await c.client.resource('v1', 'nodes').create('', node('n', { cpu: '2' }));
      await createBound(c, 'victim', { cpu: '2' });
      await rc(c).create('default', pod('big', { cpu: '2', priorityClassName: 'high' }));
      await c.waitFor('victim terminating', async () => (await rc(c).get('default', 'victim')).metadata.deletionTimestamp);
      await c.waitFor('big nominated', async () => status(await rc(c).get('default', 'big')).nominatedNodeName === 'n');
      await finishTermination(c, 'victim');
      // a low-priority pod created right now must not win the freed room
      await rc(c).create('default', pod('late', { cpu: '2' }));
      await c.waitFor('big bound', async () => nodeNameOf(await rc(c).get('default', 'big')) === 'n', 5000);
      const late = await c.waitFor('late rejected', async () => {
        const p = await rc(c).get('default', 'late');
        return scheduledCondition(p)?.reason === 'Unschedulable' ? p : undefined;
      });
      assert.equal(nodeNameOf(late), undefined);
    });
  });

  it('does not preempt for a pod whose class says preemptionPolicy: Never', async () => {
    await withCluster(async (c) => {
      await priorityClass(c, 'polite', 1000, 'Never');
      await c.client.resource('v1', 'nodes').create('', node('n', { cpu: '1' }));
      await createBound(c, 'low', { cpu: '1' });
      await rc(c).create('default', pod('polite', { cpu: '1', priorityClassName: 'polite' }));
      const p = await c.waitFor('polite rejected', async () => {
        const got = await rc(c).get('default', 'polite');
        return scheduledCondition(got)?.reason === 'Unschedulable' ? got : undefined;
      });
      assert.equal((p.spec as { preemptionPolicy?: string }).preemptionPolicy, 'Never');
      assert.equal(scheduledCondition(p)?.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
      assert.equal(status(p).nominatedNodeName, undefined);
      await new Promise((r) => setTimeout(r, 200));
      const low = await rc(c).get('default', 'low');
      assert.equal(low.metadata.deletionTimestamp, undefined);
      assert.equal((await events(c)).filter((e) => e.reason === 'Preempted').length, 0);
    });
  });

  it('spares a pod protected by a PodDisruptionBudget when another node works', async () => {
    await withCluster(async (c) => {
      await priorityClass(c, 'low', 10);
      await priorityClass(c, 'high', 1000);
      const nodes = c.client.resource('v1', 'nodes');
      await nodes.create('', node('n1', { cpu: '1' }));
      await nodes.create('', node('n2', { cpu: '1' }));
      // without the budget n1 would win: its victim has the lower priority
      await createBound(c, 'db', { cpu: '1', labels: { app: 'db' } });
      await createBound(c, 'web', { cpu: '1', priorityClassName: 'low', labels: { app: 'web' } });
      const dbNode = nodeNameOf(await rc(c).get('default', 'db'));
      const webNode = nodeNameOf(await rc(c).get('default', 'web'));
      assert.notEqual(dbNode, webNode);
      // no disruption controller runs here: status.disruptionsAllowed stays 0
      await c.client.resource('policy/v1', 'poddisruptionbudgets').create('default', {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'db', namespace: 'default' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
      } as KObject);
      await c.waitFor('the scheduler sees the budget', async () => (await c.client.resource('policy/v1', 'poddisruptionbudgets').get('default', 'db')));
      await new Promise((r) => setTimeout(r, 50));
      await rc(c).create('default', pod('big', { cpu: '1', priorityClassName: 'high' }));
      await c.waitFor('web terminating', async () => (await rc(c).get('default', 'web')).metadata.deletionTimestamp);
      const big = await c.waitFor('big nominated', async () => {
        const p = await rc(c).get('default', 'big');
        return status(p).nominatedNodeName ? p : undefined;
      });
      assert.equal(status(big).nominatedNodeName, webNode);
      assert.equal((await rc(c).get('default', 'db')).metadata.deletionTimestamp, undefined);
      await finishTermination(c, 'web');
      await c.waitFor('big bound', async () => nodeNameOf(await rc(c).get('default', 'big')) === webNode, 5000);
    });
  });
});

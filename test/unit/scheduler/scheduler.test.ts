import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory, type Scheduler } from '../../../src/scheduler/scheduler.js';
import { controllerCluster, markPodFinished, type ControllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition } from './fixtures.js';

async function withCluster(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await controllerCluster([schedulerFactory()]);
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const pods = (c: ControllerCluster, ns = 'default') => c.client.resource('v1', 'pods').list(ns).then((l) => l.items);
const events = (c: ControllerCluster, ns = 'default') => c.client.resource('v1', 'events').list(ns).then((l) => l.items as (KObject & { reason: string; message: string; type: string; source?: { component?: string } })[]);

describe('scheduler in a cluster', () => {
  it('binds a pod to a fitting node and records Scheduled', async () => {
    await withCluster(async (c) => {
      await c.client.resource('v1', 'nodes').create('', node('small', { cpu: '1' }));
      await c.client.resource('v1', 'nodes').create('', node('big', { cpu: '8' }));
      await c.client.resource('v1', 'pods').create('default', pod('web', { cpu: '2' }));
      const p = await c.waitFor('web bound', async () => {
        const got = await c.client.resource('v1', 'pods').get('default', 'web');
        return nodeNameOf(got) ? got : undefined;
      });
      assert.equal(nodeNameOf(p), 'big');
      assert.equal(scheduledCondition(p)?.status, 'True');
      const ev = await c.waitFor('Scheduled event', async () => (await events(c)).find((e) => e.reason === 'Scheduled'));
      assert.equal(ev.message, 'Successfully assigned default/web to big');
      assert.equal(ev.type, 'Normal');
      assert.equal(ev.source?.component, 'default-scheduler');
    });
  });

  it('never overcommits: 50 pods of 1 cpu on 2 nodes of 20 cpu, then a new node takes the rest', async () => {
    await withCluster(async (c) => {
      for (const n of ['n1', 'n2']) await c.client.resource('v1', 'nodes').create('', node(n, { cpu: '20', memory: '64Gi' }));
      for (let i = 0; i < 50; i++) await c.client.resource('v1', 'pods').create('default', pod(`p${i}`, { cpu: '1' }));
      const msg = '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
      await c.waitFor('40 bound and 10 unschedulable', async () => {
        const all = await pods(c);
        const bound = all.filter((p) => nodeNameOf(p));
        const unsched = all.filter((p) => scheduledCondition(p)?.reason === 'Unschedulable');
        return bound.length === 40 && unsched.length === 10;
      });
      const all = await pods(c);
      for (const n of ['n1', 'n2']) assert.equal(all.filter((p) => nodeNameOf(p) === n).length, 20);
      for (const p of all.filter((p) => !nodeNameOf(p))) {
        const cond = scheduledCondition(p)!;
        assert.equal(cond.status, 'False');
        assert.equal(cond.message, msg);
      }
      const failed = await c.waitFor('FailedScheduling events', async () => {
        const evs = (await events(c)).filter((e) => e.reason === 'FailedScheduling');
        return evs.length >= 10 ? evs : undefined;
      });
      assert.ok(failed.every((e) => e.type === 'Warning' && e.message === msg));
      // a new node is a cluster event: the pending pods move back and land there, no polling involved
      await c.client.resource('v1', 'nodes').create('', node('n3', { cpu: '20', memory: '64Gi' }));
      await c.waitFor('the rest on n3', async () => (await pods(c)).filter((p) => nodeNameOf(p) === 'n3').length === 10, 8000);
      assert.equal((await pods(c)).filter((p) => !nodeNameOf(p)).length, 0);
    });
  });

  it('a finished pod frees its node for a pending one', async () => {
    await withCluster(async (c) => {
      await c.client.resource('v1', 'nodes').create('', node('only', { cpu: '1' }));
      await c.client.resource('v1', 'pods').create('default', pod('first', { cpu: '1' }));
      const first = await c.waitFor('first bound', async () => {
        const p = await c.client.resource('v1', 'pods').get('default', 'first');
        return nodeNameOf(p) ? p : undefined;
      });
      await c.client.resource('v1', 'pods').create('default', pod('second', { cpu: '1' }));
      await c.waitFor('second unschedulable', async () => scheduledCondition(await c.client.resource('v1', 'pods').get('default', 'second'))?.reason === 'Unschedulable');
      // parked, not polled: past its back-off it is still waiting for an event
      const sched = c.manager.controller<Scheduler>('scheduler')!;
      await new Promise((r) => setTimeout(r, 1200));
      assert.equal(sched.queue.state('default/second'), 'unschedulable');
      await markPodFinished(c.client, first, 'Succeeded');
      const second = await c.waitFor('second bound', async () => {
        const p = await c.client.resource('v1', 'pods').get('default', 'second');
        return nodeNameOf(p) ? p : undefined;
      }, 5000);
      assert.equal(nodeNameOf(second), 'only');
    });
  });

  it('respects nodeSelector, required node affinity and taints, and explains a pod that fits nowhere', async () => {
    await withCluster(async (c) => {
      const nodes = c.client.resource('v1', 'nodes');
      await nodes.create('', node('cp', { labels: { zone: 'a' }, taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }));
      await nodes.create('', node('a1', { labels: { zone: 'a' } }));
      await nodes.create('', node('b1', { labels: { zone: 'b' } }));
      const rc = c.client.resource('v1', 'pods');
      await rc.create('default', pod('sel', { nodeSelector: { zone: 'b' } }));
      await rc.create('default', pod('aff', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } } }));
      await rc.create('default', pod('tol', {
        nodeSelector: { zone: 'a' },
        tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['cp'] }] } }] } },
      }));
      await rc.create('default', pod('nowhere', { nodeSelector: { zone: 'c' } }));
      await c.waitFor('three bound', async () => (await pods(c)).filter((p) => nodeNameOf(p)).length === 3);
      const byName = new Map((await pods(c)).map((p) => [p.metadata.name, p]));
      assert.equal(nodeNameOf(byName.get('sel')!), 'b1');
      assert.equal(nodeNameOf(byName.get('aff')!), 'a1');
      assert.equal(nodeNameOf(byName.get('tol')!), 'cp');
      const cond = await c.waitFor('nowhere unschedulable', async () => {
        const cnd = scheduledCondition(await rc.get('default', 'nowhere'));
        return cnd?.reason === 'Unschedulable' ? cnd : undefined;
      });
      assert.equal(
        cond.message,
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      );
      // labelling a node is an event the NodeAffinity rejection cares about
      await nodes.patch('', 'b1', 'merge', { metadata: { labels: { zone: 'c' } } });
      await c.waitFor('nowhere bound after relabel', async () => nodeNameOf(await rc.get('default', 'nowhere')) === 'b1', 5000);
    });
  });

  it('a cordoned node takes the pod once uncordoned', async () => {
    await withCluster(async (c) => {
      const nodes = c.client.resource('v1', 'nodes');
      await nodes.create('', node('n', { unschedulable: true }));
      const rc = c.client.resource('v1', 'pods');
      await rc.create('default', pod('p'));
      const cond = await c.waitFor('p unschedulable', async () => scheduledCondition(await rc.get('default', 'p')));
      assert.equal(cond.message, '0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
      await nodes.patch('', 'n', 'merge', { spec: { unschedulable: null } });
      await c.waitFor('p bound', async () => nodeNameOf(await rc.get('default', 'p')) === 'n', 5000);
    });
  });

  it('leaves pods for other schedulers alone', async () => {
    await withCluster(async (c) => {
      await c.client.resource('v1', 'nodes').create('', node('n'));
      const rc = c.client.resource('v1', 'pods');
      await rc.create('default', pod('theirs', { schedulerName: 'other-scheduler' }));
      await rc.create('default', pod('ours'));
      await c.waitFor('ours bound', async () => nodeNameOf(await rc.get('default', 'ours')));
      await new Promise((r) => setTimeout(r, 100));
      const theirs = await rc.get('default', 'theirs');
      assert.equal(nodeNameOf(theirs), undefined);
      assert.equal(scheduledCondition(theirs), undefined);
      assert.equal((await events(c)).filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'theirs').length, 0);
    });
  });

  it('schedules higher priority first', async () => {
    await withCluster(async (c) => {
      // the class name is resolved to spec.priority by the Priority admission every cluster runs
      const ns = 'default';
      await c.client.resource('scheduling.k8s.io/v1', 'priorityclasses').create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 } as KObject);
      const rc = c.client.resource('v1', 'pods');
      await rc.create(ns, pod('low', { cpu: '1', namespace: ns }));
      await rc.create(ns, pod('high', { cpu: '1', namespace: ns, priorityClassName: 'high' }));
      // no nodes yet: both fail and wait for a cluster event
      for (const n of ['low', 'high']) {
        const cnd = await c.waitFor(`${n} unschedulable`, async () => scheduledCondition(await rc.get(ns, n)));
        assert.equal(cnd.message, 'no nodes available to schedule pods');
        assert.equal(cnd.reason, 'Unschedulable');
      }
      await new Promise((r) => setTimeout(r, 1100)); // both past their first back-off
      await c.client.resource('v1', 'nodes').create('', node('one', { cpu: '1' }));
      await c.waitFor('high bound', async () => nodeNameOf(await rc.get(ns, 'high')) === 'one', 5000);
      const low = await c.waitFor('low rejected again', async () => {
        const cnd = scheduledCondition(await rc.get(ns, 'low'));
        return cnd?.message?.startsWith('0/1') ? cnd : undefined;
      });
      assert.equal(nodeNameOf(await rc.get(ns, 'low')), undefined);
      assert.equal(low.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { errors } from '../../../src/machinery/errors.js';
import { rfc3339 } from '../../../src/machinery/object.js';
import { replicaSetController, replicationControllerController } from '../../../src/controllers/replicaset/controller.js';
import { podsToDelete } from '../../../src/controllers/replicaset/rank.js';
import { markPodRunning, type ControllerCluster } from './harness.js';
import { workloadCluster } from './deployment/helpers.js';

const NS = 'default';
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const rsBody = (name: string, replicas: number, extra: Record<string, unknown> = {}): KObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: NS },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: template({ app: name }), ...extra },
  }) as KObject;

async function podsOf(c: ControllerCluster, app: string): Promise<KObject[]> {
  const list = await c.client.resource('v1', 'pods').list(NS, { labelSelector: `app=${app}` });
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

async function events(c: ControllerCluster, name: string): Promise<{ reason: string; message: string; type: string }[]> {
  const list = await c.client.resource('v1', 'events').list(NS);
  return list.items.filter((e) => (e as unknown as { involvedObject: { name: string } }).involvedObject.name === name) as never;
}

const status = (o: KObject) => (o as unknown as { status: Record<string, unknown> }).status;

describe('replicaset controller', () => {
  it('creates pods from the template, reports status, scales down with events', async () => {
    const c = await workloadCluster([replicaSetController()]);
    try {
      const rs = await c.client.resource('apps/v1', 'replicasets').create(NS, rsBody('web', 3));
      const pods = await c.waitFor('3 pods', async () => ((await podsOf(c, 'web')).length === 3 ? podsOf(c, 'web') : undefined));
      for (const p of pods) {
        assert.match(p.metadata.name!, /^web-[a-z0-9]{5}$/);
        assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      }
      await markPodRunning(c.client, pods[0], { nodeName: 'n1' });
      const got = await c.waitFor('status', async () => {
        const o = await c.client.resource('apps/v1', 'replicasets').get(NS, 'web');
        const s = status(o);
        return s.replicas === 3 && s.readyReplicas === 1 && s.availableReplicas === 1 && s.fullyLabeledReplicas === 3 ? o : undefined;
      });
      assert.equal(status(got).observedGeneration, got.metadata.generation);
      const created = await c.waitFor('create events', async () => {
        const evs = (await events(c, 'web')).filter((e) => e.reason === 'SuccessfulCreate');
        return evs.length === 3 ? evs : undefined;
      });
      assert.deepEqual(created.map((e) => e.message).sort(), pods.map((p) => `Created pod: ${p.metadata.name}`).sort());

      await c.client.resource('apps/v1', 'replicasets').patch(NS, 'web', 'merge', { spec: { replicas: 1 } });
      await c.waitFor('scaled to 1', async () => (await podsOf(c, 'web')).length === 1);
      // the ready, running pod is the one kept
      assert.equal((await podsOf(c, 'web'))[0].metadata.name, pods[0].metadata.name);
      const deleted = await c.waitFor('delete events', async () => {
        const msgs = (await events(c, 'web')).filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message).sort();
        return msgs.length === 2 ? msgs : undefined;
      });
      assert.deepEqual(deleted, [pods[1], pods[2]].map((p) => `Deleted pod: ${p.metadata.name}`).sort());
    } finally {
      await c.close();
    }
  });

  it('never creates more than asked, even with many replicas at once (expectations + slow start)', async () => {
    const c = await workloadCluster([replicaSetController()]);
    try {
      await c.client.resource('apps/v1', 'replicasets').create(NS, rsBody('many', 20));
      await c.waitFor('20 pods', async () => (await podsOf(c, 'many')).length === 20);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await podsOf(c, 'many')).length, 20);
    } finally {
      await c.close();
    }
  });

  it('adopts matching orphans and releases pods whose labels stop matching', async () => {
    const c = await workloadCluster([replicaSetController()]);
    try {
      const pods = c.client.resource('v1', 'pods');
      const orphan = await pods.create(NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', namespace: NS, labels: { app: 'adopt' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } as KObject);
      const rs = await c.client.resource('apps/v1', 'replicasets').create(NS, rsBody('adopt', 2));
      await c.waitFor('orphan adopted', async () => (await pods.get(NS, 'orphan')).metadata.ownerReferences?.[0]?.uid === rs.metadata.uid);
      await c.waitFor('2 pods', async () => (await podsOf(c, 'adopt')).length === 2);
      assert.ok((await podsOf(c, 'adopt')).some((p) => p.metadata.uid === orphan.metadata.uid));
      await pods.patch(NS, 'orphan', 'merge', { metadata: { labels: { app: 'other' } } });
      await c.waitFor('released', async () => !(await pods.get(NS, 'orphan')).metadata.ownerReferences?.length);
      await c.waitFor('replacement created', async () => (await podsOf(c, 'adopt')).length === 2);
    } finally {
      await c.close();
    }
  });

  it('reports ReplicaFailure/FailedCreate with the API error and a Warning event, and clears it on success', async () => {
    let refuse = true;
    const c = await workloadCluster([replicaSetController()], {
      configure: (api) =>
        api.registry.admission.add({
          name: 'TestQuota',
          admit(attrs) {
            if (refuse && attrs.operation === 'CREATE' && attrs.object.kind === 'Pod') {
              const name = attrs.object.metadata.name ?? attrs.object.metadata.generateName ?? '';
              throw errors.forbidden({ group: '', resource: 'pods' }, name, `pods "${name}" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0`);
            }
          },
        }),
    });
    try {
      const rc = c.client.resource('apps/v1', 'replicasets');
      await rc.create(NS, rsBody('quota', 2));
      const cond = await c.waitFor('failure condition', async () => {
        const s = status(await rc.get(NS, 'quota')) as { conditions?: { type: string; status: string; reason: string; message: string }[] };
        return s.conditions?.find((x) => x.type === 'ReplicaFailure');
      });
      assert.equal(cond.status, 'True');
      assert.equal(cond.reason, 'FailedCreate');
      assert.match(cond.message, /^pods "quota-[a-z0-9]*" is forbidden: exceeded quota: q/);
      const ev = await c.waitFor('warning', async () => (await events(c, 'quota')).find((e) => e.reason === 'FailedCreate'));
      assert.equal(ev.type, 'Warning');
      assert.equal(ev.message, `Error creating: ${cond.message}`);
      refuse = false;
      await rc.patch(NS, 'quota', 'merge', { metadata: { labels: { poke: '1' } } });
      await c.waitFor('condition cleared', async () => {
        const s = status(await rc.get(NS, 'quota')) as { conditions?: unknown[]; replicas?: number };
        return !s.conditions?.length && s.replicas === 2;
      }, 15_000);
    } finally {
      await c.close();
    }
  });

  it('the same engine serves ReplicationControllers; minReadySeconds delays availability', async () => {
    const c = await workloadCluster([replicationControllerController()]);
    try {
      const rcs = c.client.resource('v1', 'replicationcontrollers');
      await rcs.create(NS, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy', namespace: NS }, spec: { replicas: 1, minReadySeconds: 3, selector: { app: 'legacy' }, template: template({ app: 'legacy' }) } } as KObject);
      const [pod] = await c.waitFor('pod', async () => ((await podsOf(c, 'legacy')).length === 1 ? podsOf(c, 'legacy') : undefined));
      assert.equal(pod.metadata.ownerReferences?.[0]?.kind, 'ReplicationController');
      await markPodRunning(c.client, pod, { nodeName: 'n1' });
      await c.waitFor('ready not available', async () => {
        const s = status(await rcs.get(NS, 'legacy'));
        return s.readyReplicas === 1 && !s.availableReplicas;
      });
      // 3 s, not 1: a loaded machine could take a second to write the first status, missing the "ready, not yet available" state
      await c.waitFor('available after minReadySeconds', async () => status(await rcs.get(NS, 'legacy')).availableReplicas === 1, 10_000);
    } finally {
      await c.close();
    }
  });
});

describe('deletion ranking (ActivePodsWithRanks)', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  const pod = (name: string, o: { node?: string; phase?: string; readyAgoS?: number; restarts?: number; createdAgoS?: number; cost?: number } = {}): KObject =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        uid: name,
        creationTimestamp: rfc3339(now - (o.createdAgoS ?? 3600) * 1000),
        annotations: o.cost !== undefined ? { 'controller.kubernetes.io/pod-deletion-cost': String(o.cost) } : undefined,
      },
      spec: { nodeName: o.node ?? 'n1' },
      status: {
        phase: o.phase ?? 'Running',
        conditions: o.readyAgoS !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: rfc3339(now - o.readyAgoS * 1000) }] : [],
        containerStatuses: [{ restartCount: o.restarts ?? 0 }],
      },
    }) as unknown as KObject;
  const order = (pods: KObject[]) => podsToDelete(pods, pods, pods.length - 1, now).map((p) => p.metadata.name);

  it('unassigned < Pending < Unknown < Running, not ready < ready', () => {
    const pods = [pod('ready', { readyAgoS: 100 }), pod('unassigned', { node: '' }), pod('running'), pod('unknown', { phase: 'Unknown' }), pod('pending', { phase: 'Pending' }), pod('last', { readyAgoS: 100000 })];
    assert.deepEqual(order(pods), ['unassigned', 'pending', 'unknown', 'running', 'ready']);
  });

  it('lower deletion cost, doubled-up nodes, recently ready, more restarts, newer first', () => {
    assert.deepEqual(order([pod('a', { cost: 10 }), pod('b', { cost: -1 }), pod('keep', { cost: 100 })]), ['b', 'a']);
    const crowded = [pod('alone', { node: 'n2' }), pod('x', { node: 'n1' }), pod('y', { node: 'n1' })];
    assert.deepEqual(podsToDelete(crowded, crowded, 1, now).map((p) => p.metadata.name), ['x']);
    assert.deepEqual(order([pod('old', { readyAgoS: 100000 }), pod('new', { readyAgoS: 10 })]), ['new']);
    // ready times in the same log2 bucket are ordered by uid; equal ready times fall through to restarts
    assert.deepEqual(order([pod('b-calm', { readyAgoS: 1000 }), pod('a-calm', { readyAgoS: 1001 })]), ['a-calm']);
    assert.deepEqual(order([pod('calm', { readyAgoS: 1000, restarts: 0 }), pod('crashy', { readyAgoS: 1000, restarts: 5 })]), ['crashy']);
    assert.deepEqual(order([pod('older', { createdAgoS: 100000 }), pod('newer', { createdAgoS: 5 })]), ['newer']);
  });
});

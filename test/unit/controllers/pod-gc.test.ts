import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { podGCController } from '../../../src/controllers/pod-gc.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { rfc3339 } from '../../../src/machinery/object.js';
import { controllerCluster, markPodFinished, markPodRunning, type ControllerCluster } from './harness.js';

type PodObj = KObject & { status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] } };
const pod = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } }) as KObject;

describe('pod garbage collector', () => {
  let c: ControllerCluster;
  let t = Date.now();
  before(async () => {
    c = await controllerCluster([podGCController({ terminatedPodThreshold: 3, checkPeriodMs: 40, quarantineMs: 40_000 })], { now: () => t });
  });
  after(() => c.close());
  const pods = () => c.client.resource('v1', 'pods');
  const gone = async (name: string) => {
    try {
      await pods().get('default', name);
      return false;
    } catch (e) {
      return e instanceof StatusError && e.code === 404;
    }
  };

  it('terminated pods over the threshold are deleted, oldest first', async () => {
    for (const name of ['t1', 't2', 't3', 't4', 't5']) {
      const p = await pods().create('default', pod(name));
      await markPodFinished(c.client, p, name === 't3' ? 'Failed' : 'Succeeded');
    }
    await c.waitFor('two oldest deleted', async () => (await gone('t1')) && (await gone('t2')));
    await new Promise((r) => setTimeout(r, 150));
    for (const name of ['t3', 't4', 't5']) assert.ok(await pods().get('default', name));
    // a running pod does not count
    await markPodRunning(c.client, await pods().create('default', pod('running')));
    await new Promise((r) => setTimeout(r, 150));
    assert.ok(await pods().get('default', 't3'));
    for (const name of ['t3', 't4', 't5', 'running']) await pods().delete('default', name, { gracePeriodSeconds: 0 });
  });

  it('pods on a node that no longer exists are marked Failed with DisruptionTarget and deleted after the quarantine', async () => {
    const seen: PodObj[] = [];
    const w = await pods().watch('default', {}, (ev) => ev.object.metadata.name === 'orphan' && seen.push(ev.object as PodObj));
    try {
      const p = await pods().create('default', pod('orphan', { nodeName: 'ghost' }));
      await markPodRunning(c.client, p);
      await new Promise((r) => setTimeout(r, 150));
      assert.ok(await pods().get('default', 'orphan'), 'kept during the quarantine');
      t += 41_000;
      await c.waitFor('orphan deleted', () => gone('orphan'));
      const failed = seen.find((o) => o.status?.phase === 'Failed');
      assert.ok(failed);
      const dt = failed.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
      assert.deepEqual({ status: dt?.status, reason: dt?.reason, message: dt?.message }, { status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
    } finally {
      w.stop();
    }
  });

  it('terminating pods that were never scheduled are failed and force-deleted', async () => {
    await pods().create('default', pod('unsched', {}, { finalizers: ['example.com/hold'] }));
    await pods().delete('default', 'unsched');
    const p = (await c.waitFor('unscheduled terminating pod failed', async () => {
      const o = (await pods().get('default', 'unsched')) as PodObj;
      return o.status?.phase === 'Failed' ? o : undefined;
    })) as PodObj;
    assert.ok(p.metadata.deletionTimestamp);
    await pods().patch('default', 'unsched', 'merge', { metadata: { finalizers: null } });
    await c.waitFor('gone', () => gone('unsched'));
  });

  it('terminating pods on a not-ready node with the out-of-service taint are force-deleted', async () => {
    const nodes = c.client.resource('v1', 'nodes');
    await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'down' }, spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] } } as KObject);
    const n = await nodes.get('', 'down');
    await nodes.update('', { ...n, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: rfc3339(), lastTransitionTime: rfc3339() }] } } as KObject, { subresource: 'status' });
    await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'fine' } } as KObject);
    for (const [name, node] of [['stuck', 'down'], ['waiting', 'fine']]) {
      const p = await pods().create('default', pod(name, { nodeName: node }));
      await markPodRunning(c.client, p);
      await pods().delete('default', name);
    }
    // podgc fails the pod and deletes it with grace period 0, ending its graceful deletion at once
    await c.waitFor('stuck pod force-deleted', () => gone('stuck'));
    await new Promise((r) => setTimeout(r, 150));
    const waiting = (await pods().get('default', 'waiting')) as PodObj;
    assert.ok(waiting.metadata.deletionTimestamp, 'graceful deletion continues elsewhere');
    assert.equal(waiting.status?.phase, 'Running');
  });
});

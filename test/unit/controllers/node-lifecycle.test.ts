import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { nodeLifecycleController, taintEvictionController } from '../../../src/controllers/node-lifecycle/controller.js';
import { rfc3339, rfc3339Micro } from '../../../src/machinery/object.js';
import { controllerCluster, markPodRunning, type ControllerCluster } from './harness.js';

type Cond = { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string };
type NodeObj = KObject & { spec?: { taints?: { key: string; effect: string; timeAdded?: string }[] }; status?: { conditions?: Cond[] } };
type PodObj = KObject & { status?: { conditions?: Cond[] } };

describe('node lifecycle and taint eviction', () => {
  let c: ControllerCluster;
  let t = Date.now();
  before(async () => {
    c = await controllerCluster([nodeLifecycleController({ gracePeriodMs: 40_000, monitorPeriodMs: 30 }), taintEvictionController({ recheckMs: 30 })], { now: () => t });
  });
  after(() => c.close());

  const nodes = () => c.client.resource('v1', 'nodes');
  const leases = () => c.client.resource('coordination.k8s.io/v1', 'leases');
  const pods = () => c.client.resource('v1', 'pods');

  /** What a kubelet posts; retried because the controller may write the node at the same time. */
  async function heartbeat(name: string, ready = 'True'): Promise<void> {
    await c.waitFor(`heartbeat of ${name}`, () => postStatus(name, ready).then(() => true));
  }

  async function postStatus(name: string, ready: string): Promise<void> {
    const n = (await nodes().get('', name)) as NodeObj;
    const ts = rfc3339(t);
    const conditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
      type,
      status: type === 'Ready' ? ready : 'False',
      reason: type === 'Ready' ? 'KubeletReady' : 'KubeletHasSufficient',
      message: 'ok',
      lastHeartbeatTime: rfc3339Micro(Date.now()).replace(/\.\d+Z$/, 'Z'),
      lastTransitionTime: ts,
    }));
    await nodes().update('', { ...n, status: { ...n.status, conditions } } as KObject, { subresource: 'status' });
  }

  async function renewLease(name: string): Promise<void> {
    const l = await leases().get('kube-node-lease', name);
    await leases().update('kube-node-lease', { ...l, spec: { ...(l.spec as object), renewTime: rfc3339Micro(Date.now()) } } as KObject);
  }

  /** Moves the fake clock forward in steps while n2 keeps renewing its Lease. */
  async function advance(seconds: number, step = 5): Promise<void> {
    for (let s = 0; s < seconds; s += step) {
      t += step * 1000;
      await renewLease('n2');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('a silent node goes Unknown after the grace period, is tainted, and its pods are evicted per their tolerations', async () => {
    for (const name of ['n1', 'n2']) {
      await nodes().create('', { apiVersion: 'v1', kind: 'Node', metadata: { name } } as KObject);
      await leases().create('kube-node-lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: rfc3339Micro(Date.now()) } } as KObject);
      await heartbeat(name);
    }
    const mk = async (name: string, node: string, tolerations?: unknown[]) => {
      const p = await pods().create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }], ...(tolerations ? { tolerations } : {}) } } as KObject);
      await markPodRunning(c.client, p);
    };
    await mk('default-tol', 'n1');
    await mk('short-tol', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]);
    await mk('forever', 'n1', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
    await mk('on-n2', 'n2');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(((await nodes().get('', 'n1')) as NodeObj).spec?.taints, undefined);

    await advance(45);
    const n1 = await c.waitFor('n1 Unknown and tainted', async () => {
      const n = (await nodes().get('', 'n1')) as NodeObj;
      return n.spec?.taints?.some((x) => x.effect === 'NoExecute') ? n : undefined;
    });
    const ready = n1.status?.conditions?.find((x) => x.type === 'Ready');
    assert.equal(ready?.status, 'Unknown');
    assert.equal(ready?.reason, 'NodeStatusUnknown');
    assert.equal(ready?.message, 'Kubelet stopped posting node status.');
    assert.deepEqual(n1.status?.conditions?.map((x) => x.status), ['Unknown', 'Unknown', 'Unknown', 'Unknown']);
    assert.deepEqual(n1.spec?.taints?.map((x) => `${x.key}:${x.effect}`), ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    assert.ok(n1.spec?.taints?.[1].timeAdded);
    const n2 = (await nodes().get('', 'n2')) as NodeObj;
    assert.equal(n2.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
    assert.equal(n2.spec?.taints, undefined);
    // pods on the lost node are no longer Ready
    await c.waitFor('pod marked not ready', async () => ((await pods().get('default', 'forever')) as PodObj).status?.conditions?.find((x) => x.type === 'Ready')?.status === 'False');

    // 10 s toleration: evicted once 10 s have passed
    assert.equal((await pods().get('default', 'short-tol')).metadata.deletionTimestamp, undefined);
    await advance(15);
    const evicted = (await c.waitFor('short-tol evicted', async () => {
      const p = await pods().get('default', 'short-tol');
      return p.metadata.deletionTimestamp ? p : undefined;
    })) as PodObj;
    const dt = evicted.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
    assert.equal(dt?.reason, 'DeletionByTaintManager');
    assert.equal(dt?.message, 'Taint manager: deleting due to NoExecute taint');
    const events = (await c.client.resource('v1', 'events').list('default')).items as (KObject & { reason?: string; message?: string })[];
    assert.ok(events.some((e) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/short-tol'));
    assert.equal((await pods().get('default', 'default-tol')).metadata.deletionTimestamp, undefined);

    // the default 300 s toleration runs out later; a toleration without seconds never does
    await advance(300, 20);
    await c.waitFor('default-tol evicted', async () => !!(await pods().get('default', 'default-tol')).metadata.deletionTimestamp);
    assert.equal((await pods().get('default', 'forever')).metadata.deletionTimestamp, undefined);
    assert.equal((await pods().get('default', 'on-n2')).metadata.deletionTimestamp, undefined);

    // the kubelet comes back: conditions True again and the taints go. It keeps posting, as a kubelet does: a
    // monitor pass that read the node just before the first post may still mark it Unknown once.
    await heartbeat('n1');
    await c.waitFor('taints removed', async () => {
      await postStatus('n1', 'True').catch(() => undefined);
      return ((await nodes().get('', 'n1')) as NodeObj).spec?.taints === undefined;
    });
  });

  it('a pod that does not tolerate a NoExecute taint is evicted at once', async () => {
    const n2 = (await nodes().get('', 'n2')) as NodeObj;
    await nodes().update('', { ...n2, spec: { ...n2.spec, taints: [{ key: 'example.com/drain', effect: 'NoExecute' }] } } as KObject);
    await c.waitFor('on-n2 evicted', async () => !!(await pods().get('default', 'on-n2')).metadata.deletionTimestamp);
  });

  it('when every node is down nothing is tainted NoExecute (full disruption)', async () => {
    await nodes().create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'solo', labels: { 'topology.kubernetes.io/zone': 'z9' } } } as KObject);
    await heartbeat('solo');
    // n1 is back, n2 renews: stop both and let every node go silent
    t += 100_000;
    await c.waitFor('solo Unknown', async () => ((await nodes().get('', 'solo')) as NodeObj).status?.conditions?.find((x) => x.type === 'Ready')?.status === 'Unknown');
    await c.waitFor('all Unknown', async () => ((await nodes().list('')).items as NodeObj[]).every((n) => n.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'Unknown'));
    await new Promise((r) => setTimeout(r, 150));
    const solo = (await nodes().get('', 'solo')) as NodeObj;
    assert.deepEqual(solo.spec?.taints?.map((x) => `${x.key}:${x.effect}`), ['node.kubernetes.io/unreachable:NoSchedule']);
  });
});

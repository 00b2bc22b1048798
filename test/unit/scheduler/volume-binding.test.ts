// VolumeBinding in a real in-process cluster: WaitForFirstConsumer provisioning (selected-node, pod bound only once
// the claim is), static binding of a local PV, PV node affinity pinning pods, PreFilter messages, requeue on events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { findMatchingVolume } from '../../../src/api/core/persistentvolume/matching.js';
import { claimProblem } from '../../../src/scheduler/plugins/volume-binding.js';
import type { PV, PVC } from '../../../src/scheduler/volume-binding/types.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition } from './fixtures.js';

const SELECTED = 'volume.kubernetes.io/selected-node';

async function withCluster(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await controllerCluster([schedulerFactory()]);
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

function storageClass(name: string, o: { provisioner?: string; wffc?: boolean; topologies?: Record<string, string[]> } = {}): KObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: o.provisioner ?? 'rancher.io/local-path',
    volumeBindingMode: o.wffc === false ? 'Immediate' : 'WaitForFirstConsumer',
    ...(o.topologies ? { allowedTopologies: [{ matchLabelExpressions: Object.entries(o.topologies).map(([key, values]) => ({ key, values })) }] } : {}),
  } as KObject;
}

function claim(name: string, o: { cls?: string; size?: string; modes?: string[]; volumeName?: string } = {}): KObject {
  const bound = o.volumeName ? { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } } : {};
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', ...bound },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: o.size ?? '1Gi' } },
      ...(o.cls !== undefined ? { storageClassName: o.cls } : {}),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
    },
  } as KObject;
}

function localPV(name: string, o: { node: string; cls?: string; size?: string; claimRef?: string; modes?: string[] }): KObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: o.size ?? '1Gi' },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      storageClassName: o.cls ?? 'manual',
      hostPath: { path: `/tmp/${name}` },
      ...(o.claimRef ? { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: o.claimRef } } : {}),
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [o.node] }] }] } },
    },
  } as KObject;
}

function withClaims(p: KObject, ...claims: string[]): KObject {
  const spec = (p as unknown as { spec: Record<string, unknown> }).spec;
  spec.volumes = claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  return p;
}

const api = (c: ControllerCluster) => ({
  pods: c.client.resource('v1', 'pods'),
  pvcs: c.client.resource('v1', 'persistentvolumeclaims'),
  pvs: c.client.resource('v1', 'persistentvolumes'),
  classes: c.client.resource('storage.k8s.io/v1', 'storageclasses'),
  nodes: c.client.resource('v1', 'nodes'),
});

/** What the PV controller does to finish a binding: the claim names its volume, both report Bound. */
async function completeBinding(c: ControllerCluster, pvcName: string, pvName: string): Promise<void> {
  const a = api(c);
  const pvc = await a.pvcs.get('default', pvcName);
  pvc.metadata.annotations = { ...(pvc.metadata.annotations ?? {}), 'pv.kubernetes.io/bind-completed': 'yes' };
  (pvc as unknown as { spec: { volumeName?: string } }).spec.volumeName = pvName;
  await a.pvcs.update('default', pvc);
}

async function boundNode(c: ControllerCluster, name: string): Promise<string> {
  const p = await c.waitFor(`${name} bound`, async () => {
    const got = await api(c).pods.get('default', name);
    return nodeNameOf(got) ? got : undefined;
  });
  return nodeNameOf(p)!;
}

async function unschedulableMessage(c: ControllerCluster, name: string): Promise<string> {
  const cond = await c.waitFor(`${name} unschedulable`, async () => {
    const cnd = scheduledCondition(await api(c).pods.get('default', name));
    return cnd?.reason === 'Unschedulable' ? cnd : undefined;
  });
  return cond.message!;
}

describe('VolumeBinding', () => {
  it('WaitForFirstConsumer: the claim gets selected-node on the chosen node; the pod binds only once the claim is bound', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.classes.create('', storageClass('test-wffc'));
      await a.nodes.create('', node('small', { cpu: '1' }));
      await a.nodes.create('', node('big', { cpu: '8' }));
      await a.pvcs.create('default', claim('data', { cls: 'test-wffc' }));
      await a.pods.create('default', withClaims(pod('db', { cpu: '2' }), 'data'));
      const pvc = await c.waitFor('selected-node', async () => {
        const got = await a.pvcs.get('default', 'data');
        return got.metadata.annotations?.[SELECTED] ? got : undefined;
      });
      assert.equal(pvc.metadata.annotations![SELECTED], 'big');
      // PreBind is waiting: the pod is not bound while the claim is not
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(nodeNameOf(await a.pods.get('default', 'db')), undefined);
      // the "provisioner": a PV on that node, then the claim bound to it
      await a.pvs.create('', localPV('pvc-data', { node: 'big', cls: 'test-wffc', claimRef: 'data' }));
      await completeBinding(c, 'data', 'pvc-data');
      assert.equal(await boundNode(c, 'db'), 'big');
    });
  });

  it('a provisioning class whose allowedTopologies exclude every node leaves the pod unschedulable', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.classes.create('', storageClass('zonal', { topologies: { 'topology.kubernetes.io/zone': ['z9'] } }));
      await a.nodes.create('', node('n1', { labels: { 'topology.kubernetes.io/zone': 'z1' } }));
      await a.nodes.create('', node('n2', { labels: { 'topology.kubernetes.io/zone': 'z2' } }));
      await a.pvcs.create('default', claim('data', { cls: 'zonal' }));
      await a.pods.create('default', withClaims(pod('db'), 'data'));
      assert.equal(
        await unschedulableMessage(c, 'db'),
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
      );
      // a third node in the allowed zone is a cluster event that makes it schedulable
      await a.nodes.create('', node('n3', { labels: { 'topology.kubernetes.io/zone': 'z9' } }));
      const pvc = await c.waitFor('selected-node n3', async () => (await a.pvcs.get('default', 'data')).metadata.annotations?.[SELECTED] === 'n3');
      assert.ok(pvc);
    });
  });

  it('a bound local PV pins the pod to its node; an unreachable PV is a node affinity conflict', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      for (const n of ['n1', 'n2', 'n3']) await a.nodes.create('', node(n, { cpu: n === 'n2' ? '2' : '16' }));
      await a.pvs.create('', localPV('local-a', { node: 'n2', claimRef: 'a' }));
      await a.pvcs.create('default', claim('a', { cls: 'manual', volumeName: 'local-a' }));
      await a.pods.create('default', withClaims(pod('pinned', { cpu: '1' }), 'a'));
      assert.equal(await boundNode(c, 'pinned'), 'n2');

      await a.pvs.create('', localPV('local-gone', { node: 'elsewhere', claimRef: 'b' }));
      await a.pvcs.create('default', claim('b', { cls: 'manual', volumeName: 'local-gone' }));
      await a.pods.create('default', withClaims(pod('stuck'), 'b'));
      assert.equal(
        await unschedulableMessage(c, 'stuck'),
        '0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      );
    });
  });

  it('WaitForFirstConsumer static binding: the smallest fitting available PV on a feasible node gets the claimRef', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.classes.create('', storageClass('manual', { provisioner: 'kubernetes.io/no-provisioner' }));
      await a.nodes.create('', node('n1'));
      await a.nodes.create('', node('n2'));
      // too small, too big, just right (all on n2); nothing on n1
      await a.pvs.create('', localPV('small', { node: 'n2', size: '500Mi' }));
      await a.pvs.create('', localPV('big', { node: 'n2', size: '10Gi' }));
      await a.pvs.create('', localPV('fit', { node: 'n2', size: '2Gi' }));
      for (const n of ['small', 'big', 'fit']) {
        const pv = await a.pvs.get('', n);
        (pv as { status?: unknown }).status = { phase: 'Available' };
        await a.pvs.update('', pv, { subresource: 'status' });
      }
      await a.pvcs.create('default', claim('data', { cls: 'manual', size: '1Gi' }));
      await a.pods.create('default', withClaims(pod('db'), 'data'));
      const pv = await c.waitFor('claimRef on fit', async () => {
        const got = (await a.pvs.get('', 'fit')) as KObject & { spec: { claimRef?: { name?: string; uid?: string } } };
        return got.spec.claimRef ? got : undefined;
      });
      const pvc = await a.pvcs.get('default', 'data');
      assert.equal(pv.spec.claimRef!.name, 'data');
      assert.equal(pv.spec.claimRef!.uid, pvc.metadata.uid);
      assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
      assert.equal(nodeNameOf(await a.pods.get('default', 'db')), undefined);
      await completeBinding(c, 'data', 'fit');
      assert.equal(await boundNode(c, 'db'), 'n2');
      // a second claim finds no PV left that fits (and the class cannot provision)
      await a.pvcs.create('default', claim('more', { cls: 'manual', size: '20Gi' }));
      await a.pods.create('default', withClaims(pod('db2'), 'more'));
      assert.match(await unschedulableMessage(c, 'db2'), /^0\/2 nodes are available: 2 node\(s\) didn't find available persistent volumes to bind\. /);
    });
  });

  it('PreFilter: a missing claim or an unbound immediate claim rejects every node with one message; creating the claim requeues', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.nodes.create('', node('n1', { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] }));
      await a.nodes.create('', node('n2'));
      await a.pods.create('default', withClaims(pod('web'), 'nope'));
      assert.equal(
        await unschedulableMessage(c, 'web'),
        '0/2 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
      );
      await a.classes.create('', storageClass('fast', { wffc: false }));
      await a.pvcs.create('default', claim('nope', { cls: 'fast' }));
      await c.waitFor('immediate message', async () =>
        scheduledCondition(await a.pods.get('default', 'web'))?.message ===
        '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
      );
      // bound by "the PV controller": the pod follows its PV to n2
      await a.pvs.create('', localPV('pv-nope', { node: 'n2', cls: 'fast', claimRef: 'nope' }));
      await completeBinding(c, 'nope', 'pv-nope');
      assert.equal(await boundNode(c, 'web'), 'n2');
    });
  });

  it('a provisioner that gives up (drops selected-node) fails PreBind; the pod is retried and the claim re-selected', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.classes.create('', storageClass('test-wffc'));
      await a.nodes.create('', node('n1'));
      await a.pvcs.create('default', claim('data', { cls: 'test-wffc' }));
      await a.pods.create('default', withClaims(pod('db'), 'data'));
      const pvc = await c.waitFor('selected-node', async () => {
        const got = await a.pvcs.get('default', 'data');
        return got.metadata.annotations?.[SELECTED] ? got : undefined;
      });
      delete pvc.metadata.annotations![SELECTED];
      await a.pvcs.update('default', pvc);
      const cond = await c.waitFor('SchedulerError', async () => {
        const cnd = scheduledCondition(await a.pods.get('default', 'db'));
        return cnd?.reason === 'SchedulerError' ? cnd : undefined;
      });
      // the claim had no other annotation: the empty map is not stored (omitempty), so kube's binder sees none at all
      assert.equal(cond.message, 'running PreBind plugin "VolumeBinding": binding volumes: selectedNode annotation reset for PVC "data"');
      assert.equal(nodeNameOf(await a.pods.get('default', 'db')), undefined);
      // after its back-off the pod is scheduled again and the claim selected again
      await c.waitFor('re-selected', async () => (await a.pvcs.get('default', 'data')).metadata.annotations?.[SELECTED] === 'n1', 8000);
      await a.pvs.create('', localPV('pvc-data', { node: 'n1', cls: 'test-wffc', claimRef: 'data' }));
      await completeBinding(c, 'data', 'pvc-data');
      assert.equal(await boundNode(c, 'db'), 'n1');
    });
  });
});

describe('VolumeBinding rules', () => {
  const pvc = (o: Record<string, unknown> = {}) =>
    ({ metadata: { name: 'c', namespace: 'ns', uid: 'u1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'sc', ...o } }) as PVC;
  const pv = (name: string, o: { size?: string; modes?: string[]; mode?: string; labels?: Record<string, string>; phase?: string; claimRef?: Record<string, string>; zone?: string } = {}) =>
    ({
      metadata: { name, labels: o.labels ?? {} },
      spec: {
        capacity: { storage: o.size ?? '1Gi' },
        accessModes: o.modes ?? ['ReadWriteOnce'],
        storageClassName: 'sc',
        ...(o.mode ? { volumeMode: o.mode } : {}),
        ...(o.claimRef ? { claimRef: o.claimRef } : {}),
        ...(o.zone ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: [o.zone] }] }] } } } : {}),
      },
      status: { phase: o.phase ?? 'Available' },
    }) as PV;
  const name = (v: PV | undefined) => v?.metadata.name;

  it('picks the smallest available PV that satisfies size, modes, volume mode, selector and node affinity', () => {
    const none = new Set<string>();
    const pvs = [pv('huge', { size: '100Gi' }), pv('tiny', { size: '100Mi' }), pv('ok', { size: '2Gi' }), pv('ok-small', { size: '1Gi', phase: 'Released' })];
    assert.equal(name(findMatchingVolume(pvc(), pvs, {}, none)), 'ok');
    assert.equal(name(findMatchingVolume(pvc(), pvs, {}, new Set(['ok']))), 'huge');
    assert.equal(name(findMatchingVolume(pvc({ accessModes: ['ReadWriteMany'] }), pvs, {}, none)), undefined);
    assert.equal(name(findMatchingVolume(pvc({ volumeMode: 'Block' }), [...pvs, pv('blk', { size: '5Gi', mode: 'Block' })], {}, none)), 'blk');
    assert.equal(name(findMatchingVolume(pvc({ selector: { matchLabels: { tier: 'gold' } } }), [...pvs, pv('gold', { size: '50Gi', labels: { tier: 'gold' } })], {}, none)), 'gold');
    assert.equal(name(findMatchingVolume(pvc(), [pv('z', { zone: 'a' })], { zone: 'b' }, none)), undefined);
    assert.equal(name(findMatchingVolume(pvc(), [pv('z', { zone: 'a' })], { zone: 'a' }, none)), 'z');
    assert.equal(name(findMatchingVolume(pvc({ storageClassName: 'other' }), pvs, {}, none)), undefined);
  });

  it('a PV pre-bound to the claim wins over any other, but only on a node it accepts', () => {
    const mine = pv('mine', { size: '10Gi', phase: 'Pending', zone: 'a', claimRef: { name: 'c', namespace: 'ns' } });
    const others = [pv('free'), pv('taken', { claimRef: { name: 'x', namespace: 'ns' } })];
    assert.equal(name(findMatchingVolume(pvc(), [...others, mine], { zone: 'a' }, new Set())), 'mine');
    assert.equal(name(findMatchingVolume(pvc(), [...others, mine], { zone: 'b' }, new Set())), undefined);
    assert.equal(name(findMatchingVolume(pvc(), others, {}, new Set())), 'free');
  });

  it("PreFilter messages for missing, deleting and foreign ephemeral claims", () => {
    const p = { metadata: { name: 'web', namespace: 'ns', uid: 'pod-uid' } } as KObject;
    assert.equal(claimProblem(p, { name: 'x', ephemeral: false }, undefined), 'persistentvolumeclaim "x" not found');
    assert.equal(claimProblem(p, { name: 'web-data', ephemeral: true }, undefined), 'waiting for ephemeral volume controller to create the persistentvolumeclaim "web-data"');
    const deleting = { ...pvc(), metadata: { name: 'x', namespace: 'ns', deletionTimestamp: '2026-01-01T00:00:00Z' } } as PVC;
    assert.equal(claimProblem(p, { name: 'x', ephemeral: false }, deleting), 'persistentvolumeclaim "x" is being deleted');
    const foreign = { ...pvc(), metadata: { name: 'web-data', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'other', uid: 'other', controller: true }] } } as PVC;
    assert.equal(claimProblem(p, { name: 'web-data', ephemeral: true }, foreign), 'PVC ns/web-data was not created for pod ns/web (pod is not owner)');
    const owned = { ...foreign, metadata: { ...foreign.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid', controller: true }] } } as PVC;
    assert.equal(claimProblem(p, { name: 'web-data', ephemeral: true }, owned), undefined);
  });
});

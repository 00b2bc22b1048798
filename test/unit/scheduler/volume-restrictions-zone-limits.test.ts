// VolumeRestrictions (ReadWriteOncePod, disk conflicts), VolumeZone and NodeVolumeLimits (CSI) in a real in-process
// cluster, plus their pure rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { runFilters } from '../../../src/scheduler/plugins/filters.js';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { SchedulerCache } from '../../../src/scheduler/node-info.js';
import { diskConflict } from '../../../src/scheduler/plugins/volume-restrictions.js';
import { zonesOf } from '../../../src/scheduler/plugins/volume-zone.js';
import { csiLimits } from '../../../src/scheduler/plugins/node-volume-limits.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod, scheduledCondition } from './fixtures.js';

async function withCluster(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await controllerCluster([schedulerFactory()]);
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const api = (c: ControllerCluster) => ({
  pods: c.client.resource('v1', 'pods'),
  pvcs: c.client.resource('v1', 'persistentvolumeclaims'),
  pvs: c.client.resource('v1', 'persistentvolumes'),
  nodes: c.client.resource('v1', 'nodes'),
  csiNodes: c.client.resource('storage.k8s.io/v1', 'csinodes'),
});

/** A PV and a claim already bound to each other (what the PV controller leaves behind). */
async function boundPair(c: ControllerCluster, name: string, o: { labels?: Record<string, string>; modes?: string[]; csi?: string } = {}): Promise<void> {
  const a = api(c);
  await a.pvs.create('', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${name}`, labels: o.labels ?? {} },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      storageClassName: 'manual',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name },
      ...(o.csi ? { csi: { driver: o.csi, volumeHandle: `handle-${name}` } } : { hostPath: { path: `/tmp/${name}` } }),
    },
  } as KObject);
  await a.pvcs.create('default', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } },
    spec: { accessModes: o.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual', volumeName: `pv-${name}` },
  } as KObject);
}

function withClaims(p: KObject, ...claims: string[]): KObject {
  (p as unknown as { spec: Record<string, unknown> }).spec.volumes = claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  return p;
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

describe('VolumeZone', () => {
  it('a zonal PV sends the pod to a node of its zone; no node in the zone is a zone conflict', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.nodes.create('', node('a1', { cpu: '2', labels: { 'topology.kubernetes.io/zone': 'a' } }));
      await a.nodes.create('', node('b1', { cpu: '32', labels: { 'topology.kubernetes.io/zone': 'b' } }));
      // a beta-labelled PV listing two zones matches the node's GA label
      await boundPair(c, 'za', { labels: { 'failure-domain.beta.kubernetes.io/zone': 'a__x' } });
      await a.pods.create('default', withClaims(pod('p1', { cpu: '1' }), 'za'));
      assert.equal(await boundNode(c, 'p1'), 'a1');
      await boundPair(c, 'zc', { labels: { 'topology.kubernetes.io/zone': 'c' } });
      await a.pods.create('default', withClaims(pod('p2'), 'zc'));
      assert.equal(
        await unschedulableMessage(c, 'p2'),
        '0/2 nodes are available: 2 node(s) had no available volume zone. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
      );
      // a node without any zone label accepts it
      await a.nodes.create('', node('plain'));
      assert.equal(await boundNode(c, 'p2'), 'plain');
    });
  });

  it('splits multi-zone label values', () => {
    assert.deepEqual([...zonesOf('us-a__us-b')], ['us-a', 'us-b']);
    assert.deepEqual([...zonesOf('one')], ['one']);
  });
});

describe('VolumeRestrictions', () => {
  it('a ReadWriteOncePod claim in use keeps a second pod out until the first is deleted', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.nodes.create('', node('n1'));
      await a.nodes.create('', node('n2'));
      await boundPair(c, 'solo', { modes: ['ReadWriteOncePod'] });
      await a.pods.create('default', withClaims(pod('first'), 'solo'));
      await boundNode(c, 'first');
      await a.pods.create('default', withClaims(pod('second'), 'solo'));
      const msg = await unschedulableMessage(c, 'second');
      assert.match(msg, /^0\/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode\. preemption: /);
      // a ReadWriteOnce claim shared by two pods is fine
      await boundPair(c, 'shared');
      await a.pods.create('default', withClaims(pod('s1'), 'shared'));
      await a.pods.create('default', withClaims(pod('s2'), 'shared'));
      await boundNode(c, 's1');
      await boundNode(c, 's2');
      // deleting the user is the event that lets the waiting pod in
      await a.pods.delete('default', 'first', { gracePeriodSeconds: 0 });
      await boundNode(c, 'second');
    });
  });

  it('disk conflicts: GCE PD unless both read-only, EBS always, iSCSI by IQN, RBD by monitor/pool/image', () => {
    const withVols = (...volumes: Record<string, unknown>[]) => ({ metadata: { name: 'x' }, spec: { volumes } }) as unknown as KObject;
    assert.equal(diskConflict({ gcePersistentDisk: { pdName: 'd' } }, withVols({ gcePersistentDisk: { pdName: 'd', readOnly: true } })), true);
    assert.equal(diskConflict({ gcePersistentDisk: { pdName: 'd', readOnly: true } }, withVols({ gcePersistentDisk: { pdName: 'd', readOnly: true } })), false);
    assert.equal(diskConflict({ gcePersistentDisk: { pdName: 'd' } }, withVols({ gcePersistentDisk: { pdName: 'e' } })), false);
    assert.equal(diskConflict({ awsElasticBlockStore: { volumeID: 'v' } }, withVols({ awsElasticBlockStore: { volumeID: 'v' } })), true);
    assert.equal(diskConflict({ iscsi: { iqn: 'q' } }, withVols({ iscsi: { iqn: 'q', readOnly: true } })), true);
    assert.equal(diskConflict({ iscsi: { iqn: 'q', readOnly: true } }, withVols({ iscsi: { iqn: 'q', readOnly: true } })), false);
    const rbd = (monitors: string[], image: string) => ({ rbd: { monitors, pool: 'rbd', image } });
    assert.equal(diskConflict(rbd(['m1', 'm2'], 'i'), withVols(rbd(['m2'], 'i'))), true);
    assert.equal(diskConflict(rbd(['m1'], 'i'), withVols(rbd(['m2'], 'i'))), false);
    assert.equal(diskConflict({ persistentVolumeClaim: { claimName: 'c' } }, withVols({ persistentVolumeClaim: { claimName: 'c' } })), false);
  });

  it('two pods mounting the same EBS volume land on different nodes', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.nodes.create('', node('n1'));
      await a.nodes.create('', node('n2'));
      const ebs = (name: string) => {
        const p = pod(name);
        (p as unknown as { spec: Record<string, unknown> }).spec.volumes = [{ name: 'd', awsElasticBlockStore: { volumeID: 'vol-1' } }];
        return p;
      };
      await a.pods.create('default', ebs('e1'));
      const first = await boundNode(c, 'e1');
      await a.pods.create('default', ebs('e2'));
      assert.notEqual(await boundNode(c, 'e2'), first);
      await a.pods.create('default', ebs('e3'));
      assert.match(await unschedulableMessage(c, 'e3'), /^0\/2 nodes are available: 2 node\(s\) had no available disk\. /);
    });
  });
});

describe('NodeVolumeLimits', () => {
  it('a CSI driver attach limit of 1 keeps a second CSI volume off the node', async () => {
    await withCluster(async (c) => {
      const a = api(c);
      await a.nodes.create('', node('n1'));
      await a.nodes.create('', node('n2'));
      await a.csiNodes.create('', {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSINode',
        metadata: { name: 'n1' },
        spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', allocatable: { count: 1 } }] },
      } as KObject);
      await boundPair(c, 'v1', { csi: 'csi.example.com' });
      await boundPair(c, 'v2', { csi: 'csi.example.com' });
      const onN1 = (name: string, claim: string) => withClaims(pod(name, { nodeSelector: { 'kubernetes.io/hostname': 'n1' } }), claim);
      await a.pods.create('default', onN1('a', 'v1'));
      assert.equal(await boundNode(c, 'a'), 'n1');
      // the same volume again does not count twice
      await a.pods.create('default', onN1('a2', 'v1'));
      assert.equal(await boundNode(c, 'a2'), 'n1');
      await a.pods.create('default', onN1('b', 'v2'));
      assert.match(
        await unschedulableMessage(c, 'b'),
        /^0\/2 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 1 node\(s\) exceed max volume count\. preemption: /,
      );
    });
  });

  it('reads per-driver limits from CSINode', () => {
    const limits = csiLimits({ metadata: { name: 'n' }, spec: { drivers: [{ name: 'a', allocatable: { count: 3 } }, { name: 'b' }] } } as never);
    assert.deepEqual([...limits], [['a', 3]]);
  });
});

describe('volume plugins skipped for pods with nothing for them to check', () => {
  // every lookup fails the test: a pod whose volumes need no volume plugin must not reach them (PreFilter Skip)
  const refuse = (): never => assert.fail('a volume plugin looked up storage for a pod that needs none');
  const lookups = { pvc: refuse, pv: refuse, pvsOfClass: refuse, storageClass: refuse, csiNode: refuse };
  const cache = new SchedulerCache();
  cache.lookups = { volumes: lookups };
  cache.setNode(node('n1'));
  const withVols = (...volumes: Record<string, unknown>[]) => {
    const p = pod('v', { cpu: '100m' });
    (p as unknown as { spec: Record<string, unknown> }).spec.volumes = volumes;
    return p;
  };

  it('service-account token, configMap, secret, emptyDir and hostPath volumes fit without a lookup', () => {
    const p = withVols(
      { name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
      { name: 'cm', configMap: { name: 'c' } },
      { name: 's', secret: { secretName: 's' } },
      { name: 'e', emptyDir: {} },
      { name: 'h', hostPath: { path: '/tmp' } },
    );
    assert.equal(podInfo(p).volumesUsed, false);
    assert.equal(runFilters(podInfo(p), cache.nodes()[0]!), undefined);
  });

  it('claims, generic ephemeral volumes and inline CSI volumes do reach the plugins', () => {
    for (const v of [{ persistentVolumeClaim: { claimName: 'c' } }, { ephemeral: { volumeClaimTemplate: { spec: {} } } }, { csi: { driver: 'd' } }]) {
      const info = podInfo(withVols({ name: 'x', ...v }));
      assert.equal(info.volumesUsed, true, JSON.stringify(v));
      assert.throws(() => runFilters(info, cache.nodes()[0]!), /looked up storage/, JSON.stringify(v));
    }
  });

  it('disks are still compared with the pods on the node', () => {
    const disks = [{ gcePersistentDisk: { pdName: 'd' } }, { awsElasticBlockStore: { volumeID: 'v' } }, { rbd: { monitors: ['m'], image: 'i' } }, { iscsi: { iqn: 'q' } }];
    const c = new SchedulerCache();
    c.setNode(node('n1'));
    disks.forEach((v, i) => {
      const user = withVols({ name: 'x', ...v });
      user.metadata.name = `user-${i}`;
      user.metadata.uid = `u${i}`;
      c.assume(user, 'n1');
    });
    for (const v of disks) {
      const info = podInfo(withVols({ name: 'x', ...v }));
      assert.equal(info.volumesUsed, true, JSON.stringify(v));
      assert.equal(runFilters(info, c.nodes()[0]!)?.plugin, 'VolumeRestrictions', JSON.stringify(v));
    }
  });
});

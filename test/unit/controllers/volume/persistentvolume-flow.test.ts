// The whole dynamic-provisioning flow with the real scheduler and simulated nodes: WaitForFirstConsumer, the
// local-path provisioner, binding, expansion, claim protection, Delete reclaim and StatefulSet claims.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { persistentVolumeController } from '../../../../src/controllers/volume/persistentvolume.js';
import { volumeResizer } from '../../../../src/controllers/volume/resize.js';
import { pvProtectionController } from '../../../../src/controllers/volume/pv-protection.js';
import { pvcProtectionController } from '../../../../src/controllers/volume/pvc-protection.js';
import { localPathProvisioner } from '../../../../src/controllers/volume/local-path-provisioner.js';
import { statefulSetController } from '../../../../src/controllers/statefulset/controller.js';
import { schedulerFactory } from '../../../../src/scheduler/scheduler.js';
import { SimulatedNodes } from '../../../../src/kubelet/simulated/nodes.js';
import { NS, eventsFor, phase, podWithClaim, pv, pvc, pvcs, pvs, spec, status, storageClass, waitEvent } from './persistentvolume-helpers.js';

async function withFlow(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await controllerCluster([
    schedulerFactory(),
    persistentVolumeController({ resyncMs: 200 }),
    pvProtectionController(),
    pvcProtectionController(),
    localPathProvisioner({ storageRoot: '/srv/k1s-storage' }),
    volumeResizer(),
    statefulSetController(),
  ]);
  const nodes = new SimulatedNodes({ client: c.client, log: (l) => c.logs.push(l) });
  try {
    await nodes.start({ count: 2 });
    await fn(c);
  } finally {
    await nodes.stop();
    await c.close();
  }
}

const pods = (c: ControllerCluster) => c.client.resource('v1', 'pods');

describe('dynamic provisioning with local-path', () => {
  it('WaitForFirstConsumer → selected node → provisioned, pinned PV → Bound → pod scheduled; expand; protect; Delete', () =>
    withFlow(async (c) => {
      // no class given: DefaultStorageClass admission picks local-path
      await pvcs(c).create(NS, pvc('data', { cls: null, size: '1Gi' }));
      const created = await pvcs(c).get(NS, 'data');
      assert.equal(spec(created).storageClassName, 'local-path');
      assert.deepEqual(created.metadata.finalizers, ['kubernetes.io/pvc-protection']);
      await waitEvent(c, 'PersistentVolumeClaim', 'data', 'WaitForFirstConsumer');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(phase(await pvcs(c).get(NS, 'data')), 'Pending');
      assert.equal((await pvs(c).list('')).items.length, 0);

      await pods(c).create(NS, podWithClaim('user', 'data'));
      const claim = await c.waitFor('data Bound', async () => {
        const o = await pvcs(c).get(NS, 'data');
        return phase(o) === 'Bound' ? o : undefined;
      });
      const node = claim.metadata.annotations!['volume.kubernetes.io/selected-node'];
      assert.ok(node);
      assert.equal(claim.metadata.annotations!['volume.kubernetes.io/storage-provisioner'], 'rancher.io/local-path');
      const pvName = `pvc-${claim.metadata.uid}`;
      assert.equal(spec(claim).volumeName, pvName);
      const vol = await pvs(c).get('', pvName);
      assert.equal(phase(vol), 'Bound');
      assert.deepEqual(spec(vol).hostPath, { path: `/srv/k1s-storage/${pvName}_default_data`, type: 'DirectoryOrCreate' });
      assert.deepEqual(spec(vol).nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }]);
      assert.equal(spec(vol).persistentVolumeReclaimPolicy, 'Delete');
      assert.deepEqual(spec(vol).capacity, { storage: '1Gi' });
      assert.equal(vol.metadata.annotations!['pv.kubernetes.io/provisioned-by'], 'rancher.io/local-path');
      assert.equal(spec(vol).claimRef.uid, claim.metadata.uid);
      const ok = await waitEvent(c, 'PersistentVolumeClaim', 'data', 'ProvisioningSucceeded');
      assert.equal(ok.message, `Successfully provisioned volume ${pvName}`);
      const reasons = (await eventsFor(c, 'PersistentVolumeClaim', 'data')).map((e) => e.reason);
      assert.ok(reasons.includes('Provisioning') && reasons.includes('ExternalProvisioning'), reasons.join(','));
      const pod = await c.waitFor('pod scheduled', async () => {
        const p = await pods(c).get(NS, 'user');
        return spec(p).nodeName ? p : undefined;
      });
      assert.equal(spec(pod).nodeName, node);

      // expansion: the class allows it, the PV grows and the claim's status follows
      await pvcs(c).patch(NS, 'data', 'merge', { spec: { resources: { requests: { storage: '3Gi' } } } });
      const grown = await c.waitFor('data grown', async () => {
        const o = await pvcs(c).get(NS, 'data');
        return status(o).capacity?.storage === '3Gi' ? o : undefined;
      });
      assert.deepEqual(status(grown).allocatedResources, { storage: '3Gi' });
      assert.equal(status(grown).allocatedResourceStatuses, undefined);
      assert.equal(status(grown).conditions, undefined);
      assert.deepEqual(spec(await pvs(c).get('', pvName)).capacity, { storage: '3Gi' });
      assert.equal((await waitEvent(c, 'PersistentVolumeClaim', 'data', 'VolumeResizeSuccessful')).message, 'Resize volume succeeded');

      // the claim is in use: deleting it leaves it Terminating until the pod is gone
      await pvcs(c).delete(NS, 'data');
      await new Promise((r) => setTimeout(r, 400));
      const terminating = await pvcs(c).get(NS, 'data');
      assert.ok(terminating.metadata.deletionTimestamp);
      assert.equal(phase(await pvs(c).get('', pvName)), 'Bound');
      await pods(c).delete(NS, 'user', { gracePeriodSeconds: 0 });
      await c.waitFor('claim gone', async () => !(await pvcs(c).list(NS)).items.length);
      // reclaim Delete: Released, then deleted by the provisioner (simulated nodes keep no directories)
      await c.waitFor('PV deleted', async () => !(await pvs(c).list('')).items.length, 15_000);
    }));

  it('StatefulSet volumeClaimTemplates get provisioned, bound claims and pods on the volumes\' nodes', () =>
    withFlow(async (c) => {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: NS },
        spec: {
          replicas: 2,
          serviceName: 'db',
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      } as KObject);
      for (const i of [0, 1]) {
        const claim = await c.waitFor(`data-db-${i} Bound`, async () => {
          const o = await pvcs(c).get(NS, `data-db-${i}`);
          return phase(o) === 'Bound' ? o : undefined;
        });
        assert.equal(spec(claim).storageClassName, 'local-path');
        const vol = await pvs(c).get('', spec(claim).volumeName);
        const node = spec(vol).nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0];
        const pod = await c.waitFor(`db-${i} scheduled`, async () => {
          const p = await pods(c).get(NS, `db-${i}`);
          return spec(p).nodeName ? p : undefined;
        });
        assert.equal(spec(pod).nodeName, node);
      }
    }));

  it('static local volumes with WaitForFirstConsumer: the scheduler picks the PV\'s node and the controller finishes the binding', () =>
    withFlow(async (c) => {
      await c.client.resource('storage.k8s.io/v1', 'storageclasses').create('', storageClass('manual', { mode: 'WaitForFirstConsumer' }));
      await pvs(c).create('', pv('local-1', { cls: 'manual', size: '5Gi', node: 'k1s-sim-1' }));
      await pvcs(c).create(NS, pvc('static', { cls: 'manual', size: '1Gi' }));
      await waitEvent(c, 'PersistentVolumeClaim', 'static', 'WaitForFirstConsumer');
      await pods(c).create(NS, podWithClaim('consumer', 'static'));
      const claim = await c.waitFor('static Bound', async () => {
        const o = await pvcs(c).get(NS, 'static');
        return phase(o) === 'Bound' ? o : undefined;
      });
      assert.equal(spec(claim).volumeName, 'local-1');
      assert.equal(claim.metadata.annotations!['pv.kubernetes.io/bind-completed'], 'yes');
      assert.deepEqual(status(claim).capacity, { storage: '5Gi' });
      const pod = await c.waitFor('consumer scheduled', async () => {
        const p = await pods(c).get(NS, 'consumer');
        return spec(p).nodeName ? p : undefined;
      });
      assert.equal(spec(pod).nodeName, 'k1s-sim-1');
      assert.equal(phase(await pvs(c).get('', 'local-1')), 'Bound');
    }));
});

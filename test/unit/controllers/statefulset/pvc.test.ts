import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';

const NS = 'default';

function sts(name: string, policy?: { whenDeleted?: string; whenScaled?: string }, replicas = 2): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1', volumeMounts: [{ name: 'www', mountPath: '/www' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...(policy ? { persistentVolumeClaimRetentionPolicy: policy } : {}),
    },
  } as KObject;
}

const pvcs = (c: ControllerCluster) => c.client.resource('v1', 'persistentvolumeclaims');
const pods = (c: ControllerCluster) => c.client.resource('v1', 'pods');
const owners = (o: KObject) => (o.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`).sort();

describe('StatefulSet volume claims', () => {
  it('creates <claim>-<set>-<ordinal> claims before the pods and mounts them; Retain leaves them unowned', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('keep'));
      const pod = await c.waitFor('keep-1', () => pods(c).get(NS, 'keep-1'));
      const claim = await pvcs(c).get(NS, 'www-keep-1');
      assert.ok(claim.metadata.creationTimestamp! <= pod.metadata.creationTimestamp!);
      assert.deepEqual(claim.metadata.labels, { tier: 'data', app: 'keep' });
      assert.deepEqual(owners(claim), []);
      const vols = (pod.spec as { volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[] }).volumes;
      assert.equal(vols.find((v) => v.name === 'www')?.persistentVolumeClaim?.claimName, 'www-keep-1');
      const ev = await c.waitFor('claim event', async () =>
        ((await c.client.resource('v1', 'events').list(NS)).items as (KObject & { message: string })[]).find((e) => e.message.startsWith('create Claim www-keep-0')));
      assert.equal(ev.message, 'create Claim www-keep-0 Pod keep-0 in StatefulSet keep success');
      await c.client.resource('apps/v1', 'statefulsets').patch(NS, 'keep', 'merge', { spec: { replicas: 1 } });
      await c.waitFor('keep-1 gone', async () => !(await pods(c).get(NS, 'keep-1').catch(() => undefined)));
      assert.deepEqual(owners(await pvcs(c).get(NS, 'www-keep-1')), [], 'Retain: the claim stays without owners');
    } finally {
      await c.close();
    }
  });

  it('whenDeleted=Delete makes the set own every claim', async () => {
    const c = await workloadCluster();
    try {
      const set = await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('gone', { whenDeleted: 'Delete', whenScaled: 'Retain' }));
      const claim = await c.waitFor('claim owned by the set', async () => {
        const x = await pvcs(c).get(NS, 'www-gone-1').catch(() => undefined);
        return x && owners(x).length ? x : undefined;
      });
      assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'gone', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    } finally {
      await c.close();
    }
  });

  it('whenScaled=Delete hands the claim of a condemned pod to that pod before deleting it', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('sc', { whenDeleted: 'Delete', whenScaled: 'Delete' }, 3));
      for (const n of ['sc-0', 'sc-1', 'sc-2']) await markPodRunning(c.client, await c.waitFor(n, () => pods(c).get(NS, n)));
      await c.waitFor('claims owned by the set', async () => owners(await pvcs(c).get(NS, 'www-sc-2')).join() === 'StatefulSet/sc');
      const doomed = await pods(c).get(NS, 'sc-2');
      await c.client.resource('apps/v1', 'statefulsets').patch(NS, 'sc', 'merge', { spec: { replicas: 2 } });
      await c.waitFor('sc-2 gone', async () => !(await pods(c).get(NS, 'sc-2').catch(() => undefined)));
      const claim = await pvcs(c).get(NS, 'www-sc-2');
      assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'sc-2', uid: doomed.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.deepEqual(owners(await pvcs(c).get(NS, 'www-sc-1')), ['StatefulSet/sc'], 'claims in range stay with the set');
    } finally {
      await c.close();
    }
  });
});

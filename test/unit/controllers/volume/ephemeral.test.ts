import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { ephemeralVolumeController } from '../../../../src/controllers/volume/ephemeral.js';
import { controllerCluster } from '../harness.js';

const NS = 'default';
const pod = (name: string): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }],
      volumes: [
        { name: 'cfg', emptyDir: {} },
        {
          name: 'scratch',
          ephemeral: {
            volumeClaimTemplate: {
              metadata: { labels: { type: 'scratch' }, annotations: { note: 'x' } },
              spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', resources: { requests: { storage: '1Gi' } } },
            },
          },
        },
      ],
    },
  }) as KObject;

test('ephemeral volume controller: creates <pod>-<volume> owned by the pod from the template, re-creates it if deleted', async () => {
  const c = await controllerCluster([ephemeralVolumeController()]);
  try {
    const created = await c.client.resource('v1', 'pods').create(NS, pod('web'));
    const pvcs = c.client.resource('v1', 'persistentvolumeclaims');
    const claim = await c.waitFor('claim web-scratch', () => pvcs.get(NS, 'web-scratch').catch(() => undefined));
    assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(claim.metadata.labels, { type: 'scratch' });
    assert.equal(claim.metadata.annotations?.note, 'x');
    const spec = (claim as KObject & { spec: { accessModes: string[]; storageClassName: string; resources: unknown } }).spec;
    assert.deepEqual(spec.accessModes, ['ReadWriteOnce']);
    assert.equal(spec.storageClassName, 'local-path');
    assert.deepEqual(spec.resources, { requests: { storage: '1Gi' } });
    // only ephemeral volumes get claims
    assert.deepEqual((await pvcs.list(NS)).items.map((p) => p.metadata.name), ['web-scratch']);

    // admission added the pvc-protection finalizer; release it as that controller would for an unscheduled pod
    await pvcs.delete(NS, 'web-scratch');
    await pvcs.patch(NS, 'web-scratch', 'merge', { metadata: { finalizers: null } });
    await c.waitFor('claim re-created', async () => {
      const again = await pvcs.get(NS, 'web-scratch').catch(() => undefined);
      return again && again.metadata.uid !== claim.metadata.uid && !again.metadata.deletionTimestamp;
    });
  } finally {
    await c.close();
  }
});

test('ephemeral volume controller: a claim of that name not owned by the pod is a FailedBinding event', async () => {
  const c = await controllerCluster([ephemeralVolumeController()]);
  try {
    await c.client.resource('v1', 'persistentvolumeclaims').create(NS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'db-scratch', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    } as KObject);
    await c.client.resource('v1', 'pods').create(NS, pod('db'));
    const ev = await c.waitFor('FailedBinding', async () =>
      ((await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; type: string; message: string; source?: { component?: string } })[]).find((e) => e.reason === 'FailedBinding'),
    );
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.message, 'ephemeral volume scratch: PVC default/db-scratch was not created for pod default/db (pod is not owner)');
    assert.equal(ev.source?.component, 'ephemeral_volume');
  } finally {
    await c.close();
  }
});

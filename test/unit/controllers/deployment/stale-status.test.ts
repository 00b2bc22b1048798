// A rolling update reading an old ReplicaSet whose status has not caught up with its last scale-down (more
// available pods than spec.replicas) must not scale it back up: kube's cleanupUnhealthyReplicas fails the sync.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { rolloutRolling } from '../../../../src/controllers/deployment/rolling.js';
import type { Deployment, RS } from '../../../../src/controllers/deployment/util.js';
import { EventRecorder } from '../../../../src/client/events.js';
import { controllerRef } from '../../../../src/controllers/framework/owner.js';
import { controllerCluster } from '../harness.js';
import { deploymentBody, NS } from './helpers.js';

test('an old ReplicaSet with a stale, higher availableReplicas is never scaled up by the rollout', async () => {
  const c = await controllerCluster([], { serviceAccounts: false });
  try {
    const d = (await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('web', 4, 'app:v2', { strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }))) as Deployment;
    const rsc = c.client.resource('apps/v1', 'replicasets');
    const rs = async (name: string, image: string, hash: string, replicas: number, available: number): Promise<RS> => {
      const body = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, namespace: NS, ownerReferences: [controllerRef({ ...d, apiVersion: 'apps/v1', kind: 'Deployment' } as KObject)], annotations: { 'deployment.kubernetes.io/desired-replicas': '4', 'deployment.kubernetes.io/max-replicas': '5', 'deployment.kubernetes.io/revision': image === 'app:v1' ? '1' : '2' } },
        spec: {
          replicas,
          selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
          template: { metadata: { labels: { app: 'web', 'pod-template-hash': hash } }, spec: { containers: [{ name: 'app', image }] } },
        },
      } as KObject;
      const made = await rsc.create(NS, body);
      return (await rsc.update(NS, { ...made, status: { replicas: available, readyReplicas: available, availableReplicas: available } } as KObject, { subresource: 'status' })) as RS;
    };
    // old: scaled 4 → 3 a moment ago, its status still counts 4 available; new: 2 of 2 available
    const old = await rs('web-old', 'app:v1', 'old', 3, 4);
    const fresh = await rs('web-new', 'app:v2', 'new', 2, 2);
    const env = { client: c.client, recorder: new EventRecorder(c.client, 'deployment-controller', '', () => undefined), now: Date.now, requeueAfter: () => undefined };
    await assert.rejects(rolloutRolling(env, structuredClone(d), [structuredClone(old), structuredClone(fresh)]), /invalid request to scale down default\/web-old 3 -> 4/);
    assert.equal(((await rsc.get(NS, 'web-old')).spec as { replicas: number }).replicas, 3, 'the old ReplicaSet keeps its size');
    assert.equal(((await rsc.get(NS, 'web-new')).spec as { replicas: number }).replicas, 2);
  } finally {
    await c.close();
  }
});

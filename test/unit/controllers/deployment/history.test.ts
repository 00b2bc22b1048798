import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deploymentController } from '../../../../src/controllers/deployment/controller.js';
import { replicaSetController } from '../../../../src/controllers/replicaset/controller.js';
import type { ControllerCluster } from '../harness.js';
import { workloadCluster, condition, deploymentBody, driveRollout, getDeployment, NS, readyAll, replicaSetsOf, type TestDeployment, type TestRS } from './helpers.js';

const setImage = (c: ControllerCluster, name: string, image: string) =>
  c.client.resource('apps/v1', 'deployments').patch(NS, name, 'strategic', { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } });
const byImage = (rss: TestRS[], image: string) => rss.find((rs) => rs.spec.template.spec.containers[0].image === image);
const revision = (rs: TestRS | undefined) => rs?.metadata.annotations?.['deployment.kubernetes.io/revision'];

describe('deployment rollout history and scaling', () => {
  it('scales a stuck rollout proportionally (10 → 15 with maxSurge 3, maxUnavailable 2: 8+5 becomes 11+7)', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('prop', 10, 'app:v1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }));
      await driveRollout(c, 'prop', async () => {}, 20_000);
      await readyAll(c, 'prop');
      await setImage(c, 'prop', 'app:v2-broken');
      // new pods never become ready: the rollout stops at old 8, new 5
      await c.waitFor('stuck at 8+5', async () => {
        const rss = await replicaSetsOf(c, d0);
        return byImage(rss, 'app:v1')?.spec.replicas === 8 && byImage(rss, 'app:v2-broken')?.spec.replicas === 5;
      });
      await c.client.resource('apps/v1', 'deployments').patch(NS, 'prop', 'merge', { spec: { replicas: 15 } });
      const rss = await c.waitFor('proportional', async () => {
        const l = await replicaSetsOf(c, d0);
        return byImage(l, 'app:v1')?.spec.replicas === 11 && byImage(l, 'app:v2-broken')?.spec.replicas === 7 && l;
      });
      for (const rs of rss) {
        assert.equal(rs.metadata.annotations!['deployment.kubernetes.io/desired-replicas'], '15');
        assert.equal(rs.metadata.annotations!['deployment.kubernetes.io/max-replicas'], '18');
      }
    } finally {
      await c.close();
    }
  });

  it('keeps revisionHistoryLimit old ReplicaSets; a rollback reuses the old ReplicaSet with a new revision', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('hist', 2, 'app:v1', { revisionHistoryLimit: 1 }));
      await driveRollout(c, 'hist', async () => {});
      const v1 = byImage(await replicaSetsOf(c, d0), 'app:v1')!;
      await setImage(c, 'hist', 'app:v2');
      await driveRollout(c, 'hist', async () => {});
      await setImage(c, 'hist', 'app:v3');
      await driveRollout(c, 'hist', async () => {});
      const rss = await c.waitFor('history cleaned', async () => {
        const l = await replicaSetsOf(c, d0);
        return l.length === 2 && l;
      });
      assert.deepEqual(rss.map((rs) => revision(rs)).sort(), ['2', '3']);
      assert.equal(byImage(rss, 'app:v1'), undefined);

      // kubectl rollout undo: the template of revision 2 goes back into the Deployment
      const v2 = byImage(rss, 'app:v2')!;
      await setImage(c, 'hist', 'app:v2');
      await driveRollout(c, 'hist', async () => {});
      const after = await replicaSetsOf(c, d0);
      const reused = byImage(after, 'app:v2')!;
      assert.equal(reused.metadata.uid, v2.metadata.uid);
      assert.equal(revision(reused), '4');
      assert.equal(reused.metadata.annotations!['deployment.kubernetes.io/revision-history'], '2');
      assert.equal(reused.spec.replicas, 2);
      assert.equal((await getDeployment(c, 'hist')).metadata.annotations?.['deployment.kubernetes.io/revision'], '4');
      assert.notEqual(v1.metadata.uid, reused.metadata.uid);
    } finally {
      await c.close();
    }
  });

  it('adopts a matching orphan ReplicaSet and releases one whose labels stop matching', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const rsc = c.client.resource('apps/v1', 'replicasets');
      await rsc.create(NS, {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'stray', namespace: NS, labels: { app: 'adopt' } },
        spec: { replicas: 0, selector: { matchLabels: { app: 'adopt', extra: 'x' } }, template: { metadata: { labels: { app: 'adopt', extra: 'x' } }, spec: { containers: [{ name: 'app', image: 'old' }] } } },
      } as never);
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('adopt', 1, 'app:v1'));
      await c.waitFor('adopted', async () => (await rsc.get(NS, 'stray')).metadata.ownerReferences?.[0]?.uid === d0.metadata.uid);
      await rsc.patch(NS, 'stray', 'merge', { metadata: { labels: { app: 'elsewhere' } } });
      await c.waitFor('released', async () => !(await rsc.get(NS, 'stray')).metadata.ownerReferences?.length);
      assert.equal((await replicaSetsOf(c, d0)).length, 1);
    } finally {
      await c.close();
    }
  });

  it('copies kubernetes.io/change-cause to the new ReplicaSet', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const body = deploymentBody('cause', 1, 'app:v1');
      body.metadata.annotations = { 'kubernetes.io/change-cause': 'kubectl create deployment cause --image=app:v1' };
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, body);
      const [rs] = await c.waitFor('rs', async () => {
        const l = await replicaSetsOf(c, d0);
        return l.length === 1 && l;
      });
      assert.equal(rs.metadata.annotations!['kubernetes.io/change-cause'], 'kubectl create deployment cause --image=app:v1');
    } finally {
      await c.close();
    }
  });

  it('pause stops rollouts (DeploymentPaused), resume continues them (DeploymentResumed)', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const dc = c.client.resource('apps/v1', 'deployments');
      const d0 = await dc.create(NS, deploymentBody('pause', 2, 'app:v1'));
      await driveRollout(c, 'pause', async () => {});
      await dc.patch(NS, 'pause', 'merge', { spec: { paused: true } });
      const paused = await c.waitFor('paused condition', async () => {
        const d = await getDeployment(c, 'pause');
        return condition(d, 'Progressing')?.reason === 'DeploymentPaused' && d;
      });
      assert.equal(condition(paused, 'Progressing')!.status, 'Unknown');
      assert.equal(condition(paused, 'Progressing')!.message, 'Deployment is paused');
      await setImage(c, 'pause', 'app:v2');
      await c.waitFor('generation observed', async () => {
        const d = await getDeployment(c, 'pause');
        return d.status?.observedGeneration === d.metadata.generation;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await replicaSetsOf(c, d0)).length, 1, 'no rollout while paused');
      // scaling still works while paused
      await dc.patch(NS, 'pause', 'merge', { spec: { replicas: 3 } });
      await c.waitFor('scaled while paused', async () => (await replicaSetsOf(c, d0))[0]?.spec.replicas === 3);
      await dc.patch(NS, 'pause', 'merge', { spec: { paused: false } });
      await c.waitFor('resumed and rolled', async () => {
        const d = await getDeployment(c, 'pause');
        const rss = await replicaSetsOf(c, d0);
        return rss.length === 2 && ['DeploymentResumed', 'ReplicaSetUpdated', 'NewReplicaSetCreated'].includes(condition(d, 'Progressing')?.reason ?? '');
      });
      await driveRollout(c, 'pause', async () => {});
      const d = await getDeployment(c, 'pause');
      assert.equal(condition(d, 'Progressing')!.reason, 'NewReplicaSetAvailable');
    } finally {
      await c.close();
    }
  });

  it('reports ProgressDeadlineExceeded when a rollout makes no progress in time', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      // a watch sees every intermediate Progressing state, however briefly it lasted
      const seen: string[] = [];
      const w = await c.client.resource('apps/v1', 'deployments').watch(NS, {}, (ev) => {
        const cond = condition(ev.object as TestDeployment, 'Progressing');
        const entry = cond ? `${cond.reason}: ${cond.message}` : '';
        if (entry && seen.at(-1) !== entry) seen.push(entry);
      });
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('slow', 1, 'app:v1', { progressDeadlineSeconds: 1 }));
      const [rs] = await c.waitFor('rs', async () => {
        const l = await replicaSetsOf(c, d0);
        return l.length === 1 && l;
      });
      const timedOut = await c.waitFor('timed out', async () => {
        const d = await getDeployment(c, 'slow');
        return condition(d, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && d;
      }, 8000);
      assert.equal(condition(timedOut, 'Progressing')!.status, 'False');
      assert.equal(condition(timedOut, 'Progressing')!.message, `ReplicaSet "${rs.metadata.name}" has timed out progressing.`);
      assert.equal(condition(timedOut, 'Available')!.reason, 'MinimumReplicasUnavailable');
      // the rollout itself goes on: once the pod is ready the deployment completes
      await readyAll(c, 'slow');
      await c.waitFor('completes after all', async () => condition(await getDeployment(c, 'slow'), 'Progressing')?.reason === 'NewReplicaSetAvailable');
      w.stop();
      assert.equal(seen[0], `NewReplicaSetCreated: Created new replica set "${rs.metadata.name}"`);
      assert.ok(seen.includes(`ProgressDeadlineExceeded: ReplicaSet "${rs.metadata.name}" has timed out progressing.`), seen.join('\n'));
      assert.equal(seen.at(-1), `NewReplicaSetAvailable: ReplicaSet "${rs.metadata.name}" has successfully progressed.`);
    } finally {
      await c.close();
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { computeTemplateHash, goJson, hashControllerRevision, safeEncodeString, templatePatch } from '../../../../src/controllers/framework/revision-history.js';
import { markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';

const NS = 'default';
type Rev = KObject & { revision: number; data: { spec: { template: Record<string, unknown> } } };

// A ControllerRevision a 1.33 cluster wrote (kubernetes testdata/compatibility_revision_1.33.0.json).
const GOLDEN_DATA = `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`;

function sts(name: string, image: string, extra: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
      ...extra,
    },
  } as KObject;
}

const revs = async (c: ControllerCluster, app: string) =>
  ((await c.client.resource('apps/v1', 'controllerrevisions').list(NS, { labelSelector: `app=${app}` })).items as Rev[]).sort((a, b) => a.revision - b.revision);
const imageOf = (r: Rev) => ((r.data.spec.template.spec as { containers: { image: string }[] }).containers[0].image);

describe('ControllerRevision history', () => {
  it('hashes revision data exactly as Kubernetes 1.33 does', () => {
    const data = JSON.parse(GOLDEN_DATA);
    assert.equal(goJson(data), GOLDEN_DATA);
    assert.equal(hashControllerRevision(data, 0), 'c77f6d978');
    assert.notEqual(hashControllerRevision(data, 1), 'c77f6d978', 'the collision count changes the name');
    const { $patch: _p, ...template } = data.spec.template;
    assert.equal(goJson(templatePatch(template)), GOLDEN_DATA);
    assert.equal(goJson({ b: '<&>', a: [1, null] }), '{"a":[1,null],"b":"\\u003c\\u0026\\u003e"}');
    assert.equal(safeEncodeString('0123'), '4567');
    assert.notEqual(computeTemplateHash(template, 0), computeTemplateHash(template, 1));
  });

  it('records one revision per template, rolls back by renumbering, and keeps revisionHistoryLimit old ones', async () => {
    const c = await workloadCluster();
    let stop = false;
    const kubelet = (async () => {
      while (!stop) {
        for (const p of (await c.client.resource('v1', 'pods').list(NS).catch(() => ({ items: [] as KObject[] }))).items) {
          if ((p.status as { phase?: string }).phase === 'Pending' && !p.metadata.deletionTimestamp) await markPodRunning(c.client, p).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const rc = c.client.resource('apps/v1', 'statefulsets');
      const set = await rc.create(NS, sts('h', 'img:1', { revisionHistoryLimit: 1 }));
      const [r1] = await c.waitFor('first revision', async () => ((await revs(c, 'h')).length === 1 ? revs(c, 'h') : undefined));
      assert.equal(r1.revision, 1);
      const hash = r1.metadata.labels!['controller.kubernetes.io/hash'];
      assert.equal(r1.metadata.name, `h-${hash}`);
      assert.equal(r1.metadata.labels!.app, 'h');
      assert.deepEqual(r1.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'h', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.equal(r1.data.spec.template.$patch, 'replace');
      assert.equal(hashControllerRevision(r1.data, 0), hash);
      const created = await rc.get(NS, 'h');
      assert.equal(goJson(r1.data), goJson(templatePatch((created.spec as { template: object }).template)));

      const setImage = (img: string) => rc.patch(NS, 'h', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: img }] } } } });
      const settled = (n: number) => c.waitFor(`revision ${n} current`, async () => {
        const s = (await rc.get(NS, 'h')).status as { currentRevision?: string; updateRevision?: string; readyReplicas?: number };
        const all = await revs(c, 'h');
        const top = all[all.length - 1];
        return top?.revision === n && s.currentRevision === top.metadata.name && s.updateRevision === top.metadata.name && s.readyReplicas === 1 ? all : undefined;
      });
      await settled(1);
      await setImage('img:2');
      let all = await settled(2);
      assert.deepEqual(all.map((r) => [r.revision, imageOf(r)]), [[1, 'img:1'], [2, 'img:2']]);

      // back to img:1: the old revision is re-numbered rather than a new one created
      await setImage('img:1');
      all = await settled(3);
      assert.deepEqual(all.map((r) => [r.revision, imageOf(r)]), [[2, 'img:2'], [3, 'img:1']]);
      assert.equal(all[1].metadata.name, r1.metadata.name);

      // a third template: with revisionHistoryLimit 1 only one non-live revision survives
      await setImage('img:3');
      all = await c.waitFor('history trimmed', async () => {
        const x = await revs(c, 'h');
        return x.length === 2 && x[1].revision === 4 && imageOf(x[1]) === 'img:3' ? x : undefined;
      }, 15_000);
      assert.deepEqual(all.map((r) => imageOf(r)), ['img:1', 'img:3']);
    } finally {
      stop = true;
      await kubelet;
      await c.close();
    }
  });

  it('adopts an orphan revision that matches the selector', async () => {
    const c = await workloadCluster();
    try {
      const orphan = await c.client.resource('apps/v1', 'controllerrevisions').create(NS, {
        apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'adopt-old', namespace: NS, labels: { app: 'adopt' } },
        data: templatePatch({ metadata: { labels: { app: 'adopt' } }, spec: { containers: [{ name: 'c', image: 'old' }] } }), revision: 7,
      } as KObject);
      const set = await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('adopt', 'img:1'));
      const got = await c.waitFor('adopted', async () => {
        const r = await c.client.resource('apps/v1', 'controllerrevisions').get(NS, 'adopt-old');
        return r.metadata.ownerReferences?.length ? r : undefined;
      });
      assert.equal(got.metadata.ownerReferences![0].uid, set.metadata.uid);
      assert.equal(got.metadata.uid, orphan.metadata.uid);
      const all = await c.waitFor('new revision after the adopted one', async () => ((await revs(c, 'adopt')).length === 2 ? revs(c, 'adopt') : undefined));
      assert.equal(all[1].revision, 8);
    } finally {
      await c.close();
    }
  });
});

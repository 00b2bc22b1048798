import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeHash, fnv32a, safeEncode, spewTemplate } from '../../../../src/controllers/deployment/hash.js';
import { deploymentController } from '../../../../src/controllers/deployment/controller.js';
import { replicaSetController } from '../../../../src/controllers/replicaset/controller.js';
import { isPodReady } from '../../../../src/controllers/framework/pod-util.js';
import { markPodRunning } from '../harness.js';
import { workloadCluster, condition, deploymentBody, driveRollout, eventMessages, getDeployment, livePods, NS, readyAll, replicaSetsOf } from './helpers.js';

describe('pod-template-hash', () => {
  it('FNV-32a and SafeEncodeString as in Go', () => {
    assert.equal(fnv32a(Buffer.from('')), 0x811c9dc5);
    assert.equal(fnv32a(Buffer.from('a')), 0xe40c292c);
    assert.equal(fnv32a(Buffer.from('foobar')), 0xbf9cf968);
    // each decimal digit maps through "bcdfghjklmnpqrstvwxz2456789" by its code point ('0' = 48 → index 21)
    assert.equal(safeEncode('0123456789'), '456789bcdf');
  });

  it('prints the template as spew %#v of the Go struct and hashes it', () => {
    const template = {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    };
    const text = spewTemplate(template);
    assert.ok(text.startsWith('(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) Namespace:(string) SelfLink:(string) UID:(types.UID) ResourceVersion:(string) Generation:(int64)0 CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> DeletionGracePeriodSeconds:(*int64)<nil> Labels:(map[string]string)map[app:nginx] Annotations:(map[string]string)<nil>'));
    assert.ok(text.includes(' Ports:([]v1.ContainerPort)[{Name:(string) HostPort:(int32)0 ContainerPort:(int32)80 Protocol:(v1.Protocol)TCP HostIP:(string)}] '));
    assert.ok(text.includes(' RestartPolicy:(v1.RestartPolicy)Always TerminationGracePeriodSeconds:(*int64)30 ActiveDeadlineSeconds:(*int64)<nil> DNSPolicy:(v1.DNSPolicy)ClusterFirst '));
    assert.ok(text.includes(' SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil> '));
    assert.ok(text.endsWith(' ResourceClaims:([]v1.PodResourceClaim)<nil> Resources:(*v1.ResourceRequirements)<nil>}}'));
    const sum = fnv32a(Buffer.from(text));
    assert.equal(computeHash(template), safeEncode(String(sum)));
    // the documented nginx-deployment example (nginx:1.14.2, port 80) as defaulted by the API server: real
    // clusters of this Kubernetes generation name its ReplicaSet nginx-deployment-647677fc66
    assert.equal(computeHash(template), '647677fc66');
    // the collision count is appended as 8 little-endian bytes
    const withCount = Buffer.concat([Buffer.from(text), Buffer.from([1, 0, 0, 0, 0, 0, 0, 0])]);
    assert.equal(computeHash(template, 1), safeEncode(String(fnv32a(withCount))));
    assert.notEqual(computeHash(template, 0), computeHash(template));
  });

  it('prints quantities with their parsed int64 form', () => {
    const text = spewTemplate({ spec: { containers: [{ name: 'c', resources: { limits: { memory: '128Mi', cpu: '100m' } } }] } });
    assert.ok(text.includes('Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)100 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)100m Format:(resource.Format)DecimalSI} memory:{i:(resource.int64Amount){value:(int64)134217728 scale:(resource.Scale)0} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string) Format:(resource.Format)BinarySI}]'));
  });
});

describe('deployment controller', () => {
  it('creates <name>-<hash> with revision 1, scales it up with an event, reports Available and Progressing', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const created = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('web', 3, 'nginx:1'));
      const [rs] = await c.waitFor('replica set', async () => {
        const l = await replicaSetsOf(c, created);
        return l.length === 1 && l;
      });
      const hash = computeHash((created.spec as { template: unknown }).template);
      assert.equal(rs.metadata.name, `web-${hash}`);
      assert.equal(rs.metadata.labels!['pod-template-hash'], hash);
      assert.deepEqual(rs.spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
      assert.equal(rs.spec.template.metadata.labels['pod-template-hash'], hash);
      assert.equal(rs.spec.replicas, 3);
      assert.deepEqual(
        [rs.metadata.annotations!['deployment.kubernetes.io/revision'], rs.metadata.annotations!['deployment.kubernetes.io/desired-replicas'], rs.metadata.annotations!['deployment.kubernetes.io/max-replicas']],
        ['1', '3', '4'],
      );
      await c.waitFor('3 pods', async () => (await livePods(c, 'web')).length === 3);
      for (const p of await livePods(c, 'web')) assert.equal(p.metadata.labels!['pod-template-hash'], hash);
      const unavailable = await c.waitFor('unavailable', async () => {
        const d = await getDeployment(c, 'web');
        return condition(d, 'Available')?.status === 'False' && d;
      });
      assert.equal(condition(unavailable, 'Available')!.reason, 'MinimumReplicasUnavailable');
      assert.equal(condition(unavailable, 'Available')!.message, 'Deployment does not have minimum availability.');
      await readyAll(c, 'web');
      const d = await c.waitFor('complete', async () => {
        const x = await getDeployment(c, 'web');
        return condition(x, 'Progressing')?.reason === 'NewReplicaSetAvailable' && condition(x, 'Available')?.status === 'True' && x;
      });
      assert.equal(condition(d, 'Available')!.reason, 'MinimumReplicasAvailable');
      assert.equal(condition(d, 'Available')!.message, 'Deployment has minimum availability.');
      assert.equal(condition(d, 'Progressing')!.message, `ReplicaSet "web-${hash}" has successfully progressed.`);
      assert.deepEqual(d.status!.conditions!.map((x) => x.type), ['Available', 'Progressing']);
      assert.deepEqual([d.status!.replicas, d.status!.updatedReplicas, d.status!.readyReplicas, d.status!.availableReplicas, d.status!.unavailableReplicas ?? 0], [3, 3, 3, 3, 0]);
      assert.equal(d.status!.observedGeneration, d.metadata.generation);
      assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
      assert.deepEqual(await eventMessages(c, 'web', 'ScalingReplicaSet'), [`Scaled up replica set web-${hash} from 0 to 3`]);
    } finally {
      await c.close();
    }
  });

  it('names the documented nginx example nginx-deployment-647677fc66, as a real cluster does', async () => {
    const c = await workloadCluster([deploymentController()]);
    try {
      const body = deploymentBody('nginx-deployment', 3, 'nginx:1.14.2');
      const spec = body.spec as { selector: unknown; template: { metadata: unknown; spec: { containers: unknown[] } } };
      spec.selector = { matchLabels: { app: 'nginx' } };
      spec.template.metadata = { labels: { app: 'nginx' } };
      spec.template.spec.containers = [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }];
      const d = await c.client.resource('apps/v1', 'deployments').create(NS, body);
      const [rs] = await c.waitFor('replica set', async () => {
        const l = await replicaSetsOf(c, d);
        return l.length === 1 && l;
      });
      assert.equal(rs.metadata.name, 'nginx-deployment-647677fc66');
    } finally {
      await c.close();
    }
  });

  it('rolls an update without ever exceeding maxSurge or maxUnavailable', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const spec = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } };
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('roll', 4, 'app:v1', spec));
      await driveRollout(c, 'roll', async () => {});
      await c.client.resource('apps/v1', 'deployments').patch(NS, 'roll', 'strategic', { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:v2' }] } } } });
      let steps = 0;
      await driveRollout(c, 'roll', async () => {
        steps++;
        const rss = await replicaSetsOf(c, d0);
        const total = rss.reduce((n, rs) => n + rs.spec.replicas, 0);
        assert.ok(total <= 5, `replica sets sized ${total} > replicas + maxSurge`);
        const pods = await livePods(c, 'roll');
        assert.ok(pods.length <= 5, `${pods.length} pods > replicas + maxSurge`);
        assert.ok(pods.filter(isPodReady).length >= 3, 'fewer than replicas - maxUnavailable pods ready');
      });
      assert.ok(steps > 3);
      const rss = await replicaSetsOf(c, d0);
      assert.equal(rss.length, 2);
      const newRS = rss.find((rs) => rs.spec.template.spec.containers[0].image === 'app:v2')!;
      const oldRS = rss.find((rs) => rs.spec.template.spec.containers[0].image === 'app:v1')!;
      assert.equal(newRS.spec.replicas, 4);
      assert.equal(oldRS.spec.replicas, 0);
      assert.equal(newRS.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
      const d = await getDeployment(c, 'roll');
      assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
      const msgs = await eventMessages(c, 'roll', 'ScalingReplicaSet');
      assert.ok(msgs.includes(`Scaled up replica set ${newRS.metadata.name} from 0 to 1`), msgs.join('\n'));
      assert.ok(msgs.some((m) => m.startsWith(`Scaled down replica set ${oldRS.metadata.name} from 4 to `)), msgs.join('\n'));
    } finally {
      await c.close();
    }
  });

  it('Recreate scales old pods away before the new ReplicaSet is created', async () => {
    const c = await workloadCluster([replicaSetController(), deploymentController()]);
    try {
      const pods = c.client.resource('v1', 'pods');
      const d0 = await c.client.resource('apps/v1', 'deployments').create(NS, deploymentBody('rec', 2, 'app:v1', { strategy: { type: 'Recreate' } }));
      const readyUnscheduled = async () => {
        for (const p of await livePods(c, 'rec')) if (!isPodReady(p)) await markPodRunning(c.client, p, {});
      };
      await c.waitFor('2 old pods', async () => (await livePods(c, 'rec')).length === 2);
      await readyUnscheduled();
      await c.waitFor('first rollout', async () => (await getDeployment(c, 'rec')).status?.availableReplicas === 2);
      // a finalizer keeps the deleted old pods around, still Running, as a slow shutdown would
      const oldPods = await livePods(c, 'rec');
      for (const p of oldPods) await pods.patch(NS, p.metadata.name!, 'merge', { metadata: { finalizers: ['k1s.test/hold'] } });
      await c.client.resource('apps/v1', 'deployments').patch(NS, 'rec', 'strategic', { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:v2' }] } } } });
      await c.waitFor('old scaled to zero', async () => (await replicaSetsOf(c, d0)).every((rs) => rs.spec.replicas === 0));
      await c.waitFor('old pods terminating', async () => (await livePods(c, 'rec')).length === 0);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await replicaSetsOf(c, d0)).length, 1, 'no new ReplicaSet while old pods still run');
      for (const p of oldPods) await pods.patch(NS, p.metadata.name!, 'merge', { metadata: { finalizers: null } });
      await c.waitFor('new pods', async () => (await livePods(c, 'rec')).length === 2);
      await readyUnscheduled();
      await c.waitFor('second rollout', async () => {
        const d = await getDeployment(c, 'rec');
        return d.status?.availableReplicas === 2 && d.status.updatedReplicas === 2;
      });
      const rss = await replicaSetsOf(c, d0);
      assert.equal(rss.length, 2);
      const newRS = rss.find((rs) => rs.spec.template.spec.containers[0].image === 'app:v2')!;
      const oldRS = rss.find((rs) => rs.spec.template.spec.containers[0].image === 'app:v1')!;
      assert.equal(newRS.spec.replicas, 2);
      const msgs = await c.waitFor('events', async () => {
        const m = await eventMessages(c, 'rec', 'ScalingReplicaSet');
        return m.length === 3 && m;
      });
      assert.deepEqual(msgs, [
        `Scaled up replica set ${oldRS.metadata.name} from 0 to 2`,
        `Scaled down replica set ${oldRS.metadata.name} from 2 to 0`,
        `Scaled up replica set ${newRS.metadata.name} from 0 to 2`,
      ]);
    } finally {
      await c.close();
    }
  });
});

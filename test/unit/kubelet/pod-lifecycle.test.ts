import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { condition, createPod, getPod, pod, simCluster } from './helpers.js';

const sh = (script: string) => ({ command: ['sh', '-c', script] });

describe('kubelet pod lifecycle on a simulated node', () => {
  it('runs a pod: Running, conditions, container status, IP from the node CIDR, startTime, events', async () => {
    const c = await simCluster();
    try {
      await createPod(c, pod('web'));
      const p = await c.waitFor('web ready', async () => {
        const p = await getPod(c, 'web');
        return condition(p, 'Ready')?.status === 'True' ? p : undefined;
      });
      assert.equal(p.status?.phase, 'Running');
      assert.deepEqual(
        p.status?.conditions?.map((x) => [x.type, x.status]),
        [['PodReadyToStartContainers', 'True'], ['Initialized', 'True'], ['Ready', 'True'], ['ContainersReady', 'True'], ['PodScheduled', 'True']],
      );
      assert.match(p.status!.podIP!, /^10\.42\.0\.([2-9]|\d\d+)$/);
      assert.deepEqual(p.status?.podIPs, [{ ip: p.status!.podIP }]);
      assert.equal(p.status?.hostIP, '172.30.0.2');
      assert.ok(p.status?.startTime);
      const cs = p.status!.containerStatuses![0];
      assert.equal(cs.name, 'app');
      assert.equal(cs.ready, true);
      assert.equal(cs.started, true);
      assert.equal(cs.restartCount, 0);
      assert.deepEqual(cs.volumeMounts, [{ name: (p.spec!.containers![0].volumeMounts![0]).name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }]);
      assert.equal(cs.image, 'docker.io/library/nginx:latest');
      assert.match(cs.containerID as string, /^containerd:\/\/[0-9a-f]{64}$/);
      assert.ok(cs.state?.running?.startedAt);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await getPod(c, 'web')).metadata.resourceVersion, p.metadata.resourceVersion, 'an unchanged status is not written again');
      await createPod(c, pod('web2'));
      const p2 = await c.waitFor('web2 ip', async () => {
        const p = await getPod(c, 'web2');
        return p.status?.podIP ? p : undefined;
      });
      assert.notEqual(p2.status?.podIP, p.status?.podIP);
      const events = await c.waitFor('Started event', async () => {
        const list = await c.client.resource('v1', 'events').list('default');
        const mine = list.items.filter((e) => (e as unknown as { involvedObject: { name: string } }).involvedObject.name === 'web') as unknown as { reason: string; message: string; source: { component: string; host: string } }[];
        return mine.some((e) => e.reason === 'Started') ? mine : undefined;
      });
      const started = events.find((e) => e.reason === 'Started')!;
      assert.equal(started.message, 'Started container app');
      assert.deepEqual(started.source, { component: 'kubelet', host: 'k1s-sim-0' });
      assert.ok(events.some((e) => e.reason === 'Created' && e.message === 'Created container: app'));
    } finally {
      await c.close();
    }
  });

  it('exit 1 with restartPolicy Never ends Failed; exit-after annotation ends Succeeded', async () => {
    const c = await simCluster();
    try {
      await createPod(c, pod('fail', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox', ...sh('sleep 0.05; exit 1') }] }));
      await createPod(c, pod('done', { restartPolicy: 'Never' }, { annotations: { 'sim.k1s.dev/exit-after': '100ms' } }));
      const f = await c.waitFor('fail Failed with its sandbox stopped', async () => {
        const p = await getPod(c, 'fail');
        return p.status?.phase === 'Failed' && condition(p, 'PodReadyToStartContainers')?.status === 'False' ? p : undefined;
      });
      const t = f.status!.containerStatuses![0].state!.terminated!;
      assert.equal(t.exitCode, 1);
      assert.equal(t.reason, 'Error');
      assert.equal(condition(f, 'Ready')?.reason, 'PodFailed');
      assert.equal(condition(f, 'ContainersReady')?.reason, 'PodFailed');
      assert.equal(condition(f, 'PodReadyToStartContainers')?.status, 'False');
      assert.ok(f.status?.podIP, 'a finished pod keeps its IP in status');
      const d = await c.waitFor('done Succeeded', async () => ((await getPod(c, 'done')).status?.phase === 'Succeeded' ? getPod(c, 'done') : undefined));
      const dt = d.status!.containerStatuses![0].state!.terminated!;
      assert.equal(dt.exitCode, 0);
      assert.equal(dt.reason, 'Completed');
      assert.equal(condition(d, 'Ready')?.reason, 'PodCompleted');
      assert.equal(condition(d, 'Initialized')?.reason, 'PodCompleted');
    } finally {
      await c.close();
    }
  });

  it('OnFailure and Always restart a failing container with CrashLoopBackOff', async () => {
    const c = await simCluster();
    try {
      for (const policy of ['OnFailure', 'Always']) {
        const name = `crash-${policy.toLowerCase()}`;
        const created = await createPod(c, pod(name, { restartPolicy: policy, containers: [{ name: 'app', image: 'busybox', ...sh('exit 3') }] }));
        const p = await c.waitFor(`${name} in CrashLoopBackOff`, async () => {
          const p = await getPod(c, name);
          return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff' ? p : undefined;
        });
        const cs = p.status!.containerStatuses![0];
        assert.equal(p.status?.phase, 'Running');
        assert.equal(cs.restartCount, 1);
        assert.equal(cs.state!.waiting!.message, `back-off 10s restarting failed container=app pod=${name}_default(${created.metadata.uid})`);
        assert.equal(cs.lastState?.terminated?.exitCode, 3);
        assert.equal(cs.lastState?.terminated?.reason, 'Error');
        assert.equal(condition(p, 'Ready')?.reason, 'ContainersNotReady');
        assert.equal(condition(p, 'Ready')?.message, 'containers with unready status: [app]');
      }
    } finally {
      await c.close();
    }
  });

  it('a short back-off restarts again and doubles', async () => {
    const c = await simCluster({ kubelet: { backoff: { initialMs: 100, maxMs: 1000 } } });
    try {
      await createPod(c, pod('crash', { containers: [{ name: 'app', image: 'busybox', ...sh('exit 2') }] }));
      const p = await c.waitFor('restartCount 3', async () => {
        const p = await getPod(c, 'crash');
        return (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 3 && p.status?.containerStatuses?.[0]?.state?.waiting ? p : undefined;
      });
      assert.match(p.status!.containerStatuses![0].state!.waiting!.message!, /^back-off (200ms|400ms|800ms) restarting failed container=app pod=crash_default\(/);
    } finally {
      await c.close();
    }
  });

  it('init containers run first; the pod is Initialized after them', async () => {
    const c = await simCluster();
    try {
      await createPod(c, pod('init', { initContainers: [{ name: 'setup', image: 'busybox', ...sh('sleep 0.1; exit 0') }] }));
      const early = await getPod(c, 'init');
      assert.notEqual(early.status?.phase, 'Running');
      const p = await c.waitFor('init pod ready', async () => {
        const p = await getPod(c, 'init');
        return condition(p, 'Ready')?.status === 'True' ? p : undefined;
      });
      assert.equal(p.status?.phase, 'Running');
      assert.equal(condition(p, 'Initialized')?.status, 'True');
      const ics = p.status!.initContainerStatuses![0];
      assert.equal(ics.state?.terminated?.reason, 'Completed');
      assert.equal(ics.ready, true);
      // a sidecar (restartable init container) is stopped once the main container is done
      await createPod(c, pod('sidecar', { restartPolicy: 'Never', initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'busybox', ...sh('sleep 0.1; exit 0') }] }));
      const sc = await c.waitFor('sidecar pod Succeeded', async () => ((await getPod(c, 'sidecar')).status?.phase === 'Succeeded' ? getPod(c, 'sidecar') : undefined));
      assert.equal(sc.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, 143);
      await createPod(c, pod('init-fail', { restartPolicy: 'Never', initContainers: [{ name: 'setup', image: 'busybox', ...sh('exit 1') }] }));
      const f = await c.waitFor('init-fail Failed', async () => ((await getPod(c, 'init-fail')).status?.phase === 'Failed' ? getPod(c, 'init-fail') : undefined));
      assert.equal(f.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'PodInitializing');
      assert.equal(condition(f, 'Initialized')?.reason, 'ContainersNotInitialized');
      assert.equal(condition(f, 'Initialized')?.message, 'containers with incomplete status: [setup]');
    } finally {
      await c.close();
    }
  });

  it('readiness: a readiness gate holds Ready until its condition is True; probes wait initialDelaySeconds; ready annotation', async () => {
    const c = await simCluster();
    try {
      await createPod(c, pod('gated', { readinessGates: [{ conditionType: 'example.com/lb' }] }));
      const g = await c.waitFor('gated running', async () => ((await getPod(c, 'gated')).status?.phase === 'Running' ? getPod(c, 'gated') : undefined));
      await c.waitFor('ready condition computed', async () => condition(await getPod(c, 'gated'), 'ContainersReady')?.status === 'True');
      const g2 = await getPod(c, 'gated');
      assert.equal(condition(g2, 'Ready')?.status, 'False');
      assert.equal(condition(g2, 'Ready')?.reason, 'ReadinessGatesNotReady');
      assert.equal(condition(g2, 'Ready')?.message, 'corresponding condition of pod readiness gate "example.com/lb" does not exist.');
      assert.ok(g);
      const withGate = { ...g2, status: { ...g2.status, conditions: [...(g2.status?.conditions ?? []), { type: 'example.com/lb', status: 'True', lastTransitionTime: g2.status!.startTime }] } };
      await c.client.resource('v1', 'pods').update('default', withGate as KObject, { subresource: 'status' });
      const ready = await c.waitFor('gated ready', async () => (condition(await getPod(c, 'gated'), 'Ready')?.status === 'True' ? getPod(c, 'gated') : undefined));
      assert.equal(condition(ready, 'example.com/lb')?.status, 'True');

      await createPod(c, pod('probed', { containers: [{ name: 'app', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 1, periodSeconds: 1 } }] }));
      const pr = await c.waitFor('probed running', async () => ((await getPod(c, 'probed')).status?.phase === 'Running' ? getPod(c, 'probed') : undefined));
      assert.equal(pr.status!.containerStatuses![0].ready, false);
      const t0 = Date.now();
      await c.waitFor('probed ready', async () => condition(await getPod(c, 'probed'), 'Ready')?.status === 'True', 5000);
      assert.ok(Date.now() - t0 > 500, 'readiness waited for initialDelaySeconds');

      await createPod(c, pod('unready', {}, { annotations: { 'sim.k1s.dev/ready': 'false' } }));
      const u = await c.waitFor('unready running', async () => ((await getPod(c, 'unready')).status?.phase === 'Running' ? getPod(c, 'unready') : undefined));
      assert.equal(condition(u, 'ContainersReady')?.status, 'False');
      assert.equal(condition(u, 'Ready')?.message, 'containers with unready status: [app]');
    } finally {
      await c.close();
    }
  });

  it('deletion honours the grace period and finalizers, then the kubelet deletes the pod', async () => {
    const c = await simCluster();
    const rc = c.client.resource('v1', 'pods');
    try {
      await createPod(c, pod('slow', { terminationGracePeriodSeconds: 30 }, { annotations: { 'sim.k1s.dev/stop-delay': '600ms' } }));
      await c.waitFor('slow running', async () => (await getPod(c, 'slow')).status?.phase === 'Running');
      const t0 = Date.now();
      const kept = await rc.delete('default', 'slow');
      assert.ok(kept?.metadata.deletionTimestamp, 'a running pod is deleted gracefully');
      await new Promise((r) => setTimeout(r, 200));
      const terminating = await getPod(c, 'slow');
      assert.equal(terminating.status?.phase, 'Running');
      await c.waitFor('slow gone', async () => {
        try {
          await getPod(c, 'slow');
          return false;
        } catch (e) {
          return e instanceof StatusError && e.code === 404;
        }
      });
      assert.ok(Date.now() - t0 >= 550, `took ${Date.now() - t0} ms`);

      await createPod(c, pod('held', {}, { finalizers: ['example.com/hold'] }));
      await c.waitFor('held running', async () => (await getPod(c, 'held')).status?.phase === 'Running');
      await rc.delete('default', 'held');
      const final = await c.waitFor('held final status and kubelet delete', async () => {
        const p = await getPod(c, 'held');
        return p.status?.phase === 'Failed' && p.metadata.deletionGracePeriodSeconds === 0 ? p : undefined;
      });
      const t = final.status!.containerStatuses![0].state!.terminated!;
      assert.equal(t.exitCode, 143);
      assert.equal(t.reason, 'Error');
      assert.equal(condition(final, 'Ready')?.reason, 'PodFailed');
      await rc.patch('default', 'held', 'merge', { metadata: { finalizers: null } });
      await c.waitFor('held gone', async () => (await rc.list('default')).items.every((p) => p.metadata.name !== 'held'));

      // a container slower to stop than the grace period is killed when it ends (SIGKILL: 137)
      await createPod(c, pod('stubborn', { terminationGracePeriodSeconds: 1 }, { finalizers: ['example.com/hold'], annotations: { 'sim.k1s.dev/stop-delay': '1m' } }));
      await c.waitFor('stubborn running', async () => (await getPod(c, 'stubborn')).status?.phase === 'Running');
      const t1 = Date.now();
      await rc.delete('default', 'stubborn');
      const killed = await c.waitFor('stubborn killed', async () => {
        const p = await getPod(c, 'stubborn');
        return p.status?.containerStatuses?.[0]?.state?.terminated ? p : undefined;
      });
      assert.equal(killed.status!.containerStatuses![0].state!.terminated!.exitCode, 137);
      assert.ok(Date.now() - t1 >= 900, 'the grace period was honoured');
      await rc.patch('default', 'stubborn', 'merge', { metadata: { finalizers: null } });

      // a force delete removes the pod at once; the kubelet stops its containers and frees the IP
      await createPod(c, pod('forced'));
      const forced = await c.waitFor('forced running', async () => ((await getPod(c, 'forced')).status?.podIP ? getPod(c, 'forced') : undefined));
      await rc.delete('default', 'forced', { gracePeriodSeconds: 0 });
      const runtime = (c.nodes.kubelet('k1s-sim-0') as unknown as { opts: { runtime: { podStatus(uid: string): unknown } } }).opts.runtime;
      await c.waitFor('runtime forgot the pod', () => runtime.podStatus(forced.metadata.uid!) === undefined);
    } catch (e) {
      console.log(c.logs.join('\n'));
      throw e;
    } finally {
      await c.close();
    }
  });
  it("a status write starts from the server's status: what another writer changed in the kubelet's fields is put back", async () => {
    const c = await simCluster();
    try {
      await createPod(c, pod('drift', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox', ...sh('sleep 1; exit 0') }] }));
      const running = await c.waitFor('drift running', async () => {
        const p = await getPod(c, 'drift');
        return p.status?.phase === 'Running' ? p : undefined;
      });
      // another writer (a controller) changes the status the kubelet wrote
      const tampered = { ...running, status: { ...running.status, message: 'tampered', conditions: running.status!.conditions!.map((x) => (x.type === 'PodScheduled' ? { ...x, reason: 'Tampered' } : x)) } };
      await c.client.resource('v1', 'pods').update('default', tampered as KObject, { subresource: 'status' });
      const done = await c.waitFor('drift succeeded', async () => {
        const p = await getPod(c, 'drift');
        return p.status?.phase === 'Succeeded' ? p : undefined;
      }, 10_000);
      assert.equal(done.status!.message, undefined, 'the kubelet does not report a message: the patch removed it');
      assert.equal(condition(done, 'PodScheduled')?.reason, undefined, 'its condition as the kubelet computed it');
    } catch (e) {
      console.log(c.logs.join('\n'));
      throw e;
    } finally {
      await c.close();
    }
  });
});

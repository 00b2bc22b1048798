// Controller acceptance: real kubectl against one k1s server with simulated nodes (no container runtime).
// Scenarios run concurrently, each in its own namespace, so their waits overlap.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpClient } from '../../src/client/http.js';
import { loadKubeconfig } from '../../src/client/kubeconfig.js';
import type { KObject } from '../../src/api/types.js';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;
let client: HttpClient;

before(async () => {
  server = await startServer({ extraArgs: ['--simulated-nodes', '3'] });
  client = new HttpClient(loadKubeconfig(server.kubeconfig), 'e2e');
});

after(async () => {
  client?.close();
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const wait = <T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number) => until(fn, what, timeoutMs);

const yaml = (s: string) => s.replace(/^\n/, '');

describe('controllers on simulated nodes', { concurrency: true }, () => {
  const k = () => kubectl(server, '1.33');
  const k127 = () => kubectl(server, '1.27');

  it('registers three Ready simulated nodes', async () => {
    const out = await wait('3 Ready nodes', async () => {
      const o = await k().ok(['get', 'nodes']);
      return (o.match(/\sReady\s/g) ?? []).length === 3 && o;
    });
    assert.match(out, /^k1s-sim-0\s+Ready\s+<none>\s+\S+\s+v1\.33\.\d+$/m);
  });

  it('rolls a Deployment out and back within its surge and unavailability bounds', async () => {
    const ns = 'e2e-deploy';
    await k().ok(['create', 'namespace', ns]);
    const manifest = (image: string) => yaml(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
  annotations:
    kubernetes.io/change-cause: image ${image}
spec:
  replicas: 4
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 1, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: ${image}
`);
    await k().ok(['apply', '-f', '-'], { input: manifest('busybox:1.36') });
    const status = await k().ok(['rollout', 'status', `deployment/web`, '-n', ns, '--timeout=60s']);
    assert.match(status, /deployment "web" successfully rolled out/);

    // During the update the Deployment controller keeps the ReplicaSets' summed spec.replicas at most
    // replicas+maxSurge (the bound kube guarantees: it counts ReplicaSet sizes, so a pod the old ReplicaSet has
    // not deleted yet may briefly coexist with the new one's), and the ready pods never below replicas-maxUnavailable.
    const pods = new Map<string, KObject>();
    const sizes = new Map<string, number>();
    const trail: string[] = [];
    let maxTotal = 0;
    let minReady = Infinity;
    let watching = false;
    const w = await client.resource('v1', 'pods').watch(ns, { labelSelector: 'app=web' }, (ev) => {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return;
      if (ev.type === 'DELETED') pods.delete(ev.object.metadata.name!);
      else pods.set(ev.object.metadata.name!, ev.object);
      if (!watching) return;
      const live = [...pods.values()].filter((p) => !p.metadata.deletionTimestamp);
      const ready = live.filter((p) => ((p.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
      minReady = Math.min(minReady, ready.length);
    });
    const rsWatch = await client.resource('apps/v1', 'replicasets').watch(ns, {}, (ev) => {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return;
      if (ev.type === 'DELETED') sizes.delete(ev.object.metadata.name!);
      else sizes.set(ev.object.metadata.name!, (ev.object.spec as { replicas?: number })?.replicas ?? 0);
      if (!watching) return;
      maxTotal = Math.max(maxTotal, [...sizes.values()].reduce((a, b) => a + b, 0));
      trail.push(`${ev.type} ${ev.object.metadata.name} rv=${ev.object.metadata.resourceVersion} replicas=${sizes.get(ev.object.metadata.name!)} by ${(ev.object.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}${m.subresource ? `/${m.subresource}` : ''}@${m.time}`).join(',')}`);
    });
    await new Promise((r) => setTimeout(r, 200));
    watching = true;
    await k().ok(['apply', '-f', '-'], { input: manifest('busybox:1.37') });
    await k().ok(['rollout', 'status', `deployment/web`, '-n', ns, '--timeout=60s']);
    w.stop();
    rsWatch.stop();
    assert.equal(maxTotal, 5, `the ReplicaSets together are scaled to at most (and, surging, exactly) replicas+maxSurge = 5, saw ${maxTotal}:\n${trail.join('\n')}`);
    assert.ok(minReady >= 3, `at least replicas-maxUnavailable = 3 ready pods, saw ${minReady}`);

    const rs = await k().ok(['get', 'rs', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.replicas} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}{"\\n"}{end}']);
    const rows = rs.trim().split('\n').map((l) => l.split(' '));
    assert.equal(rows.length, 2);
    assert.ok(rows.every(([name]) => /^web-[a-z0-9]{8,10}$/.test(name)), rs);
    assert.deepEqual(rows.map((r) => r[1]).sort(), ['0', '4']);

    const history = await k().ok(['rollout', 'history', 'deployment/web', '-n', ns]);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    assert.match(history, /^1\s+image busybox:1\.36$/m);
    assert.match(history, /^2\s+image busybox:1\.37$/m);

    await k().ok(['rollout', 'undo', 'deployment/web', '-n', ns]);
    await k().ok(['rollout', 'status', `deployment/web`, '-n', ns, '--timeout=60s']);
    const image = await k().ok(['get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
    assert.equal(image, 'busybox:1.36');
    const after = await k().ok(['rollout', 'history', 'deployment/web', '-n', ns]);
    assert.match(after, /^3\s+image busybox:1\.36$/m, 'undo re-uses the first ReplicaSet as revision 3');
    // kubectl 1.27 reads the same rollout
    assert.match(await k127().ok(['rollout', 'status', 'deployment/web', '-n', ns]), /successfully rolled out/);
  });

  it('starts StatefulSet pods in order and stops them in reverse order', async () => {
    const ns = 'e2e-sts';
    await k().ok(['create', 'namespace', ns]);
    const order: string[] = [];
    const w = await client.resource('v1', 'pods').watch(ns, {}, (ev) => {
      if (ev.type === 'ADDED') order.push(`+${ev.object.metadata.name}`);
      if (ev.type === 'DELETED') order.push(`-${ev.object.metadata.name}`);
    });
    await k().ok(['apply', '-f', '-'], {
      input: yaml(`
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: ${ns}
spec:
  serviceName: db
  replicas: 3
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: busybox:1.36
`),
    });
    assert.match(await k().ok(['rollout', 'status', 'statefulset/db', '-n', ns, '--timeout=60s']), /partitioned roll out complete|rolling update complete|roll out complete/);
    await k().ok(['scale', 'statefulset/db', '-n', ns, '--replicas=0']);
    await wait('all db pods gone', async () => (await client.resource('v1', 'pods').list(ns)).items.length === 0);
    w.stop();
    assert.deepEqual(order, ['+db-0', '+db-1', '+db-2', '-db-2', '-db-1', '-db-0']);
  });

  it('runs a DaemonSet pod on every node, including a node added later', async () => {
    const ns = 'e2e-ds';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['apply', '-f', '-'], {
      input: yaml(`
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.36
`),
    });
    await k().ok(['rollout', 'status', 'daemonset/agent', '-n', ns, '--timeout=60s']);
    const nodesOf = async () => (await k().ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={.items[*].spec.nodeName}'])).split(' ').filter(Boolean).sort();
    assert.deepEqual(await nodesOf(), ['k1s-sim-0', 'k1s-sim-1', 'k1s-sim-2']);
    const add = await run(process.execPath, [k1sBin, 'node', 'add', '--simulated', 'k1s-sim-extra', '--kubeconfig', server.kubeconfig]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /node\/k1s-sim-extra added/);
    await wait('a pod on the new node', async () => (await nodesOf()).includes('k1s-sim-extra'));
    const rm = await run(process.execPath, [k1sBin, 'node', 'remove', 'k1s-sim-extra', '--kubeconfig', server.kubeconfig]);
    assert.equal(rm.code, 0, rm.stderr);
    await wait('the pod of the removed node gone', async () => !(await nodesOf()).includes('k1s-sim-extra'));
  });

  it('fails a Job whose pods fail once the back-off limit is reached', async () => {
    const ns = 'e2e-job';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['apply', '-f', '-'], {
      input: yaml(`
apiVersion: batch/v1
kind: Job
metadata:
  name: flaky
  namespace: ${ns}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: ["sh", "-c", "exit 3"]
`),
    });
    await k().ok(['wait', '--for=condition=Failed', 'job/flaky', '-n', ns, '--timeout=60s'], { timeoutMs: 70_000 });
    const reason = await k().ok(['get', 'job', 'flaky', '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}']);
    assert.equal(reason, 'BackoffLimitExceeded');
    const failed = await k().ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={range .items[*]}{.status.phase}{"\\n"}{end}']);
    assert.deepEqual(failed.trim().split('\n'), ['Failed', 'Failed']);
    const events = await k().ok(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=flaky', '-o', 'jsonpath={.items[*].reason}']);
    assert.match(events, /BackoffLimitExceeded/);
  });

  it('completes a Job with parallel successful pods', async () => {
    const ns = 'e2e-job-ok';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['create', 'job', 'ok', '-n', ns, '--image=busybox:1.36', '--', 'sh', '-c', 'exit 0']);
    await k().ok(['wait', '--for=condition=Complete', 'job/ok', '-n', ns, '--timeout=60s'], { timeoutMs: 70_000 });
    assert.match(await k().ok(['get', 'job', 'ok', '-n', ns]), /^ok\s+Complete\s+1\/1\s/m);
  });

  it('fires a CronJob on schedule', async () => {
    const ns = 'e2e-cron';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['create', 'cronjob', 'tick', '-n', ns, '--image=busybox:1.36', '--schedule=* * * * *', '--', 'sh', '-c', 'exit 0']);
    const job = await wait(
      'a Job from the CronJob',
      async () => (await k().ok(['get', 'jobs', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}'])).trim(),
      75_000,
    );
    assert.match(job, /^tick-\d{8}$/);
    const owner = await k().ok(['get', 'job', job, '-n', ns, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}']);
    assert.equal(owner, 'CronJob/tick');
    await wait('lastScheduleTime', async () => (await k().ok(['get', 'cronjob', 'tick', '-n', ns, '-o', 'jsonpath={.status.lastScheduleTime}'])).trim());
    // a manual run from the template
    await k().ok(['create', 'job', 'manual', '-n', ns, '--from=cronjob/tick']);
    await k().ok(['wait', '--for=condition=Complete', 'job/manual', '-n', ns, '--timeout=60s'], { timeoutMs: 70_000 });
  });

  it('deletes dependents in background, foreground and orphan modes', async () => {
    const ns = 'e2e-gc';
    await k().ok(['create', 'namespace', ns]);
    const rs = (name: string) =>
      yaml(`
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: busybox:1.36
`);
    const podsOf = async (app: string) => (await client.resource('v1', 'pods').list(ns, { labelSelector: `app=${app}` })).items;
    for (const name of ['bg', 'fg', 'orphan']) {
      await k().ok(['apply', '-f', '-'], { input: rs(name) });
      await wait(`2 pods of ${name}`, async () => (await podsOf(name)).length === 2);
    }
    await k().ok(['delete', 'rs', 'bg', '-n', ns, '--cascade=background']);
    await wait('background: pods deleted', async () => (await podsOf('bg')).every((p) => p.metadata.deletionTimestamp) );
    await k().ok(['delete', 'rs', 'fg', '-n', ns, '--cascade=foreground', '--wait=true', '--timeout=60s']);
    assert.equal((await podsOf('fg')).filter((p) => !p.metadata.deletionTimestamp).length, 0, 'foreground: owner gone only after its pods');
    await k().ok(['delete', 'rs', 'orphan', '-n', ns, '--cascade=orphan']);
    await wait('orphan: rs gone', async () => (await k().run(['get', 'rs', 'orphan', '-n', ns])).code !== 0);
    const orphans = await podsOf('orphan');
    assert.equal(orphans.length, 2);
    assert.ok(orphans.every((p) => !p.metadata.deletionTimestamp && !(p.metadata as { ownerReferences?: unknown[] }).ownerReferences?.length));
  });

  it('rejects a pod over quota with the Kubernetes message', async () => {
    const ns = 'e2e-quota';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['create', 'quota', 'small', '-n', ns, '--hard=pods=1,requests.cpu=1']);
    await wait('quota status', async () => (await k().ok(['get', 'quota', 'small', '-n', ns, '-o', 'jsonpath={.status.used.pods}'])) === '0');
    await wait('default service account', async () => (await k().run(['get', 'sa', 'default', '-n', ns])).code === 0);
    await k().ok(['run', 'one', '-n', ns, '--image=busybox:1.36', '--overrides={"spec":{"containers":[{"name":"one","image":"busybox:1.36","resources":{"requests":{"cpu":"500m"}}}]}}']);
    const r = await k().run(['run', 'two', '-n', ns, '--image=busybox:1.36', '--overrides={"spec":{"containers":[{"name":"two","image":"busybox:1.36","resources":{"requests":{"cpu":"100m"}}}]}}']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): pods "two" is forbidden: exceeded quota: small, requested: pods=1, used: pods=1, limited: pods=1');
  });

  it('blocks an eviction that would violate a PodDisruptionBudget', async () => {
    const ns = 'e2e-pdb';
    await k().ok(['create', 'namespace', ns]);
    await k().ok(['create', 'deployment', 'app', '-n', ns, '--image=busybox:1.36', '--replicas=2']);
    await k().ok(['rollout', 'status', 'deployment/app', '-n', ns, '--timeout=60s']);
    await k().ok(['create', 'pdb', 'app', '-n', ns, '--selector=app=app', '--min-available=2']);
    await wait('pdb status', async () => (await k().ok(['get', 'pdb', 'app', '-n', ns, '-o', 'jsonpath={.status.currentHealthy}'])) === '2');
    const pod = (await k().ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const eviction = JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: ns } });
    const r = await k().run(['create', '--raw', `/api/v1/namespaces/${ns}/pods/${pod}/eviction`, '-f', '-'], { input: eviction });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
    assert.equal((await k().run(['get', 'pod', pod, '-n', ns])).code, 0, 'the pod is still there');
  });
});

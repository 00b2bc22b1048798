// Scheduler acceptance with real kubectl on simulated nodes: three nodes of 2 CPUs in zones a, b and c. Scenarios run
// one after another (they share the nodes' capacity) and each cleans up its namespace.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;
const k = () => kubectl(server, '1.33');

before(async () => {
  server = await startServer({ extraArgs: ['--simulated-nodes', '3', '--simulated-node-cpu', '2'] });
  await until(async () => ((await k().ok(['get', 'nodes'])).match(/\sReady\s/g) ?? []).length === 3, '3 Ready nodes');
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

async function namespace(ns: string): Promise<void> {
  await k().ok(['create', 'namespace', ns]);
  await until(async () => (await k().run(['get', 'sa', 'default', '-n', ns])).code === 0, `default SA in ${ns}`);
}

async function dropNamespace(ns: string): Promise<void> {
  await k().ok(['delete', 'namespace', ns, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
}

const podsOn = async (ns: string, selector: string) =>
  (await k().ok(['get', 'pods', '-n', ns, '-l', selector, '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\\n"}{end}']))
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '));

const deployment = (ns: string, name: string, replicas: number, podSpec: string, labels = `app: ${name}`) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {${labels}}}
  template:
    metadata: {labels: {${labels}}}
    spec:
${podSpec}`;

describe('scheduler on simulated nodes', () => {
  it('leaves a pod with an impossible request Pending with kube-scheduler\'s message', async () => {
    const ns = 'sched-big';
    await namespace(ns);
    await k().ok(['run', 'huge', '-n', ns, '--image=busybox:1.36', '--overrides={"spec":{"containers":[{"name":"huge","image":"busybox:1.36","resources":{"requests":{"cpu":"100"}}}]}}']);
    const msg = await until(
      async () => (await k().ok(['get', 'pod', 'huge', '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).trim(),
      'PodScheduled condition',
    );
    assert.equal(msg, '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    assert.match(await k().ok(['get', 'events', '-n', ns, '--field-selector', 'reason=FailedScheduling', '-o', 'jsonpath={.items[0].message}']), /Insufficient cpu/);
    assert.match(await k().ok(['get', 'pod', 'huge', '-n', ns]), /huge\s+0\/1\s+Pending\s/);
    await dropNamespace(ns);
  });

  it('sends nothing new to a cordoned node', async () => {
    const ns = 'sched-cordon';
    await namespace(ns);
    await k().ok(['cordon', 'k1s-sim-0']);
    try {
      await k().ok(['apply', '-f', '-'], { input: deployment(ns, 'many', 6, '      containers: [{name: c, image: busybox:1.36, resources: {requests: {cpu: 100m}}}]') });
      await k().ok(['rollout', 'status', 'deployment/many', '-n', ns, '--timeout=60s']);
      const nodes = (await podsOn(ns, 'app=many')).map(([, n]) => n);
      assert.equal(nodes.length, 6);
      assert.ok(!nodes.includes('k1s-sim-0'), nodes.join());
    } finally {
      await k().ok(['uncordon', 'k1s-sim-0']);
    }
    await dropNamespace(ns);
  });

  it('evicts pods from a node tainted NoExecute, tolerating ones after their tolerationSeconds', async () => {
    const ns = 'sched-taint';
    await namespace(ns);
    const pod = (name: string, tolerate: boolean) => `
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  nodeName: k1s-sim-2
  containers: [{name: c, image: busybox:1.36}]
${tolerate ? '  tolerations: [{key: demo, operator: Exists, effect: NoExecute, tolerationSeconds: 4}]' : ''}`;
    await k().ok(['apply', '-f', '-'], { input: pod('plain', false) + '\n---\n' + pod('tolerant', true) });
    await until(async () => (await k().ok(['get', 'pods', '-n', ns, '-o', 'jsonpath={.items[*].status.phase}'])) === 'Running Running', 'pods running');
    await k().ok(['taint', 'node', 'k1s-sim-2', 'demo=x:NoExecute']);
    try {
      const t0 = Date.now();
      await until(async () => (await k().run(['get', 'pod', 'plain', '-n', ns])).code !== 0, 'plain pod evicted', 20_000);
      assert.equal((await k().run(['get', 'pod', 'tolerant', '-n', ns])).code, 0, 'the tolerating pod is still there');
      await until(async () => (await k().run(['get', 'pod', 'tolerant', '-n', ns])).code !== 0, 'tolerant pod evicted', 30_000);
      assert.ok(Date.now() - t0 >= 3_500, `tolerant pod evicted after ${Date.now() - t0} ms, before its 4 s`);
    } finally {
      await k().ok(['taint', 'node', 'k1s-sim-2', 'demo-']);
    }
    await dropNamespace(ns);
  });
  it('spreads replicas across zones within maxSkew', async () => {
    const ns = 'sched-spread';
    await namespace(ns);
    await k().ok(['apply', '-f', '-'], {
      input: deployment(
        ns,
        'spread',
        6,
        `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread}}}
      containers: [{name: c, image: busybox:1.36, resources: {requests: {cpu: 100m}}}]`,
      ),
    });
    await k().ok(['rollout', 'status', 'deployment/spread', '-n', ns, '--timeout=60s']);
    const zoneOf = JSON.parse(await k().ok(['get', 'nodes', '-o', 'json'])).items.reduce(
      (m: Record<string, string>, n: { metadata: { name: string; labels: Record<string, string> } }) => ({ ...m, [n.metadata.name]: n.metadata.labels['topology.kubernetes.io/zone'] }),
      {},
    );
    const perZone: Record<string, number> = {};
    for (const [, node] of await podsOn(ns, 'app=spread')) perZone[zoneOf[node]] = (perZone[zoneOf[node]] ?? 0) + 1;
    assert.deepEqual(Object.values(perZone).sort(), [2, 2, 2]);
    await dropNamespace(ns);
  });

  it('puts one replica per node with required anti-affinity and leaves the rest Pending', async () => {
    const ns = 'sched-anti';
    await namespace(ns);
    await k().ok(['apply', '-f', '-'], {
      input: deployment(
        ns,
        'solo',
        4,
        `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: solo}}}
      containers: [{name: c, image: busybox:1.36}]`,
      ),
    });
    await until(async () => (await podsOn(ns, 'app=solo')).filter(([, n]) => n).length === 3, '3 bound replicas');
    const nodes = (await podsOn(ns, 'app=solo')).map(([, n]) => n).filter(Boolean).sort();
    assert.deepEqual(nodes, ['k1s-sim-0', 'k1s-sim-1', 'k1s-sim-2']);
    const pending = (await podsOn(ns, 'app=solo')).find(([, n]) => !n)![0];
    const msg = await until(
      async () => (await k().ok(['get', 'pod', pending, '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).trim(),
      'unschedulable message',
    );
    assert.match(msg, /^0\/3 nodes are available: 3 node\(s\) didn't match pod anti-affinity rules\. preemption: /);
    await dropNamespace(ns);
  });

  it('preempts lower-priority pods for a higher-priority one', async () => {
    const ns = 'sched-preempt';
    await namespace(ns);
    await k().ok(['apply', '-f', '-'], {
      input: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-high}
value: 1000
`,
    });
    try {
      await k().ok(['apply', '-f', '-'], {
        input: deployment(ns, 'filler', 3, '      priorityClassName: e2e-low\n      terminationGracePeriodSeconds: 0\n      containers: [{name: c, image: busybox:1.36, resources: {requests: {cpu: 1500m}}}]'),
      });
      await k().ok(['rollout', 'status', 'deployment/filler', '-n', ns, '--timeout=60s']);
      await k().ok(['run', 'vip', '-n', ns, '--image=busybox:1.36', '--overrides={"spec":{"priorityClassName":"e2e-high","containers":[{"name":"vip","image":"busybox:1.36","resources":{"requests":{"cpu":"1500m"}}}]}}']);
      await until(async () => (await k().ok(['get', 'pod', 'vip', '-n', ns, '-o', 'jsonpath={.status.phase}'])) === 'Running', 'the high-priority pod running');
      const node = await k().ok(['get', 'pod', 'vip', '-n', ns, '-o', 'jsonpath={.spec.nodeName}']);
      assert.match(node, /^k1s-sim-\d$/);
      assert.match(await k().ok(['get', 'events', '-n', ns, '-o', 'jsonpath={.items[*].reason}']), /Preempted/);
      // the preempted replica is re-created by its ReplicaSet and waits: the cluster is full
      await until(async () => (await k().ok(['get', 'pods', '-n', ns, '-l', 'app=filler', '--field-selector=status.phase=Pending', '-o', 'name'])).trim(), 'a pending filler');
    } finally {
      await k().run(['delete', 'priorityclass', 'e2e-low', 'e2e-high']);
    }
    await dropNamespace(ns);
  });
});

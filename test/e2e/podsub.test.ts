// Pod subresources through real kubectl 1.33 and 1.27: binding and eviction with raw POSTs (and kubectl drain),
// ephemeral containers with kubectl debug, resize with kubectl patch --subresource=resize (1.33 only).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl, kubectlVersions, removeDir, startServer, type K1sServer } from './harness.js';

let server: K1sServer;

before(async () => {
  // API behaviour only: stored objects stay as written (a kube-apiserver without controller manager or scheduler)
  server = await startServer({ extraArgs: ['--disable-controller-manager', '--disable-scheduler'] });
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

for (const version of kubectlVersions) {
  describe(`pod subresources with kubectl ${version}`, () => {
    const ns = `podsub-${version.replace('.', '-')}`;
    const node = `node-${version.replace('.', '-')}`;
    let k: ReturnType<typeof kubectl>;
    const pod = (name: string, labels = `app: ${name}`, extra = '') =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels:\n    ${labels}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n${extra}`;
    const raw = (name: string, sub: string, body: object) =>
      k.run(['create', '--raw', `/api/v1/namespaces/${ns}/pods/${name}/${sub}`, '-f', '-'], { input: JSON.stringify(body) });
    const bind = (name: string, target = node) => raw(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: target } });
    const evict = (name: string, deleteOptions?: object) => raw(name, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, deleteOptions });
    const jsonpath = (kind: string, name: string, path: string) => k.ok(['get', kind, name, '-n', ns, '-o', `jsonpath=${path}`]);
    /** What a kubelet would report for a running pod. */
    const markRunning = (name: string) =>
      k.ok(['patch', 'pod', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } })]);
    const pdbStatus = (name: string, status: object) =>
      k.ok(['patch', 'pdb', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);

    before(async () => {
      k = kubectl(server, version);
      await k.ok(['create', 'namespace', ns]);
      // no controller manager here: the ServiceAccount admission needs the default account made by hand
      await k.ok(['create', 'serviceaccount', 'default', '-n', ns]);
      await k.ok(['create', '-f', '-'], { input: `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${node}\n` });
    });

    it('binds a pod to a node with a raw POST of a Binding', async () => {
      await k.ok(['apply', '-f', '-'], { input: pod('bound') });
      const r = await bind('bound');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      assert.equal(await jsonpath('pod', 'bound', '{.spec.nodeName}'), node);
      assert.equal(await jsonpath('pod', 'bound', '{.status.conditions[?(@.type=="PodScheduled")].status}'), 'True');
      assert.match(await k.ok(['get', 'pods', '-n', ns, '-o', 'wide']), new RegExp(`^bound\\s+0/1\\s+Pending\\s+0\\s+\\S+\\s+<none>\\s+${node}\\s`, 'm'));
      const again = await bind('bound', 'elsewhere');
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, new RegExp(`Error from server \\(Conflict\\): Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "${node}"`));
    });

    it('adds an ephemeral container with kubectl debug', async () => {
      const out = await k.run(['debug', 'bound', '-n', ns, '--image=busybox:1.36', '--target=c', '--container=dbg']);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout + out.stderr, /Targeting container "c"/);
      assert.equal(await jsonpath('pod', 'bound', '{.spec.ephemeralContainers[*].name}'), 'dbg');
      assert.equal(await jsonpath('pod', 'bound', '{.spec.ephemeralContainers[0].targetContainerName}'), 'c');
      const again = await k.run(['debug', 'bound', '-n', ns, '--image=busybox:1.36', '--container=c']);
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /The Pod "bound" is invalid: spec\.ephemeralContainers\[1\]\.name: Duplicate value: "c"/);
    });

    it('evicts: 429 while the disruption budget forbids it, 201 once it allows one', async () => {
      await k.ok(['apply', '-f', '-'], { input: pod('guarded', 'app: db') });
      assert.equal((await bind('guarded')).code, 0);
      await markRunning('guarded');
      await k.ok(['apply', '-f', '-'], {
        input: `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: db\n  namespace: ${ns}\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: db\n`,
      });
      let r = await evict('guarded');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Error from server \(TooManyRequests\): Cannot evict pod as it would violate the pod's disruption budget\./);
      await pdbStatus('db', { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
      r = await evict('guarded');
      assert.match(r.stderr, /TooManyRequests/);
      await pdbStatus('db', { disruptionsAllowed: 1, currentHealthy: 2, expectedPods: 2 });
      r = await evict('guarded');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).status, 'Success');
      assert.match(await k.ok(['get', 'pdb', 'db', '-n', ns]), /^db\s+1\s+N\/A\s+0\s/m);
      assert.match(await jsonpath('pdb', 'db', '{.status.disruptedPods}'), /"guarded"/);
      // bound to a node: the pod is deleted gracefully, and marked as disrupted
      assert.notEqual(await jsonpath('pod', 'guarded', '{.metadata.deletionTimestamp}'), '');
      assert.equal(await jsonpath('pod', 'guarded', '{.status.conditions[?(@.type=="DisruptionTarget")].reason}'), 'EvictionByEvictionAPI');
    });

    it('evicts pending pods right away, and reports a missing pod', async () => {
      await k.ok(['apply', '-f', '-'], { input: pod('waiting', 'app: db') });
      const r = await evict('waiting');
      assert.equal(r.code, 0, r.stderr);
      assert.match((await k.run(['get', 'pod', 'waiting', '-n', ns])).stderr, /NotFound/);
      assert.match((await evict('ghost')).stderr, /Error from server \(NotFound\): pods "ghost" not found/);
    });

    it('drains a node through the eviction subresource', async () => {
      await k.ok(['apply', '-f', '-'], { input: pod('drained', 'app: drained') });
      assert.equal((await bind('drained')).code, 0);
      await markRunning('drained');
      const out = await k.run(['drain', node, '--force', '--grace-period=0', '--timeout=30s', '--pod-selector=app=drained'], { timeoutMs: 60_000 });
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`pod/drained evicted`));
      assert.match(out.stdout, new RegExp(`node/${node} drained`));
      assert.match((await k.run(['get', 'pod', 'drained', '-n', ns])).stderr, /NotFound/);
    });

    it('resizes container resources in place', async () => {
      if (version === '1.27') {
        // kubectl 1.27 refuses the subresource client-side, as it does against a real 1.33 cluster
        const old = await k.run(['patch', 'pod', 'x', '-n', ns, '--subresource=resize', '-p', '{}']);
        assert.match(old.stderr, /invalid subresource value: "resize"\. Must be one of \[status scale\]/);
        return;
      }
      const res = `    resources:\n      requests:\n        cpu: 100m\n        memory: 64Mi\n      limits:\n        cpu: 200m\n        memory: 128Mi\n`;
      await k.ok(['apply', '-f', '-'], { input: pod('sized', 'app: sized', res) });
      const patch = { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '0.15' }, limits: { cpu: '300m' } } }] } };
      await k.ok(['patch', 'pod', 'sized', '-n', ns, '--subresource=resize', '-p', JSON.stringify(patch)]);
      assert.equal(await jsonpath('pod', 'sized', '{.spec.containers[0].resources.requests.cpu}/{.spec.containers[0].resources.limits.cpu}'), '150m/300m');
      const bad = { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '300m', memory: '128Mi' }, limits: { cpu: '300m', memory: '128Mi' } } }] } };
      const r = await k.run(['patch', 'pod', 'sized', '-n', ns, '--subresource=resize', '-p', JSON.stringify(bad)]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing/);
    });
  });
}

// kubectl acceptance: real kubectl 1.33 and 1.27 against one shared k1s server, each version in its own namespace.
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, kubectlVersions, removeDir, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

for (const version of kubectlVersions) {
  describe(`kubectl ${version}`, () => {
    const ns = `e2e-${version.replace('.', '-')}`;
    let k: ReturnType<typeof kubectl>;
    const file = (name: string, content: string) => {
      const dir = join(server.dataDir, `files-${version}`);
      mkdirSync(dir, { recursive: true });
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    };

    before(async () => {
      k = kubectl(server, version);
      await k.ok(['create', 'namespace', ns]);
    });

    it('reports version 1.33 and serves discovery', async () => {
      const v = JSON.parse(await k.ok(['version', '-o', 'json']));
      assert.equal(v.serverVersion.major, '1');
      assert.equal(v.serverVersion.minor, '33');
      const res = await k.ok(['api-resources']);
      for (const r of ['configmaps', 'namespaces', 'pods', 'secrets', 'serviceaccounts', 'leases', 'events']) {
        assert.match(res, new RegExp(`^${r}\\s`, 'm'));
      }
      assert.match(res, /^pods\s+po\s+v1\s+true\s+Pod$/m);
      const versions = await k.ok(['api-versions']);
      assert.match(versions, /^v1$/m);
      assert.match(versions, /^coordination\.k8s\.io\/v1$/m);
      assert.match(versions, /^events\.k8s\.io\/v1$/m);
      assert.match(await k.ok(['config', 'view', '-o', 'jsonpath={.contexts[0].name}']), /^k1s$/);
    });

    it('lists the system namespaces', async () => {
      const out = await k.ok(['get', 'ns']);
      assert.match(out, /^NAME\s+STATUS\s+AGE$/m);
      for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(out, new RegExp(`^${n}\\s+Active\\s`, 'm'));
    });

    it('applies: created, unchanged, configured, server-side', async () => {
      const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: ${ns}\n  labels:\n    app: web\ndata:\n  key: ${v}\n`;
      assert.match(await k.ok(['apply', '-f', '-'], { input: cm('one') }), /configmap\/app-config created/);
      assert.match(await k.ok(['apply', '-f', '-'], { input: cm('one') }), /configmap\/app-config unchanged/);
      assert.match(await k.ok(['apply', '-f', '-'], { input: cm('two') }), /configmap\/app-config configured/);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.data.key}']), 'two');
      const ssa = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: ${ns}\ndata:\n  a: "1"\n`;
      assert.match(await k.ok(['apply', '--server-side', '-f', '-'], { input: ssa }), /configmap\/ssa serverside-applied/);
      const mf = JSON.parse(await k.ok(['get', 'cm', 'ssa', '-n', ns, '-o', 'json', '--show-managed-fields'])).metadata.managedFields;
      assert.equal(mf[0].manager, 'kubectl');
      assert.equal(mf[0].operation, 'Apply');
      // another manager owning the field makes a conflicting apply fail with 409, and --force-conflicts wins
      await k.ok(['patch', 'cm', 'ssa', '-n', ns, '--type=merge', '-p', '{"data":{"a":"2"}}']);
      const conflict = await k.run(['apply', '--server-side', '-f', '-'], { input: ssa });
      assert.notEqual(conflict.code, 0);
      assert.match(conflict.stderr, /conflict with "kubectl-patch"/);
      await k.ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: ssa });
      assert.equal(await k.ok(['get', 'cm', 'ssa', '-n', ns, '-o', 'jsonpath={.data.a}']), '1');
    });

    it('prunes with a label selector', async () => {
      const two = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p1\n  namespace: ${ns}\n  labels: {set: prune}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p2\n  namespace: ${ns}\n  labels: {set: prune}\n`;
      await k.ok(['apply', '-f', file('prune.yaml', two)]);
      const one = two.split('---')[0];
      const out = await k.ok(['apply', '--prune', '-l', 'set=prune', '--prune-allowlist=core/v1/ConfigMap', '-n', ns, '-f', file('prune.yaml', one)]);
      assert.match(out, /configmap\/p2 pruned/);
      assert.match(await k.ok(['get', 'cm', '-n', ns, '-l', 'set=prune', '-o', 'name']), /^configmap\/p1\n$/);
    });

    it('creates from literals and files, secrets and namespaces', async () => {
      const f = file('settings.txt', 'hello');
      await k.ok(['create', 'configmap', 'lit', '-n', ns, '--from-literal=a=b', `--from-file=${f}`]);
      const cm = JSON.parse(await k.ok(['get', 'cm', 'lit', '-n', ns, '-o', 'json']));
      assert.deepEqual(cm.data, { a: 'b', 'settings.txt': 'hello' });
      await k.ok(['create', 'secret', 'generic', 's1', '-n', ns, '--from-literal=password=s3cret']);
      const s = JSON.parse(await k.ok(['get', 'secret', 's1', '-n', ns, '-o', 'json']));
      assert.equal(s.type, 'Opaque');
      assert.equal(Buffer.from(s.data.password, 'base64').toString(), 's3cret');
      assert.match(await k.ok(['get', 'secret', 's1', '-n', ns]), /^s1\s+Opaque\s+1\s+\d+s$/m);
      const dup = await k.run(['create', 'configmap', 'lit', '-n', ns]);
      assert.notEqual(dup.code, 0);
      assert.match(dup.stderr, /configmaps "lit" already exists/);
    });

    it('issues service-account tokens that authenticate', async () => {
      await k.ok(['create', 'serviceaccount', 'robot', '-n', ns]);
      const token = (await k.ok(['create', 'token', 'robot', '-n', ns])).trim();
      assert.match(token, /^eyJ/);
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      assert.equal(claims.sub, `system:serviceaccount:${ns}:robot`);
      const robot = ['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', `--token=${token}`];
      // RBAC: a new ServiceAccount may do nothing in its namespace until a binding says so
      const denied = await k.run([...robot, 'get', 'pods', '-n', ns]);
      assert.equal(denied.code, 1);
      assert.equal(denied.stderr.trim(), `Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:${ns}:robot" cannot list resource "pods" in API group "" in the namespace "${ns}"`);
      assert.equal((await k.run([...robot, 'auth', 'can-i', 'list', 'pods', '-n', ns])).stdout.trim(), 'no');
      await k.ok(['create', 'rolebinding', 'robot-view', '--clusterrole=view', `--serviceaccount=${ns}:robot`, '-n', ns]);
      const asRobot = await until(async () => {
        const r = await k.run([...robot, 'get', 'ns', ns, '-o', 'name']);
        return r.code === 0 ? r : undefined;
      }, 'the RoleBinding to take effect', 5_000);
      assert.equal(asRobot.stdout, `namespace/${ns}\n`, asRobot.stderr);
      assert.equal((await k.run([...robot, 'auth', 'can-i', 'list', 'pods', '-n', ns])).stdout.trim(), 'yes');
      assert.equal((await k.run([...robot, 'auth', 'can-i', 'create', 'pods', '-n', ns])).stdout.trim(), 'no');
      const other = await k.run([...robot, 'get', 'nodes']);
      assert.equal(other.stderr.trim(), `Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:${ns}:robot" cannot list resource "nodes" in API group "" at the cluster scope`);
      // SelfSubjectReview v1 (kubectl 1.27 asks for v1beta1, which 1.33 no longer serves)
      if (version === '1.33') assert.equal((await k.run([...robot, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout, `system:serviceaccount:${ns}:robot`);
      const short = await k.run(['create', 'token', 'robot', '-n', ns, '--duration=1m']);
      assert.match(short.stderr, /spec\.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/);
      const bad = await k.run(['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', '--token=nope', 'get', 'ns']);
      assert.match(bad.stderr, /Unauthorized/);
    });

    it('gets in every output format', async () => {
      const def = await k.ok(['get', 'cm', 'app-config', '-n', ns]);
      assert.match(def, /^NAME\s+DATA\s+AGE\napp-config\s+1\s+\d+s\n$/);
      assert.match(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'wide']), /^app-config\s+1\s+/m);
      assert.match(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'yaml']), /^kind: ConfigMap$/m);
      assert.equal(JSON.parse(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'json'])).metadata.name, 'app-config');
      assert.equal(await k.ok(['get', 'cm', '-n', ns, '-o', 'custom-columns=N:.metadata.name,K:.data.key', '-l', 'app=web']), 'N            K\napp-config   two\n');
      assert.equal(await k.ok(['get', 'cm', '-n', ns, '-l', 'app=web', '-o', 'name']), 'configmap/app-config\n');
      assert.match(await k.ok(['get', 'cm', '-n', ns, '--show-labels', '-l', 'app=web']), /app-config\s+1\s+\S+\s+app=web/);
      assert.match(await k.ok(['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=lit', '-o', 'name']), /^configmap\/lit\n$/);
      const all = await k.ok(['get', 'cm', '-A']);
      assert.match(all, /^NAMESPACE\s+NAME\s+DATA\s+AGE$/m);
      assert.match(all, new RegExp(`^${ns}\\s+app-config\\s`, 'm'));
      const missing = await k.run(['get', 'cm', 'nope', '-n', ns]);
      assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "nope" not found/);
      const badField = await k.run(['get', 'pods', '-n', ns, '--field-selector', 'foo=bar']);
      assert.match(badField.stderr, /field label not supported: foo/);
      const badLabel = await k.run(['get', 'cm', '-n', ns, '-l', 'a in (b']);
      assert.match(badLabel.stderr, /unable to parse requirement/);
    });

    it('watches an update and a delete', async () => {
      await k.ok(['create', 'configmap', 'watched', '-n', ns, '--from-literal=a=1']);
      const w = k.run(['get', 'cm', 'watched', '-n', ns, '--watch', '-o', 'custom-columns=N:.metadata.name,A:.data.a', '--request-timeout=6s'], { timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 1500));
      await k.ok(['patch', 'cm', 'watched', '-n', ns, '--type=merge', '-p', '{"data":{"a":"2"}}']);
      await k.ok(['delete', 'cm', 'watched', '-n', ns]);
      const out = (await w).stdout;
      assert.match(out, /watched\s+1/);
      assert.match(out, /watched\s+2/);
      assert.ok(out.trim().split('\n').length >= 4, `expected initial, update and delete lines:\n${out}`);
    });

    it('describes, edits, patches, labels and annotates', async () => {
      const d = await k.ok(['describe', 'cm', 'app-config', '-n', ns]);
      assert.match(d, /^Name:\s+app-config$/m);
      assert.match(d, /^Labels:\s+app=web$/m);
      const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/key: two/key: edited/" "$1"\n');
      chmodSync(editor, 0o755);
      assert.match(await k.ok(['edit', 'cm', 'app-config', '-n', ns], { env: { EDITOR: editor, KUBE_EDITOR: editor } }), /edited/);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.data.key}']), 'edited');
      await k.ok(['patch', 'cm', 'app-config', '-n', ns, '--type=merge', '-p', '{"data":{"m":"1"}}']);
      await k.ok(['patch', 'cm', 'app-config', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"2"}]']);
      await k.ok(['patch', 'cm', 'app-config', '-n', ns, '--type=strategic', '-p', '{"data":{"s":"3"}}']);
      const data = JSON.parse(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.data}']));
      assert.deepEqual(data, { key: 'edited', m: '1', j: '2', s: '3' });
      const badJson = await k.run(['patch', 'cm', 'app-config', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/data/nothere"}]']);
      assert.notEqual(badJson.code, 0);
      await k.ok(['label', 'cm', 'app-config', '-n', ns, 'tier=a']);
      const again = await k.run(['label', 'cm', 'app-config', '-n', ns, 'tier=b']);
      assert.match(again.stderr, /already has a value \(a\), and --overwrite is false/);
      await k.ok(['label', 'cm', 'app-config', '-n', ns, 'tier=b', '--overwrite']);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.metadata.labels.tier}']), 'b');
      await k.ok(['label', 'cm', 'app-config', '-n', ns, 'tier-']);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.metadata.labels.tier}']), '');
      await k.ok(['annotate', 'cm', 'app-config', '-n', ns, 'note=hi']);
      await k.ok(['annotate', 'cm', 'app-config', '-n', ns, 'note=ho', '--overwrite']);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.metadata.annotations.note}']), 'ho');
      await k.ok(['annotate', 'cm', 'app-config', '-n', ns, 'note-']);
      assert.equal(await k.ok(['get', 'cm', 'app-config', '-n', ns, '-o', 'jsonpath={.metadata.annotations.note}']), '');
    });

    it('diffs against the live object', async () => {
      const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: ${ns}\n  labels: {app: web}\ndata:\n  key: different\n`;
      const r = await k.run(['diff', '-f', '-'], { input: cm });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /^-\s+key: edited$/m);
      assert.match(r.stdout, /^\+\s+key: different$/m);
    });

    it('stores pods and prints them like a real cluster', async () => {
      const pod = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n`;
      await k.ok(['apply', '-f', '-'], { input: pod });
      assert.match(await k.ok(['get', 'pods', '-n', ns]), /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb\s+0\/1\s+Pending\s+0\s+\d+s\n$/);
      assert.match(await k.ok(['get', 'pods', '-n', ns, '-o', 'wide']), /^web\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>$/m);
      const p = JSON.parse(await k.ok(['get', 'pod', 'web', '-n', ns, '-o', 'json']));
      assert.equal(p.spec.restartPolicy, 'Always');
      assert.equal(p.spec.containers[0].imagePullPolicy, 'IfNotPresent');
      assert.equal(p.status.phase, 'Pending');
      assert.equal(await k.ok(['get', 'pods', '-n', ns, '--field-selector', 'status.phase=Pending', '-o', 'name']), 'pod/web\n');
      const bad = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\n  namespace: ${ns}\nspec:\n  containers:\n  - name: c\n`;
      const r = await k.run(['apply', '-f', '-'], { input: bad });
      assert.match(r.stderr, /Pod "bad" is invalid: spec\.containers\[0\]\.image: Required value/);
      const unknown = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: strict\n  namespace: ${ns}\nspec:\n  bogus: 1\n  containers:\n  - name: c\n    image: x\n`;
      const u = await k.run(['apply', '-f', '-'], { input: unknown });
      assert.notEqual(u.code, 0);
      assert.match(u.stderr, /unknown field "spec\.bogus"/);
      const e = await k.ok(['explain', 'pod.spec.containers']);
      assert.match(e, /^KIND:\s+Pod$/m);
      assert.match(e, /FIELD:\s+containers <\[\]Container>/);
    });

    it('deletes by name, label and --all, waiting for finalizers', async () => {
      await k.ok(['create', 'configmap', 'del1', '-n', ns]);
      assert.match(await k.ok(['delete', 'cm', 'del1', '-n', ns]), /configmap "del1" deleted/);
      await k.ok(['create', 'configmap', 'del2', '-n', ns]);
      await k.ok(['label', 'cm', 'del2', '-n', ns, 'gone=yes']);
      assert.match(await k.ok(['delete', 'cm', '-l', 'gone=yes', '-n', ns]), /configmap "del2" deleted/);
      // an object with a finalizer stays, with a deletionTimestamp, until the finalizer is removed
      const fin = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: ${ns}\n  finalizers: [example.com/hold]\n`;
      await k.ok(['apply', '-f', '-'], { input: fin });
      await k.ok(['delete', 'cm', 'held', '-n', ns, '--wait=false']);
      const held = JSON.parse(await k.ok(['get', 'cm', 'held', '-n', ns, '-o', 'json']));
      assert.ok(held.metadata.deletionTimestamp);
      const waiter = k.run(['wait', '--for=delete', 'cm/held', '-n', ns, '--timeout=20s']);
      await new Promise((r) => setTimeout(r, 500));
      await k.ok(['patch', 'cm', 'held', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
      const w = await waiter;
      assert.equal(w.code, 0, w.stderr);
      assert.equal((await k.run(['get', 'cm', 'held', '-n', ns])).code, 1);
      await k.ok(['wait', '--for=jsonpath={.data.key}=edited', 'cm/app-config', '-n', ns, '--timeout=10s']);
      await k.ok(['create', 'configmap', 'del3', '-n', ns]);
      const all = await k.ok(['delete', 'cm', '--all', '-n', ns, '--wait']);
      assert.match(all, /configmap "del3" deleted/);
      assert.match(all, /configmap "kube-root-ca.crt" deleted/);
      // as on a real cluster, the root CA publisher puts kube-root-ca.crt back at once
      const left = await until(async () => (await k.ok(['get', 'cm', '-n', ns, '-o', 'name'])).trim() || undefined, 'kube-root-ca.crt re-created');
      assert.equal(left, 'configmap/kube-root-ca.crt');
    });

    it('shows events from both APIs', async () => {
      const ev = `apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e1\n  namespace: ${ns}\neventTime: "2026-01-01T00:00:00.000000Z"\nreportingController: example.com/ctl\nreportingInstance: ctl-1\naction: Testing\nreason: Tested\nregarding:\n  kind: Pod\n  name: web\n  namespace: ${ns}\nnote: hello from e2e\ntype: Normal\n`;
      await k.ok(['create', '-f', '-'], { input: ev });
      const core = JSON.parse(await k.ok(['get', 'events', '-n', ns, '-o', 'json']));
      assert.equal(core.items[0].message, 'hello from e2e');
      assert.equal(core.items[0].involvedObject.name, 'web');
      assert.match(await k.ok(['events', '-n', ns]), /Tested\s+Pod\/web\s+hello from e2e/i);
    });

    it('deletes a namespace with everything in it', async () => {
      const tmp = `${ns}-tmp`;
      await k.ok(['create', 'namespace', tmp]);
      await k.ok(['create', 'configmap', 'c', '-n', tmp]);
      await k.ok(['delete', 'namespace', tmp, '--timeout=30s']);
      assert.equal((await k.run(['get', 'namespace', tmp])).code, 1);
      const forbidden = await k.run(['delete', 'namespace', 'kube-system']);
      assert.match(forbidden.stderr, /this namespace may not be deleted/);
      const missing = await k.run(['create', 'configmap', 'x', '-n', 'does-not-exist']);
      assert.match(missing.stderr, /namespaces "does-not-exist" not found/);
    });
  });
}

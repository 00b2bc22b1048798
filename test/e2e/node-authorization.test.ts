// Node authorization end to end with real kubectl over HTTPS, as a kubelet would join: a node client certificate
// (CN system:node:node-a, O system:nodes, signed by the cluster CA) reads its own Node, not others, nor a secret
// until a pod bound to node-a names it; deleting the pod takes the access away again. `kubectl auth can-i` (a
// SelfSubjectAccessReview) and a SubjectAccessReview tell the same, with kube's reasons.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureNodeCredential } from '../../src/pki/node-credential.js';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

const ns = 'apps';
const forbiddenSecret = `Error from server (Forbidden): secrets "db-pass" is forbidden: User "system:node:node-a" cannot get resource "secrets" in API group "" in the namespace "${ns}": no relationship found between node 'node-a' and this object`;
let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let asNode: (args: string[]) => ReturnType<ReturnType<typeof kubectl>['run']>;
let asNodeWith: (args: string[], input: string) => ReturnType<ReturnType<typeof kubectl>['run']>;

before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  const tls = join(server.dataDir, 'tls');
  const ca = { certPem: readFileSync(join(tls, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(tls, 'ca.key'), 'utf8') };
  const cred = await ensureNodeCredential(join(server.dataDir, 'node-creds'), ca, 'node-a');
  assert.equal(statSync(cred.keyPath).mode & 0o777, 0o600);
  const flags = ['--kubeconfig=/dev/null', `--server=${server.url}`, `--certificate-authority=${join(tls, 'ca.crt')}`, `--client-certificate=${cred.certPath}`, `--client-key=${cred.keyPath}`];
  asNode = (args) => k.run([...flags, ...args]);
  asNodeWith = (args, input) => k.run([...flags, ...args], { input });
  await k.ok(['create', 'namespace', ns]);
  await k.ok(['create', 'secret', 'generic', 'db-pass', '-n', ns, '--from-literal=p=s3cret']);
  for (const name of ['node-a', 'node-b']) {
    await k.ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) });
  }
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const pod = (name: string, nodeName: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db-pass', key: 'p' } } }] }] },
});

describe('Node authorization over HTTPS', () => {
  it('knows the certificate as the node', async () => {
    const who = await asNode(['auth', 'whoami', '-o', 'json']);
    assert.equal(who.code, 0, who.stderr);
    const info = JSON.parse(who.stdout).status.userInfo;
    assert.equal(info.username, 'system:node:node-a');
    assert.deepEqual(info.groups, ['system:nodes', 'system:authenticated']);
  });

  it('reads its own Node only', async () => {
    const own = await asNode(['get', 'node', 'node-a', '-o', 'name']);
    assert.equal(own.code, 0, own.stderr);
    assert.equal(own.stdout.trim(), 'node/node-a');
    const other = await asNode(['get', 'node', 'node-b']);
    assert.equal(other.code, 1);
    assert.equal(other.stderr.trim(), `Error from server (Forbidden): nodes "node-b" is forbidden: User "system:node:node-a" cannot get resource "nodes" in API group "" at the cluster scope: node 'node-a' cannot read 'node-b', only its own Node object`);
    const all = await asNode(['get', 'nodes']);
    assert.equal(all.stderr.trim(), `Error from server (Forbidden): nodes is forbidden: User "system:node:node-a" cannot list resource "nodes" in API group "" at the cluster scope: node 'node-a' cannot read all nodes, only its own Node object`);
    assert.equal((await asNode(['auth', 'can-i', 'get', 'nodes/node-a'])).stdout.trim(), 'yes');
    assert.equal((await asNode(['auth', 'can-i', 'create', 'deployments', '-n', ns])).stdout.trim(), 'no');
  });

  it('reads a secret only while a pod bound to the node names it', async () => {
    const denied = await asNode(['get', 'secret', 'db-pass', '-n', ns]);
    assert.equal(denied.code, 1);
    assert.equal(denied.stderr.trim(), forbiddenSecret);
    const no = await asNode(['auth', 'can-i', 'get', 'secret/db-pass', '-n', ns]);
    assert.equal(no.code, 1);
    assert.equal(no.stdout.trim(), "no - no relationship found between node 'node-a' and this object");
    // a pod on another node does not help
    await k.ok(['create', '-f', '-'], { input: pod('elsewhere', 'node-b') });
    assert.equal((await asNode(['get', 'secret', 'db-pass', '-n', ns])).stderr.trim(), forbiddenSecret);

    await k.ok(['create', '-f', '-'], { input: pod('web', 'node-a') });
    const got = await until(async () => {
      const r = await asNode(['get', 'secret', 'db-pass', '-n', ns, '-o', 'jsonpath={.data.p}']);
      return r.code === 0 && r.stdout;
    }, 'node-a may read db-pass', 10_000);
    assert.equal(Buffer.from(got, 'base64').toString(), 's3cret');
    assert.equal((await asNode(['auth', 'can-i', 'get', 'secret/db-pass', '-n', ns])).stdout.trim(), 'yes');
    // still only that one: the node may not list the namespace's secrets
    const list = await asNode(['get', 'secrets', '-n', ns]);
    assert.equal(list.stderr.trim(), `Error from server (Forbidden): secrets is forbidden: User "system:node:node-a" cannot list resource "secrets" in API group "" in the namespace "${ns}": No Object name found`);

    await k.ok(['delete', 'pod', 'web', '-n', ns, '--grace-period=0', '--force']);
    await until(async () => (await asNode(['get', 'secret', 'db-pass', '-n', ns])).stderr.trim() === forbiddenSecret, 'access to end with the pod', 10_000);
    assert.equal((await asNode(['auth', 'can-i', 'get', 'secret/db-pass', '-n', ns])).stdout.trim(), "no - no relationship found between node 'node-a' and this object");
  });

  it('answers a SubjectAccessReview about the node the same way', async () => {
    const review = (name: string) => JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: 'system:node:node-a', groups: ['system:nodes', 'system:authenticated'], resourceAttributes: { verb: 'get', resource: 'nodes', name } },
    });
    const own = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: review('node-a') }));
    assert.deepEqual(own.status, { allowed: true });
    const other = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: review('node-b') }));
    assert.deepEqual(other.status, { allowed: false, reason: "node 'node-a' cannot read 'node-b', only its own Node object" });
  });

  it('keeps the node to its own objects on writes (NodeRestriction)', async () => {
    const label = await asNode(['label', 'node', 'node-a', 'node-role.kubernetes.io/worker=']);
    assert.equal(label.code, 1);
    assert.equal(label.stderr.trim(), 'Error from server (Forbidden): nodes "node-a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker');
    // kubectl label and patch read the Node first (the authorizer denies that); a raw PUT reaches admission
    const nodeB = JSON.parse(await k.ok(['get', 'node', 'node-b', '-o', 'json']));
    nodeB.metadata.labels = { ...nodeB.metadata.labels, 'example.com/x': 'y' };
    const other = await asNodeWith(['replace', '--raw', '/api/v1/nodes/node-b', '-f', '-'], JSON.stringify(nodeB));
    assert.equal(other.stderr.trim(), 'Error from server (Forbidden): nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"');
    const ok = await asNode(['label', 'node', 'node-a', 'example.com/x=y']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((await k.ok(['get', 'node', 'node-a', '-o', 'jsonpath={.metadata.labels.example\\.com/x}'])).trim(), 'y');
  });
});

// RBAC escalation prevention end to end with real kubectl, as a ServiceAccount (not system:masters) that may write
// roles and bindings in its namespace: it cannot grant what it lacks nor bind cluster-admin (kube's texts), and can
// once allowed `escalate` on roles or `bind` on cluster-admin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

const ns = 'esc';
const who = `user "system:serviceaccount:${ns}:robot" (groups=["system:serviceaccounts" "system:serviceaccounts:${ns}" "system:authenticated"])`;
let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let robot: string[];

/** runs kubectl as the ServiceAccount */
const asRobot = (args: string[], input?: string) => k.run([...robot, ...args], input === undefined ? {} : { input });

/** waits until the ServiceAccount is allowed `verb resource` (bindings are followed by a watch) */
const allowed = (verb: string, resource: string) =>
  until(async () => (await asRobot(['auth', 'can-i', verb, resource, '-n', ns])).stdout.trim() === 'yes', `robot may ${verb} ${resource}`, 10_000);

before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  await k.ok(['create', 'namespace', ns]);
  await k.ok(['create', 'serviceaccount', 'robot', '-n', ns]);
  const token = (await k.ok(['create', 'token', 'robot', '-n', ns])).trim();
  robot = ['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', `--token=${token}`];
  await k.ok(['create', 'role', 'rbac-writer', '-n', ns, '--verb=create,get,list,update,patch', '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io']);
  await k.ok(['create', 'role', 'pod-viewer', '-n', ns, '--verb=get,list', '--resource=pods']);
  await k.ok(['create', 'rolebinding', 'robot-writer', '--role=rbac-writer', `--serviceaccount=${ns}:robot`, '-n', ns]);
  await k.ok(['create', 'rolebinding', 'robot-viewer', '--role=pod-viewer', `--serviceaccount=${ns}:robot`, '-n', ns]);
  await allowed('create', 'roles');
  await allowed('list', 'pods');
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

describe('RBAC escalation prevention', () => {
  it('refuses a Role granting what the writer lacks, with kube\'s message', async () => {
    assert.equal((await asRobot(['auth', 'can-i', 'delete', 'pods', '-n', ns])).stdout.trim(), 'no');
    const r = await asRobot(['create', 'role', 'deleter', '-n', ns, '--verb=delete', '--resource=pods']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `Error from server (Forbidden): roles.rbac.authorization.k8s.io "deleter" is forbidden: ${who} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`);
    const raw = await asRobot(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'deleter', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] }],
    }));
    assert.equal(raw.stderr.trim(), `Error from server (Forbidden): error when creating "STDIN": roles.rbac.authorization.k8s.io "deleter" is forbidden: ${who} is attempting to grant RBAC permissions not currently held:\n` +
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}');
  });

  it('allows a Role granting what the writer holds, and binding it', async () => {
    const r = await asRobot(['create', 'role', 'pod-reader', '-n', ns, '--verb=get', '--resource=pods']);
    assert.equal(r.code, 0, r.stderr);
    const b = await asRobot(['create', 'rolebinding', 'someone-reads', '--role=pod-reader', '--user=someone', '-n', ns]);
    assert.equal(b.code, 0, b.stderr);
  });

  it('refuses binding cluster-admin', async () => {
    const r = await asRobot(['create', 'rolebinding', 'robot-admin', '--clusterrole=cluster-admin', `--serviceaccount=${ns}:robot`, '-n', ns]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "robot-admin" is forbidden: ${who} is attempting to grant RBAC permissions not currently held:\n` +
      '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}');
  });

  it('allows the Role once the writer may escalate roles', async () => {
    await k.ok(['create', 'role', 'escalator', '-n', ns, '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io']);
    await k.ok(['create', 'rolebinding', 'robot-escalator', '--role=escalator', `--serviceaccount=${ns}:robot`, '-n', ns]);
    await allowed('escalate', 'roles.rbac.authorization.k8s.io');
    const r = await asRobot(['create', 'role', 'deleter', '-n', ns, '--verb=delete', '--resource=pods']);
    assert.equal(r.code, 0, r.stderr);
    // escalate is not bind: the role still cannot be bound to anyone by a writer who cannot delete pods
    const b = await asRobot(['create', 'rolebinding', 'robot-deletes', '--role=deleter', `--serviceaccount=${ns}:robot`, '-n', ns]);
    assert.match(b.stderr, /rolebindings.rbac.authorization.k8s.io "robot-deletes" is forbidden: .* is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["delete"\]\}/);
  });

  it('binds cluster-admin once the writer may bind it', async () => {
    await k.ok(['create', 'role', 'admin-binder', '-n', ns, '--verb=bind', '--resource=clusterroles.rbac.authorization.k8s.io', '--resource-name=cluster-admin']);
    await k.ok(['create', 'rolebinding', 'robot-binder', '--role=admin-binder', `--serviceaccount=${ns}:robot`, '-n', ns]);
    await until(async () => (await asRobot(['auth', 'can-i', 'bind', 'clusterroles/cluster-admin', '-n', ns])).stdout.trim() === 'yes', 'robot may bind cluster-admin', 10_000);
    const r = await asRobot(['create', 'rolebinding', 'robot-admin', '--clusterrole=cluster-admin', `--serviceaccount=${ns}:robot`, '-n', ns]);
    assert.equal(r.code, 0, r.stderr);
    await allowed('delete', 'pods');
    // but only cluster-admin, and only in this namespace: a ClusterRoleBinding needs cluster-wide rights
    const crb = await asRobot(['create', 'clusterrolebinding', 'robot-admin', '--clusterrole=cluster-admin', `--serviceaccount=${ns}:robot`]);
    assert.match(crb.stderr, /clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:esc:robot" cannot create resource "clusterrolebindings"/);
  });
});

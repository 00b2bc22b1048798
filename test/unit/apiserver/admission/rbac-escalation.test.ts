// RBAC escalation prevention through a real in-process API with the RBAC authorizer: a user who may write roles
// and bindings in a namespace can only grant what it holds, unless allowed `escalate` or `bind`; kube's texts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RbacAuthorizer, alwaysAllow } from '../../../../src/apiserver/auth/rbac-authorizer.js';
import { LocalClient } from '../../../../src/client/local.js';
import type { KObject } from '../../../../src/api/types.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { clusterRoleAggregationController } from '../../../../src/controllers/clusterrole-aggregation.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
const GROUP = 'rbac.authorization.k8s.io';
const alice = { name: 'alice', groups: ['g', 'system:authenticated'] };
const HEAD = 'user "alice" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n';
const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]) => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const role = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({ apiVersion: RBAC, kind: 'Role', metadata: { name }, rules, ...extra }) as unknown as KObject;
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, refKind: string, refName: string, user = 'alice') =>
  ({ apiVersion: RBAC, kind, metadata: { name }, roleRef: { apiGroup: GROUP, kind: refKind, name: refName }, subjects: [{ kind: 'User', name: user, apiGroup: GROUP }] }) as unknown as KObject;

async function rejects(p: Promise<unknown>, code: number, message: string): Promise<StatusError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  assert.ok(e instanceof StatusError, `expected a ${code}, got ${String(e)}`);
  assert.equal(e.message, message);
  assert.equal(e.code, code);
  return e;
}

describe('RBAC escalation prevention', () => {
  let c: ControllerCluster;
  let authz: RbacAuthorizer;
  let as: LocalClient;
  const admin = () => c.client;
  before(async () => {
    c = await controllerCluster([clusterRoleAggregationController()]);
    authz = new RbacAuthorizer((plural) => c.registry.mustLookup(GROUP, 'v1', plural));
    await authz.start();
    c.registry.authorizer = authz;
    as = new LocalClient(c.registry, alice);
    await admin().resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } as KObject);
    // alice writes roles and bindings in team, and may read pods there (not delete them)
    await admin().resource(RBAC, 'roles').create('team', role('rbac-writer', [
      rule(['create', 'get', 'update', 'patch', 'list'], [GROUP], ['roles', 'rolebindings']),
      rule(['get', 'list'], [''], ['pods']),
    ]));
    await admin().resource(RBAC, 'rolebindings').create('team', binding('RoleBinding', 'alice-writer', 'Role', 'rbac-writer'));
  });
  after(async () => {
    authz.stop();
    await c.close();
  });

  it('refuses a Role granting what the writer lacks, with kube\'s text', async () => {
    const e = await rejects(as.resource(RBAC, 'roles').create('team', role('deleter', [rule(['get', 'delete'], [''], ['pods'])])), 403,
      `roles.rbac.authorization.k8s.io "deleter" is forbidden: ${HEAD}{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`);
    assert.equal(e.reason, 'Forbidden');
    assert.deepEqual(e.details, { name: 'deleter', group: GROUP, kind: 'roles' });
  });

  it('allows a Role granting what the writer holds, in that namespace only', async () => {
    await as.resource(RBAC, 'roles').create('team', role('reader', [rule(['get'], [''], ['pods'])]));
    await admin().resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } as KObject);
    await admin().resource(RBAC, 'rolebindings').create('other', binding('RoleBinding', 'alice-writer', 'ClusterRole', 'system:aggregate-to-admin'));
    await rejects(as.resource(RBAC, 'roles').create('other', role('reader', [rule(['get'], [''], ['pods'])])), 403,
      `roles.rbac.authorization.k8s.io "reader" is forbidden: ${HEAD}{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`);
  });

  it('checks updates too, but not an update of finalizers alone', async () => {
    const roles = as.resource(RBAC, 'roles');
    const current = (await roles.get('team', 'reader')) as KObject & { rules: unknown[] };
    await rejects(roles.update('team', { ...current, rules: [rule(['*'], [''], ['pods'])] } as KObject), 403,
      `roles.rbac.authorization.k8s.io "reader" is forbidden: ${HEAD}{APIGroups:[""], Resources:["pods"], Verbs:["*"]}`);
    await admin().resource(RBAC, 'roles').create('team', role('wide', [rule(['*'], ['*'], ['*'])]));
    const wide = await roles.get('team', 'wide');
    await roles.update('team', { ...wide, metadata: { ...wide.metadata, finalizers: ['example.com/keep'] } });
  });

  it('refuses binding a role whose rules the writer lacks, unless allowed to bind it', async () => {
    const bindings = as.resource(RBAC, 'rolebindings');
    await rejects(bindings.create('team', binding('RoleBinding', 'me-admin', 'ClusterRole', 'cluster-admin')), 403,
      `rolebindings.rbac.authorization.k8s.io "me-admin" is forbidden: ${HEAD}{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`);
    await bindings.create('team', binding('RoleBinding', 'bob-reader', 'Role', 'reader', 'bob'));
    await rejects(bindings.create('team', binding('RoleBinding', 'ghost', 'Role', 'missing')), 404, 'roles.rbac.authorization.k8s.io "missing" not found');
    await admin().resource(RBAC, 'roles').create('team', role('binder', [rule(['bind'], [GROUP], ['clusterroles'], ['cluster-admin'])]));
    await admin().resource(RBAC, 'rolebindings').create('team', binding('RoleBinding', 'alice-binder', 'Role', 'binder'));
    await bindings.create('team', binding('RoleBinding', 'me-admin', 'ClusterRole', 'cluster-admin'));
  });

  it('allows any Role to a writer allowed to escalate', async () => {
    // alice is cluster-admin in team by now; a fresh user with escalate only shows the verb's effect
    const carol = new LocalClient(c.registry, { name: 'carol', groups: ['system:authenticated'] });
    await admin().resource(RBAC, 'roles').create('team', role('role-creator', [rule(['create'], [GROUP], ['roles'])]));
    await admin().resource(RBAC, 'rolebindings').create('team', binding('RoleBinding', 'carol-creator', 'Role', 'role-creator', 'carol'));
    const deleter = role('deleter', [rule(['delete'], [''], ['pods'])]);
    await assert.rejects(carol.resource(RBAC, 'roles').create('team', deleter), { code: 403 });
    await admin().resource(RBAC, 'roles').create('team', role('escalator', [rule(['escalate'], [GROUP], ['roles'])]));
    await admin().resource(RBAC, 'rolebindings').create('team', binding('RoleBinding', 'carol-escalator', 'Role', 'escalator', 'carol'));
    await carol.resource(RBAC, 'roles').create('team', deleter);
  });

  it('needs every permission for a ClusterRole aggregationRule, and reports bindings to missing roles', async () => {
    const dave = new LocalClient(c.registry, { name: 'dave', groups: [] });
    await admin().resource(RBAC, 'clusterroles').create('', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'cr-writer' }, rules: [rule(['create'], [GROUP], ['clusterroles']), rule(['get'], [''], ['pods'])] } as KObject);
    await admin().resource(RBAC, 'clusterrolebindings').create('', binding('ClusterRoleBinding', 'dave-cr', 'ClusterRole', 'cr-writer', 'dave'));
    await dave.resource(RBAC, 'clusterroles').create('', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'pod-getter' }, rules: [rule(['get'], [''], ['pods'])] } as KObject);
    const aggregated = { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } } as unknown as KObject;
    await rejects(dave.resource(RBAC, 'clusterroles').create('', aggregated), 403, 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    await admin().resource(RBAC, 'clusterrolebindings').create('', binding('ClusterRoleBinding', 'dave-ghost', 'ClusterRole', 'ghost', 'dave'));
    await rejects(dave.resource(RBAC, 'clusterroles').create('', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'lister' }, rules: [rule(['list'], [''], ['pods'])] } as KObject), 403,
      'clusterroles.rbac.authorization.k8s.io "lister" is forbidden: user "dave" (groups=[]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "ghost" not found]');
  });

  it('lets system:masters and AlwaysAllow grant anything', async () => {
    await admin().resource(RBAC, 'roles').create('team', role('everything', [rule(['*'], ['*'], ['*'])]));
    c.registry.authorizer = alwaysAllow;
    try {
      await as.resource(RBAC, 'roles').create('other', role('everything', [rule(['*'], ['*'], ['*'])]));
    } finally {
      c.registry.authorizer = authz;
    }
  });
});

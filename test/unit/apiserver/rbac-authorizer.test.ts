// RBAC decisions over the bootstrap policy and user-made roles, through a real in-process API (SQLite in memory):
// every rule form (verbs, groups, resources, subresources, */sub, resourceNames, non-resource URLs with *),
// every subject kind, Role vs ClusterRole refs, aggregated roles (with the clusterrole-aggregation controller, as in
// kube), and kube's 403 texts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forbiddenStatus, ruleAllows, type RequestAttributes } from '../../../src/api/rbac/rules.js';
import { RbacAuthorizer } from '../../../src/apiserver/auth/rbac-authorizer.js';
import { requestAttributes as fromInfo } from '../../../src/apiserver/auth/request-attributes.js';
import { parseRequestInfo } from '../../../src/apiserver/handlers/request-info.js';
import type { KObject } from '../../../src/api/types.js';
import { clusterRoleAggregationController } from '../../../src/controllers/clusterrole-aggregation.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
const res = (verb: string, resource: string, o: Partial<RequestAttributes> = {}): RequestAttributes => ({
  verb, resourceRequest: true, apiGroup: '', resource, subresource: '', namespace: '', name: '', path: '', ...o,
});
/** the attributes of an HTTP request, as the API server derives them */
function requestAttributes(method: string, target: string): RequestAttributes {
  const [path, qs = ''] = target.split(/\?(.*)/s);
  return fromInfo(method, parseRequestInfo(method, path, new URLSearchParams(qs)));
}
const url = (verb: string, path: string): RequestAttributes => ({ verb, resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path });

describe('RBAC rule matching', () => {
  it('matches verbs, groups, resources, subresources and names as kube does', () => {
    const r = { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'] };
    assert.ok(ruleAllows(res('get', 'deployments', { apiGroup: 'apps' }), r));
    assert.ok(!ruleAllows(res('get', 'deployments', { apiGroup: '' }), r), 'another group');
    assert.ok(!ruleAllows(res('delete', 'deployments', { apiGroup: 'apps' }), r), 'another verb');
    assert.ok(ruleAllows(res('get', 'deployments', { apiGroup: 'apps', subresource: 'scale' }), r));
    assert.ok(!ruleAllows(res('get', 'deployments', { apiGroup: 'apps', subresource: 'status' }), r), 'a subresource needs its own entry');
    assert.ok(ruleAllows(res('patch', 'statefulsets', { apiGroup: 'apps', subresource: 'scale' }), { verbs: ['*'], apiGroups: ['*'], resources: ['*/scale'] }));
    const named = { verbs: ['get', 'update', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] };
    assert.ok(ruleAllows(res('get', 'configmaps', { name: 'one' }), named));
    assert.ok(!ruleAllows(res('get', 'configmaps', { name: 'two' }), named));
    assert.ok(!ruleAllows(res('list', 'configmaps'), named), 'a list has no name');
    assert.ok(!ruleAllows(res('get', 'configmaps', { name: 'one' }), { verbs: ['get'], nonResourceURLs: ['*'] }), 'URL rules never match resources');
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const r = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    assert.ok(ruleAllows(url('get', '/healthz'), r));
    assert.ok(!ruleAllows(url('get', '/healthz/etcd'), r));
    assert.ok(ruleAllows(url('get', '/apis/apps/v1'), r));
    assert.ok(!ruleAllows(url('post', '/healthz'), r));
  });

  it('derives attributes from requests as kube-apiserver does', () => {
    assert.deepEqual(requestAttributes('GET', '/api/v1/namespaces/ns/pods?watch=1'), { ...res('watch', 'pods', { namespace: 'ns', apiVersion: 'v1' }), path: '/api/v1/namespaces/ns/pods' });
    assert.equal(requestAttributes('DELETE', '/apis/apps/v1/namespaces/ns/deployments').verb, 'deletecollection');
    assert.equal(requestAttributes('GET', '/api/v1/namespaces/ns').namespace, 'ns', 'a namespace is in itself');
    assert.equal(requestAttributes('GET', '/api/v1/namespaces/ns/pods/p/exec?command=sh').verb, 'create', 'WebSocket exec needs create');
    assert.deepEqual(requestAttributes('GET', '/healthz?verbose'), url('get', '/healthz'));
  });

  it('words 403s as kube-apiserver', () => {
    const sa = 'system:serviceaccount:ns:sa';
    assert.deepEqual(forbiddenStatus(sa, res('list', 'pods', { namespace: 'ns' })), {
      message: 'pods is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "pods" in API group "" in the namespace "ns"',
      details: { kind: 'pods' },
    });
    assert.deepEqual(forbiddenStatus('jane', res('get', 'deployments', { apiGroup: 'apps', name: 'web', namespace: 'ns', subresource: 'scale' })), {
      message: 'deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns"',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
    assert.equal(forbiddenStatus('jane', res('list', 'nodes')).message, 'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope');
    assert.deepEqual(forbiddenStatus('jane', url('get', '/metrics')), { message: 'forbidden: User "jane" cannot get path "/metrics"', details: {} });
  });
});

describe('the RBAC authorizer over the bootstrap policy', () => {
  let c: ControllerCluster;
  let authz: RbacAuthorizer;
  const create = (plural: string, ns: string, obj: Record<string, unknown>) => c.client.resource(RBAC, plural).create(ns, obj as KObject);
  const jane = { name: 'jane', groups: ['devs', 'system:authenticated'] };
  const robot = { name: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };
  before(async () => {
    c = await controllerCluster([clusterRoleAggregationController()]);
    authz = new RbacAuthorizer((plural) => c.registry.mustLookup('rbac.authorization.k8s.io', 'v1', plural));
    await authz.start();
  });
  after(async () => {
    authz.stop();
    await c.close();
  });

  it('allows system:masters everything and authenticated users discovery and self-reviews only', () => {
    assert.ok(authz.authorize({ name: 'admin', groups: ['system:masters'] }, res('delete', 'nodes', { name: 'n' })).allowed);
    assert.deepEqual(authz.authorize(jane, url('get', '/apis/apps')), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' });
    assert.ok(authz.authorize(jane, url('get', '/version')).allowed);
    assert.ok(authz.authorize(jane, res('create', 'selfsubjectaccessreviews', { apiGroup: 'authorization.k8s.io' })).allowed);
    assert.ok(authz.authorize(jane, res('create', 'selfsubjectreviews', { apiGroup: 'authentication.k8s.io' })).allowed);
    assert.deepEqual(authz.authorize(jane, res('list', 'pods', { namespace: 'team' })), { allowed: false, reason: '' });
    assert.ok(!authz.authorize(jane, url('get', '/metrics')).allowed);
  });

  it('binds Roles and ClusterRoles to users, groups and ServiceAccounts, per namespace', async () => {
    await c.client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } as KObject);
    await create('roles', 'team', { apiVersion: RBAC, kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }] });
    await create('rolebindings', 'team', { apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: 'devs-read' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'Group', name: 'devs' }] });
    await create('rolebindings', 'team', { apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: 'robot-edit' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] });
    assert.ok(authz.authorize(jane, res('get', 'configmaps', { namespace: 'team', name: 'settings' })).allowed);
    assert.ok(!authz.authorize(jane, res('get', 'configmaps', { namespace: 'team', name: 'other' })).allowed);
    assert.ok(!authz.authorize(jane, res('get', 'configmaps', { namespace: 'default', name: 'settings' })).allowed, 'a RoleBinding grants only in its namespace');
    // edit is aggregated from system:aggregate-to-edit and (through view) system:aggregate-to-view
    const d = await c.waitFor('edit to be aggregated', () => {
      const r = authz.authorize(robot, res('create', 'deployments', { apiGroup: 'apps', namespace: 'team' }));
      return r.allowed && authz.authorize(robot, res('list', 'pods', { namespace: 'team' })).allowed ? r : undefined;
    });
    assert.deepEqual(d, { allowed: true, reason: 'RBAC: allowed by RoleBinding "robot-edit/team" of ClusterRole "edit" to ServiceAccount "team/robot"' });
    assert.ok(authz.authorize(robot, res('list', 'pods', { namespace: 'team' })).allowed, 'view rules through edit');
    assert.ok(!authz.authorize(robot, res('create', 'roles', { apiGroup: 'rbac.authorization.k8s.io', namespace: 'team' })).allowed, 'admin powers are not in edit');
    assert.ok(!authz.authorize(robot, res('list', 'pods', { namespace: 'default' })).allowed);
    assert.ok(!authz.authorize({ ...robot, name: 'system:serviceaccount:other:robot' }, res('list', 'pods', { namespace: 'team' })).allowed, 'same name, other namespace');
  });

  it('follows changes: a new aggregate-to-view role widens view once aggregated, a deleted binding takes access away at once', async () => {
    await create('clusterrolebindings', '', { apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: 'jane-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane' }] });
    assert.ok(authz.authorize(jane, res('list', 'pods', { namespace: 'anywhere' })).allowed, 'a new binding counts at once');
    const widgets = res('list', 'widgets', { apiGroup: 'example.com', namespace: 'team' });
    assert.ok(!authz.authorize(jane, widgets).allowed);
    await create('clusterroles', '', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ verbs: ['list'], apiGroups: ['example.com'], resources: ['widgets'] }] });
    await c.waitFor('view to aggregate widgets', () => authz.authorize(jane, widgets).allowed);
    await c.client.resource(RBAC, 'clusterrolebindings').delete('', 'jane-view');
    assert.ok(!authz.authorize(jane, widgets).allowed);
    assert.ok(!authz.authorize(jane, res('list', 'pods', { namespace: 'anywhere' })).allowed, 'nor a decision remembered from before');
    // rules review: what jane may do in team (the devs Role plus the self-review rules)
    const rules = authz.rulesFor(jane, 'team');
    assert.ok(rules.some((r) => r.resourceNames?.includes('settings')));
    assert.ok(rules.some((r) => r.resources?.includes('selfsubjectaccessreviews')));
  });

  it('remembers decisions only while no role or binding changes', async () => {
    const get = res('get', 'secrets', { namespace: 'team', name: 's' });
    assert.ok(!authz.authorize(jane, get).allowed);
    await create('roles', 'team', { apiVersion: RBAC, kind: 'Role', metadata: { name: 'secret-reader' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }] });
    await create('rolebindings', 'team', { apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: 'jane-secrets' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' }, subjects: [{ kind: 'User', name: 'jane' }] });
    assert.ok(!authz.authorize(jane, get).allowed, 'list only');
    const roles = c.client.resource(RBAC, 'roles');
    const role = await roles.get('team', 'secret-reader');
    await roles.update('team', { ...role, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }] } as KObject);
    assert.deepEqual(authz.authorize(jane, get), { allowed: true, reason: 'RBAC: allowed by RoleBinding "jane-secrets/team" of Role "secret-reader" to User "jane"' });
    assert.ok(!authz.authorize({ ...jane, groups: ['system:authenticated'] }, res('get', 'configmaps', { namespace: 'team', name: 'settings' })).allowed, 'groups are part of the user');
    assert.ok(authz.authorize(jane, res('get', 'configmaps', { namespace: 'team', name: 'settings' })).allowed);
    await c.client.resource(RBAC, 'rolebindings').delete('team', 'jane-secrets');
    assert.ok(!authz.authorize(jane, get).allowed);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { rbacResources } from '../../../../src/api/rbac/index.js';
import { rejects } from '../registry-harness.js';
import type { KObject } from '../../../../src/api/types.js';

const RBAC = 'rbac.authorization.k8s.io/v1';


describe('RBAC through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...rbacResources], [metaDefinitions, coreDefinitions]);
    client = new LocalClient(registry);
    await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    await store.close();
  });

  it('creates a Role and rejects a non-resource rule in it', async () => {
    const roles = client.resource(RBAC, 'roles');
    const r = await roles.create('default', {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    assert.equal(r.metadata.namespace, 'default');
    assert.equal(r.metadata.generation, undefined);
    await rejects(
      roles.create('default', { apiVersion: RBAC, kind: 'Role', metadata: { name: 'bad' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }),
      422,
      'Role.rbac.authorization.k8s.io "bad" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    );
  });

  it('creates a ClusterRole with an aggregation rule and non-resource URLs', async () => {
    const cr = await client.resource(RBAC, 'clusterroles').create('', {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'monitoring' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    assert.equal(cr.metadata.namespace, undefined);
  });

  it('defaults binding API groups and keeps roleRef immutable', async () => {
    const rbs = client.resource(RBAC, 'rolebindings');
    const rb = await rbs.create('default', {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'read-pods' },
      roleRef: { kind: 'Role', name: 'pod-reader' },
      subjects: [
        { kind: 'User', name: 'jane' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
      ],
    });
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
    assert.deepEqual(rb.subjects, [
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
    ]);
    const changed: KObject = { ...rb, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } };
    await rejects(
      rbs.update('default', changed),
      422,
      'RoleBinding.rbac.authorization.k8s.io "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef',
    );
    const subjectsOnly = await rbs.update('default', { ...rb, subjects: [{ kind: 'Group', name: 'devs' }] });
    assert.deepEqual(subjectsOnly.subjects, [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }]);
  });

  it('requires a namespace for service accounts in a ClusterRoleBinding and creates on PUT', async () => {
    const crbs = client.resource(RBAC, 'clusterrolebindings');
    await rejects(
      crbs.create('', {
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'x' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
        subjects: [{ kind: 'ServiceAccount', name: 'default' }],
      }),
      422,
      'ClusterRoleBinding.rbac.authorization.k8s.io "x" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value]',
    );
    const created = await crbs.update('', {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'admins' },
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: 'system:masters' }],
    });
    assert.equal(created.metadata.name, 'admins');
    assert.equal((created.roleRef as { apiGroup: string }).apiGroup, 'rbac.authorization.k8s.io');
  });

  it('accepts names that are only path segments', async () => {
    const cr = await client.resource(RBAC, 'clusterroles').create('', {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'system:controller:Foo_Bar' },
      rules: [],
    });
    assert.equal(cr.metadata.name, 'system:controller:Foo_Bar');
    await rejects(
      client.resource(RBAC, 'clusterroles').create('', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'a%b' } }),
      422,
      `ClusterRole.rbac.authorization.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`,
    );
  });
});

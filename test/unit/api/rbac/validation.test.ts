import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clusterRoleBindingResource,
  clusterRoleResource,
  rbacDefinitions,
  rbacResources,
  roleBindingResource,
  roleResource,
  subjectsStrings,
} from '../../../../src/api/rbac/index.js';
import { columnsOf } from '../../../../src/apiserver/handlers/table.js';
import type { KObject } from '../../../../src/api/types.js';

const msgs = (errs: { toString(): string }[]) => errs.map(String);
const rb = (extra: Record<string, unknown>): KObject => ({ metadata: { name: 'b', namespace: 'ns' }, ...extra });
const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' };

describe('RBAC definitions', () => {
  it('serves the four kinds with kube names and scopes', () => {
    assert.deepEqual(
      rbacResources.map((r) => [r.kind, r.plural, r.namespaced, r.group, r.shortNames ?? []]),
      [
        ['ClusterRoleBinding', 'clusterrolebindings', false, 'rbac.authorization.k8s.io', []],
        ['ClusterRole', 'clusterroles', false, 'rbac.authorization.k8s.io', []],
        ['RoleBinding', 'rolebindings', true, 'rbac.authorization.k8s.io', []],
        ['Role', 'roles', true, 'rbac.authorization.k8s.io', []],
      ],
    );
    for (const r of rbacResources) {
      assert.equal(r.strategy.allowCreateOnUpdate, true);
      assert.ok(!r.hasGeneration);
      assert.ok(rbacDefinitions[r.schemaRef.replace(/$/, 'List')], `${r.kind}List`);
    }
    assert.equal(rbacDefinitions['io.k8s.api.rbac.v1.Subject'].mapType, 'atomic');
    assert.equal(rbacDefinitions['io.k8s.api.rbac.v1.RoleRef'].mapType, 'atomic');
  });
});

describe('Role and ClusterRole validation', () => {
  const role = (rules: unknown[]): KObject => ({ metadata: { name: 'r', namespace: 'ns' }, rules });
  it('requires verbs, groups and resources', () => {
    assert.deepEqual(msgs(roleResource.strategy.validate!(role([{}]))), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
    assert.deepEqual(roleResource.strategy.validate!(role([{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }])), []);
  });

  it('keeps non-resource URLs to cluster roles and apart from resource rules', () => {
    assert.deepEqual(msgs(roleResource.strategy.validate!(role([{ nonResourceURLs: ['/x'], verbs: ['get'] }]))), [
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    assert.deepEqual(msgs(clusterRoleResource.strategy.validate!(role([{ nonResourceURLs: ['/x'], resources: ['pods'], verbs: ['get'] }]))), [
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
    assert.deepEqual(clusterRoleResource.strategy.validate!(role([{ nonResourceURLs: ['/healthz', '/api/*'], verbs: ['get'] }])), []);
  });

  it('validates aggregation selectors', () => {
    const cr = (aggregationRule: unknown): KObject => ({ metadata: { name: 'c' }, aggregationRule });
    assert.deepEqual(msgs(clusterRoleResource.strategy.validate!(cr({}))), [
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    assert.deepEqual(msgs(clusterRoleResource.strategy.validate!(cr({ clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] }))), [
      "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    ]);
  });
});

describe('RoleBinding and ClusterRoleBinding', () => {
  it('defaults the API groups of roleRef and User/Group subjects only', () => {
    const o = rb({ roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's' }] });
    roleBindingResource.strategy.defaults!(o);
    assert.deepEqual(o.roleRef, { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    assert.deepEqual(o.subjects, [
      { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'g', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 's' },
    ]);
    const empty = rb({});
    roleBindingResource.strategy.defaults!(empty);
    assert.deepEqual(empty.roleRef, { apiGroup: 'rbac.authorization.k8s.io' });
  });

  it('validates roleRef and subjects with kube messages', () => {
    const errs = roleBindingResource.strategy.validate!(
      rb({
        roleRef: { apiGroup: 'x', kind: 'Pod', name: '' },
        subjects: [
          { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: 'v1' },
          { kind: 'User', name: 'u', apiGroup: '' },
          { kind: 'Robot', name: '' },
        ],
      }),
    );
    assert.deepEqual(msgs(errs), [
      'roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
      `subjects[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'subjects[0].apiGroup: Unsupported value: "v1": supported values: ""',
      'subjects[1].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"',
      'subjects[2].name: Required value',
      'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    assert.deepEqual(msgs(roleBindingResource.strategy.validate!(rb({ roleRef: { ...ref, name: 'a/b' } }))), [
      `roleRef.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it('only ClusterRoles for ClusterRoleBindings, and service accounts need a namespace there', () => {
    assert.deepEqual(
      msgs(clusterRoleBindingResource.strategy.validate!({ metadata: { name: 'c' }, roleRef: ref, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] })),
      ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"', 'subjects[0].namespace: Required value'],
    );
  });

  it('refuses to change roleRef on update', () => {
    const old = rb({ roleRef: ref });
    assert.deepEqual(roleBindingResource.strategy.validateUpdate!(rb({ roleRef: { ...ref } }), old), []);
    assert.deepEqual(msgs(clusterRoleBindingResource.strategy.validateUpdate!(rb({ roleRef: { ...ref, name: 'other' } }), old)), [
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
    ]);
  });

  it('names are path segments', () => {
    assert.deepEqual(roleResource.strategy.validateName!('system:kube-scheduler', false), []);
    assert.deepEqual(roleResource.strategy.validateName!('..', false), ["may not be '..'"]);
  });
});

describe('RBAC tables', () => {
  const now = Date.parse('2024-01-01T01:00:00Z');
  it('roles use the default NAME / CREATED AT table', () => {
    const cols = columnsOf(roleResource);
    assert.deepEqual(cols.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
    const o: KObject = { metadata: { name: 'r', creationTimestamp: '2024-01-01T00:00:00Z' } };
    assert.deepEqual(cols.map((c) => c.cell(o, { now })), ['r', '2024-01-01T00:00:00Z']);
    assert.deepEqual(columnsOf(clusterRoleResource).map((c) => c.name), ['Name', 'Created At']);
  });

  it('bindings print NAME ROLE AGE and wide USERS GROUPS SERVICEACCOUNTS', () => {
    for (const def of [roleBindingResource, clusterRoleBindingResource]) {
      assert.deepEqual(def.columns.map((c) => [c.name, c.priority ?? 0]), [
        ['Name', 0],
        ['Role', 0],
        ['Age', 0],
        ['Users', 1],
        ['Groups', 1],
        ['ServiceAccounts', 1],
      ]);
    }
    const o = rb({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'a' },
        { kind: 'User', name: 'b' },
        { kind: 'Group', name: 'g' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'kube-system' },
      ],
    });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(roleBindingResource.columns.map((c) => c.cell(o, { now })), ['b', 'ClusterRole/view', '60m', 'a, b', 'g', 'kube-system/sa']);
    assert.deepEqual(subjectsStrings(rb({})), { users: [], groups: [], serviceAccounts: [] });
    assert.deepEqual(roleBindingResource.columns.slice(3).map((c) => c.cell(rb({ roleRef: ref }), { now })), ['', '', '']);
  });
});

// The clusterrole-aggregation controller over the bootstrap policy: admin/edit/view get the rules of the roles their
// selectors match, and follow a new aggregate-to-* role and its removal.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { clusterRoleAggregationController } from '../../../src/controllers/clusterrole-aggregation.js';
import { controllerCluster, type ControllerCluster } from './harness.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[] };
let c: ControllerCluster;
before(async () => {
  c = await controllerCluster([clusterRoleAggregationController()]);
});
after(() => c.close());

const rulesOf = async (name: string) => ((await c.client.resource(RBAC, 'clusterroles').get('', name)) as KObject & { rules?: Rule[] }).rules ?? [];

it('fills admin, edit and view with the rules of the roles they aggregate', async () => {
  const view = await c.waitFor('view to be aggregated', async () => ((await rulesOf('view')).length ? rulesOf('view') : undefined));
  assert.deepEqual(view, await rulesOf('system:aggregate-to-view'));
  // edit selects aggregate-to-edit: system:aggregate-to-edit and view (which is labelled aggregate-to-edit)
  const edit = await c.waitFor('edit to include view', async () => {
    const r = await rulesOf('edit');
    return r.some((x) => x.resources?.includes('controllerrevisions')) ? r : undefined;
  });
  assert.ok(edit.some((x) => x.verbs.includes('create') && x.resources?.includes('deployments')));
  const admin = await c.waitFor('admin to include edit', async () => {
    const r = await rulesOf('admin');
    return r.some((x) => x.resources?.includes('rolebindings')) && r.some((x) => x.resources?.includes('deployments')) ? r : undefined;
  });
  assert.equal(new Set(admin.map((r) => JSON.stringify(r))).size, admin.length, 'no duplicate rules');
});

it('follows a new aggregate-to-view role and its deletion', async () => {
  const widgets = { verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources: ['widgets'] };
  await c.client.resource(RBAC, 'clusterroles').create('', { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [widgets] } as KObject);
  await c.waitFor('view to include widgets', async () => (await rulesOf('view')).some((r) => r.resources?.includes('widgets')));
  await c.waitFor('edit and admin too', async () => (await rulesOf('edit')).some((r) => r.resources?.includes('widgets')) && (await rulesOf('admin')).some((r) => r.resources?.includes('widgets')));
  await c.client.resource(RBAC, 'clusterroles').delete('', 'widgets-view');
  await c.waitFor('view without widgets', async () => !(await rulesOf('view')).some((r) => r.resources?.includes('widgets')));
});

// NodeRestriction over a real in-process API (Node,RBAC), through a node's own client: its own Node only (no
// restricted labels, no taint changes), mirror pods only, status and evictions of its own pods, its own Lease,
// tokens bound to its own pods for audiences they use; kube's texts. Nothing denied is stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import type { LocalClient } from '../../../../src/client/local.js';
import { buildAuthorizer, type ClusterAuthorizer } from '../../../../src/cluster/authorizers.js';
import { nodeUser } from '../../../../src/pki/node-credential.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { ServiceAccountTokens } from '../../../../src/pki/service-account-tokens.js';
import { createSigningKeyPair } from '../../../../src/pki/certs.js';

const node = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } }) as unknown as KObject;
const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], ...extra } }) as unknown as KObject;

async function forbidden(p: Promise<unknown>, message: string): Promise<void> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  assert.ok(e instanceof StatusError, `expected a 403, got ${String(e)}`);
  assert.equal(e.code, 403);
  assert.equal(e.reason, 'Forbidden');
  assert.equal(e.message, message);
}

describe('NodeRestriction admission', () => {
  let c: ControllerCluster;
  let authz: ClusterAuthorizer;
  let n1: LocalClient;
  before(async () => {
    const keys = createSigningKeyPair();
    c = await controllerCluster([], { api: { tokens: await ServiceAccountTokens.load(keys.privateKeyPem, keys.publicKeyPem) } });
    authz = buildAuthorizer(c.registry, 'Node,RBAC');
    await authz.start();
    c.registry.authorizer = authz.authorizer;
    n1 = c.client.asUser(nodeUser('n1'));
    await c.client.resource('v1', 'nodes').create('', node('n2'));
    await c.client.resource('v1', 'pods').create('default', pod('mine', 'n1', {
      volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 't' } }] } }],
    }));
    await c.client.resource('v1', 'pods').create('default', pod('theirs', 'n2'));
  });
  after(async () => {
    authz.stop();
    await c.close();
  });

  it('lets a node register itself with kubelet labels only', async () => {
    await forbidden(n1.resource('v1', 'nodes').create('', node('n3')), 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    await forbidden(n1.resource('v1', 'nodes').create('', node('n1', { 'node-role.kubernetes.io/control-plane': 'true', 'node-restriction.kubernetes.io/x': 'y', 'example.com/ok': '1' })),
      'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.kubernetes.io/x, node-role.kubernetes.io/control-plane');
    await assert.rejects(c.client.resource('v1', 'nodes').get('', 'n1'), (e: StatusError) => e.code === 404);
    const created = await n1.resource('v1', 'nodes').create('', node('n1', { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/instance-type': 'x', 'example.com/ok': '1' }));
    assert.equal(created.metadata.name, 'n1');
  });

  it('lets a node change its own Node but not its taints or restricted labels', async () => {
    await forbidden(n1.resource('v1', 'nodes').patch('', 'n2', 'merge', { metadata: { labels: { a: 'b' } } }), 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    await forbidden(n1.resource('v1', 'nodes').patch('', 'n1', 'merge', { metadata: { labels: { 'foo.kubernetes.io/x': 'y' } } }), 'nodes "n1" is forbidden: is not allowed to modify labels: foo.kubernetes.io/x');
    await forbidden(n1.resource('v1', 'nodes').patch('', 'n1', 'merge', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }), 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    const ok = await n1.resource('v1', 'nodes').patch('', 'n1', 'merge', { metadata: { labels: { 'kubelet.kubernetes.io/role': 'w', 'example.com/ok': '2' } } });
    assert.equal(ok.metadata.labels?.['example.com/ok'], '2');
  });

  it('lets a node create mirror pods only, and delete only its own pods', async () => {
    await forbidden(n1.resource('v1', 'pods').create('default', pod('p', 'n1')), 'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    const mirror = pod('m', 'n2');
    mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'x' };
    await forbidden(n1.resource('v1', 'pods').create('default', mirror), 'pods "m" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
    await forbidden(n1.resource('v1', 'pods').delete('default', 'theirs'), 'pods "Unknown" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    assert.equal((await c.client.resource('v1', 'pods').get('default', 'theirs')).metadata.deletionTimestamp, undefined);
  });

  it('lets a node write the status of its own pods only, without label changes', async () => {
    await forbidden(n1.resource('v1', 'pods').patch('default', 'theirs', 'merge', { status: { message: 'x' } }, { subresource: 'status' }),
      'pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    const ok = await n1.resource('v1', 'pods').patch('default', 'mine', 'merge', { metadata: { labels: { x: 'y' } }, status: { message: 'fine' } }, { subresource: 'status' });
    assert.equal((ok as { status?: { message?: string } }).status?.message, 'fine');
    // k1s' status subresource keeps the labels (NodeRestriction would refuse a change)
    assert.equal((await c.client.resource('v1', 'pods').get('default', 'mine')).metadata.labels?.x, undefined);
  });

  it('lets a node evict its own pods only', async () => {
    const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } }) as unknown as KObject;
    await forbidden(n1.resource('v1', 'pods').create('default', eviction('theirs'), { subresource: 'eviction' }), 'pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself');
    assert.equal((await c.client.resource('v1', 'pods').get('default', 'theirs')).metadata.name, 'theirs');
  });

  it('lets a node write its own Lease in kube-node-lease only', async () => {
    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name } }) as unknown as KObject;
    // the authorizer cannot see a create's name: admission refuses another node's Lease
    await forbidden(n1.resource('coordination.k8s.io/v1', 'leases').create('kube-node-lease', lease('n2')),
      'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
    assert.equal((await n1.resource('coordination.k8s.io/v1', 'leases').create('kube-node-lease', lease('n1'))).metadata.name, 'n1');
  });

  it('gives a node tokens bound to its own pods, for no audience or one its pod uses', async () => {
    const uid = (await c.client.resource('v1', 'pods').get('default', 'mine')).metadata.uid;
    const theirs = (await c.client.resource('v1', 'pods').get('default', 'theirs')).metadata.uid;
    const tr = (spec: Record<string, unknown>) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'default' }, spec }) as unknown as KObject;
    const request = (spec: Record<string, unknown>) => n1.resource('v1', 'serviceaccounts').create('default', tr(spec), { subresource: 'token' });
    const bound = (name: string, u = uid) => ({ apiVersion: 'v1', kind: 'Pod', name, uid: u });
    await forbidden(request({}), 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    await forbidden(request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine' } }), 'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid');
    await forbidden(request({ boundObjectRef: bound('theirs', theirs) }), 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    await forbidden(request({ boundObjectRef: bound('mine'), audiences: ['a', 'b'] }), 'serviceaccounts "default" is forbidden: node may only request 0 or 1 audiences');
    await forbidden(request({ boundObjectRef: bound('mine'), audiences: ['other'] }),
      'serviceaccounts "default" is forbidden: audience "other" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience');
    for (const audiences of [undefined, ['vault']]) {
      const r = (await request({ boundObjectRef: bound('mine'), ...(audiences ? { audiences } : {}) })) as { status?: { token?: string } };
      assert.ok(r.status?.token, `a token for ${JSON.stringify(audiences)}`);
    }
  });

  it('leaves other users alone', async () => {
    const p = pod('plain', 'n2');
    assert.equal((await c.client.resource('v1', 'pods').create('default', p)).metadata.name, 'plain');
  });
});

// The Node authorizer over a real in-process API (Node,RBAC): a node reads secrets, configmaps, PVCs, PVs and
// service account tokens only through pods bound to it, kept current as pods and PVs change; its own Node, Lease
// and scoped pod lists; everything else falls to RBAC. Decisions and kube's denial texts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import type { RequestAttributes } from '../../../../src/api/rbac/rules.js';
import { buildAuthorizer, type ClusterAuthorizer } from '../../../../src/cluster/authorizers.js';
import { nodeUser } from '../../../../src/pki/node-credential.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';

const n1 = nodeUser('n1');
const n2 = nodeUser('n2');
const res = (verb: string, resource: string, namespace: string, name: string, extra: Partial<RequestAttributes> = {}): RequestAttributes =>
  ({ verb, resourceRequest: true, apiGroup: '', resource, subresource: '', namespace, name, path: '', ...extra });
const pod = (name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } }) as unknown as KObject;
const noRelation = (node: string) => ({ allowed: false, reason: `no relationship found between node '${node}' and this object` });

describe('Node authorizer', () => {
  let c: ControllerCluster;
  let authz: ClusterAuthorizer;
  const decide = (user: { name: string; groups: string[] }, a: RequestAttributes) => authz.authorizer.authorize(user, a);
  before(async () => {
    c = await controllerCluster([]);
    authz = buildAuthorizer(c.registry, 'Node,RBAC');
    await authz.start();
    c.registry.authorizer = authz.authorizer;
  });
  after(async () => {
    authz.stop();
    await c.close();
  });

  it('lets a node read the secrets and configmaps of pods bound to it, and no other node', async () => {
    await c.client.resource('v1', 'pods').create('default', pod('web', {
      nodeName: 'n1',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [{ name: 'c', image: 'busybox', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'a' } } }] }],
      volumes: [{ name: 's', secret: { secretName: 'vol-secret' } }, { name: 'p', projected: { sources: [{ configMap: { name: 'proj-cm' } }] } }],
    }));
    for (const [resource, name] of [['secrets', 'pull'], ['secrets', 'vol-secret'], ['configmaps', 'env-cm'], ['configmaps', 'proj-cm']]) {
      for (const verb of ['get', 'list', 'watch']) assert.equal(decide(n1, res(verb, resource!, 'default', name!)).allowed, true, `${verb} ${resource}/${name}`);
      assert.deepEqual(decide(n2, res('get', resource!, 'default', name!)), noRelation('n2'));
    }
    assert.deepEqual(decide(n1, res('get', 'secrets', 'default', 'unrelated')), noRelation('n1'));
    assert.deepEqual(decide(n1, res('get', 'secrets', 'other', 'vol-secret')), noRelation('n1'));
    assert.deepEqual(decide(n1, res('list', 'secrets', 'default', '')), { allowed: false, reason: 'No Object name found' });
    assert.deepEqual(decide(n1, res('update', 'secrets', 'default', 'pull')), { allowed: false, reason: 'can only read resources of this type' });
  });

  it('follows pod deletion and creation: access ends with the pod, begins with a bound one', async () => {
    await c.client.resource('v1', 'pods').create('default', pod('temp', { nodeName: 'n1', volumes: [{ name: 's', secret: { secretName: 'temp-secret' } }] }));
    assert.equal(decide(n1, res('get', 'secrets', 'default', 'temp-secret')).allowed, true);
    await c.client.resource('v1', 'pods').delete('default', 'temp', { gracePeriodSeconds: 0 });
    assert.deepEqual(decide(n1, res('get', 'secrets', 'default', 'temp-secret')), noRelation('n1'));
    // an unbound pod relates to no node
    await c.client.resource('v1', 'pods').create('default', pod('pending', { volumes: [{ name: 's', secret: { secretName: 'pending-secret' } }] }));
    assert.deepEqual(decide(n1, res('get', 'secrets', 'default', 'pending-secret')), noRelation('n1'));
  });

  it('reaches PVCs, their PVs and the PVs\' secrets through pods; PVC status updates only', async () => {
    await c.client.resource('v1', 'persistentvolumes').create('', {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], claimRef: { namespace: 'default', name: 'data' },
        csi: { driver: 'd.example.com', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-secret', namespace: 'default' } } },
    } as unknown as KObject);
    assert.deepEqual(decide(n1, res('get', 'persistentvolumes', '', 'pv1')), noRelation('n1'));
    await c.client.resource('v1', 'pods').create('default', pod('db', { nodeName: 'n1', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }));
    assert.equal(decide(n1, res('get', 'persistentvolumeclaims', 'default', 'data')).allowed, true);
    assert.equal(decide(n1, res('get', 'persistentvolumes', '', 'pv1')).allowed, true);
    assert.equal(decide(n1, res('get', 'secrets', 'default', 'csi-secret')).allowed, true);
    assert.equal(decide(n1, res('patch', 'persistentvolumeclaims', 'default', 'data', { subresource: 'status' })).allowed, true);
    assert.deepEqual(decide(n1, res('get', 'persistentvolumeclaims', 'default', 'data', { subresource: 'status' })), { allowed: false, reason: 'can only get/update/patch this type' });
    assert.deepEqual(decide(n1, res('list', 'persistentvolumes', '', '')), { allowed: false, reason: 'can only get individual resources of this type' });
    assert.deepEqual(decide(n2, res('get', 'persistentvolumes', '', 'pv1')), noRelation('n2'));
  });

  it('lets a node create tokens only for service accounts of its pods', async () => {
    await c.client.resource('v1', 'pods').create('default', pod('sa-pod', { nodeName: 'n1', serviceAccountName: 'default' }));
    assert.equal(decide(n1, res('create', 'serviceaccounts', 'default', 'default', { subresource: 'token' })).allowed, true);
    assert.deepEqual(decide(n2, res('create', 'serviceaccounts', 'default', 'default', { subresource: 'token' })), noRelation('n2'));
    assert.deepEqual(decide(n1, res('get', 'serviceaccounts', 'default', 'default')), { allowed: false, reason: 'can only create tokens for individual service accounts' });
  });

  it('scopes nodes, pods, leases and CSINodes by name', () => {
    assert.equal(decide(n1, res('get', 'nodes', '', 'n1')).allowed, true);
    assert.deepEqual(decide(n1, res('get', 'nodes', '', 'n2')), { allowed: false, reason: "node 'n1' cannot read 'n2', only its own Node object" });
    assert.deepEqual(decide(n1, res('list', 'nodes', '', '')), { allowed: false, reason: "node 'n1' cannot read all nodes, only its own Node object" });
    assert.equal(decide(n1, res('patch', 'nodes', '', 'n1', { subresource: 'status' })).allowed, true);
    assert.equal(decide(n1, res('watch', 'pods', '', '', { fieldSelector: 'spec.nodeName=n1' })).allowed, true);
    assert.deepEqual(decide(n1, res('list', 'pods', '', '', { fieldSelector: 'spec.nodeName=n2' })), { allowed: false, reason: 'can only list/watch pods with spec.nodeName field selector' });
    assert.equal(decide(n1, res('get', 'pods', 'default', 'web')).allowed, true);
    assert.deepEqual(decide(n2, res('get', 'pods', 'default', 'web')), noRelation('n2'));
    const lease = (verb: string, ns: string, name: string) => res(verb, 'leases', ns, name, { apiGroup: 'coordination.k8s.io' });
    assert.equal(decide(n1, lease('update', 'kube-node-lease', 'n1')).allowed, true);
    assert.deepEqual(decide(n1, lease('update', 'kube-node-lease', 'n2')), { allowed: false, reason: 'can only access node lease with the same name as the requesting node' });
    assert.deepEqual(decide(n1, lease('get', 'default', 'n1')), { allowed: false, reason: 'can only access leases in the "kube-node-lease" system namespace' });
    assert.deepEqual(decide(n1, lease('list', 'kube-node-lease', '')), { allowed: false, reason: 'can only get, create, update, patch, or delete a node lease' });
    const csi = (verb: string, name: string) => res(verb, 'csinodes', '', name, { apiGroup: 'storage.k8s.io' });
    assert.equal(decide(n1, csi('create', '')).allowed, true);
    assert.deepEqual(decide(n1, csi('get', 'n2')), { allowed: false, reason: 'can only access CSINode with the same name as the requesting node' });
  });

  it('allows the fixed node rules and leaves everything else to RBAC', () => {
    assert.equal(decide(n1, res('list', 'services', '', '')).allowed, true);
    assert.equal(decide(n1, res('create', 'events', 'default', '')).allowed, true);
    assert.equal(decide(n1, res('create', 'pods', 'default', 'web', { subresource: 'eviction' })).allowed, true);
    assert.deepEqual(decide(n1, res('list', 'deployments', 'default', '', { apiGroup: 'apps' })), { allowed: false, reason: '' });
    // not a node: the Node authorizer has no opinion, RBAC decides
    assert.deepEqual(decide({ name: 'system:node:n1', groups: ['system:authenticated'] }, res('get', 'nodes', '', 'n1')), { allowed: false, reason: '' });
    assert.deepEqual(decide({ name: 'system:node:', groups: ['system:nodes'] }, res('get', 'nodes', '', 'x')), { allowed: false, reason: 'unknown node for user "system:node:"' });
    assert.equal(decide({ name: 'admin', groups: ['system:masters'] }, res('get', 'secrets', 'default', 'x')).allowed, true);
  });

  it('answers a node\'s own client with kube\'s 403 texts, a field-selected Node list by name', async () => {
    const node = c.client.asUser(n1);
    const e = await node.resource('v1', 'secrets').get('default', 'unrelated').then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 403);
    assert.equal(e.message, `secrets "unrelated" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`);
    await c.client.resource('v1', 'secrets').create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vol-secret' } } as KObject);
    assert.equal((await node.resource('v1', 'secrets').get('default', 'vol-secret')).metadata.name, 'vol-secret');
    // a list selecting metadata.name=n1 is a request for n1 (the kubelet's node informer)
    assert.equal((await node.resource('v1', 'nodes').list('', { fieldSelector: 'metadata.name=n1' })).items.length, 0);
    const all = await node.resource('v1', 'nodes').list('').then(() => undefined, (err: unknown) => err);
    assert.ok(all instanceof StatusError);
    assert.equal(all.message, `nodes is forbidden: User "system:node:n1" cannot list resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read all nodes, only its own Node object`);
    const w = await node.resource('v1', 'pods').watch('', { fieldSelector: 'spec.nodeName=n2' }, () => undefined).then(() => undefined, (err: unknown) => err);
    assert.ok(w instanceof StatusError && w.code === 403);
  });
});

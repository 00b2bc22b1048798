import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { serviceAccountController } from '../../../src/controllers/serviceaccount.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from './harness.js';

const pod = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'c', image: 'x' }], initContainers: [{ name: 'i', image: 'x' }], ...spec } }) as KObject;

describe('service accounts', () => {
  let c: ControllerCluster;
  before(async () => {
    // the cluster's own admission chain (ServiceAccount, DefaultTolerationSeconds) is what is tested here
    c = await controllerCluster([serviceAccountController()]);
  });
  after(() => c.close());

  it('a new namespace gets a default ServiceAccount, re-created when deleted', async () => {
    await c.client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sa-ns' } } as KObject);
    const sas = c.client.resource('v1', 'serviceaccounts');
    const first = await c.waitFor('default SA', () => sas.get('sa-ns', 'default'));
    await c.waitFor('default SA in kube-system too', () => sas.get('kube-system', 'default'));
    await sas.delete('sa-ns', 'default');
    const again = await c.waitFor('default SA re-created', async () => {
      const s = await sas.get('sa-ns', 'default');
      return s.metadata.uid !== first.metadata.uid ? s : undefined;
    });
    assert.ok(again.metadata.uid);
  });

  it('admission defaults the ServiceAccount and mounts the projected token volume in every container', async () => {
    await c.waitFor('default SA', () => c.client.resource('v1', 'serviceaccounts').get('default', 'default'));
    const p = (await c.client.resource('v1', 'pods').create('default', pod('sa-pod'))) as Pod;
    assert.equal(p.spec?.serviceAccountName, 'default');
    const volName = p.spec?.volumes?.find((v) => /^kube-api-access-[a-z0-9]{5}$/.test(v.name ?? ""))?.name;
    const vol = p.spec?.volumes?.find((v) => v.name === volName) as { projected?: { sources: Record<string, unknown>[] } } | undefined;
    assert.ok(vol?.projected);
    assert.deepEqual(vol.projected.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
    assert.deepEqual(vol.projected.sources[1], { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } });
    for (const ctr of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
      assert.deepEqual(ctr.volumeMounts, [{ name: volName, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    }
    const tol = (p.spec?.tolerations ?? []).map((t) => `${t.key}:${t.effect}:${t.tolerationSeconds}`);
    assert.deepEqual(tol, ['node.kubernetes.io/not-ready:NoExecute:300', 'node.kubernetes.io/unreachable:NoExecute:300']);
  });

  it('admission rejects a pod whose ServiceAccount does not exist', async () => {
    await assert.rejects(
      c.client.resource('v1', 'pods').create('default', pod('no-sa', { serviceAccountName: 'missing' })),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 403);
        assert.equal(e.message, 'pods "no-sa" is forbidden: error looking up service account default/missing: serviceaccount "missing" not found');
        return true;
      },
    );
  });

  it('no token volume when automount is off (pod or ServiceAccount); mirror pods are left alone', async () => {
    const sas = c.client.resource('v1', 'serviceaccounts');
    await sas.create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false } as KObject);
    const a = (await c.client.resource('v1', 'pods').create('default', pod('quiet-pod', { serviceAccountName: 'quiet' }))) as Pod;
    assert.equal(a.spec?.volumes, undefined);
    const b = (await c.client.resource('v1', 'pods').create('default', pod('off-pod', { automountServiceAccountToken: false }))) as Pod;
    assert.equal(b.spec?.volumes, undefined);
    // the pod's own setting wins over the ServiceAccount's
    const d = (await c.client.resource('v1', 'pods').create('default', pod('on-pod', { serviceAccountName: 'quiet', automountServiceAccountToken: true }))) as Pod;
    assert.match(d.spec?.volumes?.[0]?.name ?? '', /^kube-api-access-[a-z0-9]{5}$/);
    const m = (await c.client.resource('v1', 'pods').create('default', pod('mirror', { nodeName: 'n1' }, { annotations: { 'kubernetes.io/config.mirror': 'x' } }))) as Pod;
    assert.equal(m.spec?.volumes, undefined);
    assert.equal(m.spec?.serviceAccountName, undefined);
  });
});

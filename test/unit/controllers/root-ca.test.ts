import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { rootCAPublisherController } from '../../../src/controllers/root-ca.js';
import { controllerCluster, type ControllerCluster } from './harness.js';

const caPem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
type CM = KObject & { data?: Record<string, string> };

describe('root CA publisher', () => {
  let c: ControllerCluster;
  before(async () => {
    c = await controllerCluster([rootCAPublisherController({ caPem })]);
  });
  after(() => c.close());

  it('every namespace gets kube-root-ca.crt, kept equal to the CA and re-created when deleted', async () => {
    await c.client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ca-ns' } } as KObject);
    const cms = c.client.resource('v1', 'configmaps');
    const cm = (await c.waitFor('configmap', () => cms.get('ca-ns', 'kube-root-ca.crt'))) as CM;
    assert.deepEqual(cm.data, { 'ca.crt': caPem });
    assert.match(cm.metadata.annotations?.['kubernetes.io/description'] ?? '', /^Contains a CA bundle that can be used to verify the kube-apiserver/);
    await c.waitFor('configmap in kube-system', () => cms.get('kube-system', 'kube-root-ca.crt'));
    await cms.patch('ca-ns', 'kube-root-ca.crt', 'merge', { data: { 'ca.crt': 'tampered' } });
    await c.waitFor('restored', async () => ((await cms.get('ca-ns', 'kube-root-ca.crt')) as CM).data?.['ca.crt'] === caPem);
    await cms.delete('ca-ns', 'kube-root-ca.crt');
    await c.waitFor('re-created', async () => ((await cms.get('ca-ns', 'kube-root-ca.crt')) as CM).data?.['ca.crt'] === caPem);
  });
});

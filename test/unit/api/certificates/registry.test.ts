import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { certificatesDefinitions, certificatesResources, fillRequester, type CertificateSigningRequest } from '../../../../src/api/certificates/index.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { createCa } from '../../../../src/pki/certs.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { b64, makeCSR } from './helpers.js';

describe('certificates.k8s.io/v1 through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(() => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...certificatesResources], [metaDefinitions, coreDefinitions, certificatesDefinitions]);
    // How the lead is expected to wire the requester: after prepareForCreate, with the request's user.
    registry.admission.add({
      name: 'CSRRequester',
      admit: ({ operation, store: rs, object, ctx }) => {
        if (operation === 'CREATE' && rs.def.kind === 'CertificateSigningRequest') fillRequester(object as CertificateSigningRequest, ctx.user);
      },
    });
    client = new LocalClient(registry);
  });
  after(() => store.close());

  it('creates, approves and issues a CSR', async () => {
    const r = client.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
    const created = (await r.create('', {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'jane' },
      spec: {
        request: b64(makeCSR('jane')),
        signerName: 'kubernetes.io/kube-apiserver-client',
        expirationSeconds: 86400,
        usages: ['client auth'],
        username: 'someone-else',
      },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    })) as CertificateSigningRequest;
    assert.equal(created.spec?.username, 'system:k1s');
    assert.deepEqual(created.spec?.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(created.status, {});

    // the main resource cannot change spec or status
    const same = (await r.update('', { ...created, spec: { ...created.spec, usages: ['server auth'] } })) as CertificateSigningRequest;
    assert.deepEqual(same.spec?.usages, ['client auth']);

    const approved = (await r.update(
      '',
      { ...same, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproval', message: 'ok' }] } },
      { subresource: 'approval' },
    )) as CertificateSigningRequest;
    const cond = approved.status!.conditions![0];
    assert.equal(cond.type, 'Approved');
    assert.ok(cond.lastUpdateTime && cond.lastTransitionTime);

    await assert.rejects(
      r.update('', { ...approved, status: { conditions: [{ type: 'Denied', status: 'True' }] } }, { subresource: 'status' }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        e.message ===
          'CertificateSigningRequest.certificates.k8s.io "jane" is invalid: [status.conditions: Forbidden: updates may not remove a condition of type "Approved", status.conditions: Forbidden: updates may not add a condition of type "Denied"]',
    );

    const ca = await createCa();
    const issued = (await r.update('', { ...approved, status: { ...approved.status, certificate: b64(ca.certPem) } }, { subresource: 'status' })) as CertificateSigningRequest;
    assert.equal(issued.status?.certificate, b64(ca.certPem));
    assert.equal(issued.status?.conditions?.[0].reason, 'AdminApproval');

    const bySigner = await r.list('', { fieldSelector: 'spec.signerName=kubernetes.io/kube-apiserver-client' });
    assert.deepEqual(bySigner.items.map((i) => i.metadata.name), ['jane']);
    const none = await r.list('', { fieldSelector: 'spec.signerName=example.com/x' });
    assert.equal(none.items.length, 0);
  });

  it('rejects a request that is not a PEM CSR', async () => {
    await assert.rejects(
      client.resource('certificates.k8s.io/v1', 'certificatesigningrequests').create('', {
        metadata: { name: 'bad' },
        spec: { request: b64('hi'), signerName: 'example.com/signer', usages: ['digital signature'] },
      }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        e.message === 'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST',
    );
  });
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CertificateSigningRequest } from '../../../../src/api/certificates/schema.js';
import type { KObject } from '../../../../src/api/types.js';
import { RbacAuthorizer } from '../../../../src/apiserver/auth/rbac-authorizer.js';
import { LocalClient } from '../../../../src/client/local.js';
import { csrApprovingController } from '../../../../src/controllers/certificates/approver.js';
import { csrSigningController } from '../../../../src/controllers/certificates/signer.js';
import { createCa, isSignedBy, type CertKeyPem } from '../../../../src/pki/certs.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';

const work = mkdtempSync(join(tmpdir(), 'k1s-csr-'));

/** A PEM request from openssl with an EC P-256 key, as a user would make it. */
function opensslCsr(subj: string, san?: string): string {
  const n = Math.random().toString(36).slice(2);
  const args = ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(work, `${n}.key`), '-out', join(work, `${n}.csr`), '-subj', subj];
  if (san) args.push('-addext', `subjectAltName=${san}`);
  execFileSync('openssl', args, { stdio: 'ignore' });
  return readFileSync(join(work, `${n}.csr`), 'utf8');
}

const csrObject = (name: string, pem: string, signerName: string, usages: string[], expirationSeconds?: number): KObject =>
  ({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(pem).toString('base64'), signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) },
  }) as KObject;

describe('csrsigning and csrapproving controllers', () => {
  let c: ControllerCluster;
  let ca: CertKeyPem;
  const csrs = () => c.client.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
  const get = async (name: string) => (await csrs().get('', name)) as CertificateSigningRequest;
  const approve = async (name: string) => {
    const csr = await get(name);
    csr.status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'test' }] };
    await csrs().update('', csr, { subresource: 'approval' });
  };
  const issued = (name: string) => c.waitFor(`${name} issued`, async () => (await get(name)).status?.certificate ?? undefined);

  before(async () => {
    ca = await createCa();
    c = await controllerCluster([csrSigningController({ ca }), csrApprovingController()], {
      configure: (api) => {
        api.registry.authorizer = new RbacAuthorizer((plural) => api.registry.mustLookup('rbac.authorization.k8s.io', 'v1', plural));
      },
    });
    await (c.registry.authorizer as RbacAuthorizer).start();
  });
  after(async () => {
    await (c.registry.authorizer as RbacAuthorizer).stop();
    await c.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('signs an approved kube-apiserver-client request: subject, usages, expirationSeconds, issuer', async () => {
    const before = Date.now();
    await csrs().create('', csrObject('alice', opensslCsr('/O=dev/O=ops/CN=alice'), 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature'], 3600));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await get('alice')).status?.certificate, undefined, 'not signed before approval');
    await approve('alice');
    const pem = Buffer.from(await issued('alice'), 'base64').toString();
    const cert = new X509Certificate(pem);
    assert.ok(isSignedBy(pem, ca.certPem));
    // Go's pkix.Name writes each attribute type as one RDN holding all its values
    assert.equal(cert.subject, 'O=dev + O=ops\nCN=alice');
    assert.match(cert.subject, /CN=alice/);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(cert.ca, false);
    const notBefore = new Date(cert.validFrom).getTime();
    const notAfter = new Date(cert.validTo).getTime();
    // a short certificate (< 8h): notBefore backdated 5 minutes, notAfter = now + 1h
    assert.ok(Math.abs(notBefore - (before - 5 * 60_000)) < 5000, `notBefore ${cert.validFrom}`);
    assert.ok(Math.abs(notAfter - (before + 3600_000)) < 5000, `notAfter ${cert.validTo}`);
  });

  it('caps the duration at the signer default and backdates both ends of a long certificate', async () => {
    const t0 = Date.now();
    await csrs().create('', csrObject('long', opensslCsr('/CN=long'), 'kubernetes.io/kube-apiserver-client', ['client auth'], 10 * 365 * 86400));
    await approve('long');
    const cert = new X509Certificate(Buffer.from(await issued('long'), 'base64'));
    const notAfter = new Date(cert.validTo).getTime();
    assert.ok(Math.abs(notAfter - (t0 + 8760 * 3600_000 - 5 * 60_000)) < 5000, cert.validTo);
  });

  it('fails a request its signer does not accept, with kube reason and message, and never signs it', async () => {
    const cases: [string, string, string[], string, string?][] = [
      ['bad-org', 'kubernetes.io/kubelet-serving', ['digital signature', 'key encipherment', 'server auth'], '/O=nodes/CN=system:node:n1', 'DNS:n1'],
      ['no-san', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], '/O=system:nodes/CN=system:node:n1'],
      ['bad-cn', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], '/O=system:nodes/CN=n1', 'IP:10.0.0.1'],
      ['kubelet-ip', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], '/O=system:nodes/CN=system:node:n1', 'IP:10.0.0.1'],
      ['kubelet-usages', 'kubernetes.io/kube-apiserver-client-kubelet', ['client auth'], '/O=system:nodes/CN=system:node:n1'],
      ['server-usage', 'kubernetes.io/kube-apiserver-client', ['client auth', 'server auth'], '/CN=x'],
      ['no-client-auth', 'kubernetes.io/kube-apiserver-client', ['digital signature'], '/CN=x'],
    ];
    const messages: Record<string, string> = {
      'bad-org': 'subject organization is not system:nodes',
      'no-san': 'DNS or IP subjectAltName is required',
      'bad-cn': 'subject common name does not begin with system:node:',
      'kubelet-ip': 'IP subjectAltNames are not allowed',
      'kubelet-usages': 'usages did not match [client auth digital signature key encipherment]',
      'server-usage': 'invalid usage for client certificate: server auth',
      'no-client-auth': 'missing required usage for client certificate: client auth',
    };
    for (const [name, signer, usages, subj, san] of cases) {
      await csrs().create('', csrObject(name, opensslCsr(subj, san), signer, usages));
      await approve(name);
    }
    for (const [name] of cases) {
      const failed = await c.waitFor(`${name} failed`, async () => (await get(name)).status?.conditions?.find((x) => x.type === 'Failed'));
      assert.equal(failed.status, 'True');
      assert.equal(failed.reason, 'SignerValidationFailure');
      assert.equal(failed.message, messages[name], name);
      assert.ok(failed.lastUpdateTime && failed.lastTransitionTime);
      assert.equal((await get(name)).status?.certificate, undefined);
    }
  });

  it('signs a kubelet-serving request with its DNS and IP names', async () => {
    await csrs().create('', csrObject('serving', opensslCsr('/O=system:nodes/CN=system:node:n1', 'DNS:n1,IP:10.0.0.1'), 'kubernetes.io/kubelet-serving', ['digital signature', 'key encipherment', 'server auth']));
    await approve('serving');
    const cert = new X509Certificate(Buffer.from(await issued('serving'), 'base64'));
    assert.equal(cert.subjectAltName, 'DNS:n1, IP Address:10.0.0.1');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  });

  it('leaves other signers and denied requests alone', async () => {
    await csrs().create('', csrObject('custom', opensslCsr('/CN=x'), 'example.com/custom', ['client auth']));
    await approve('custom');
    await csrs().create('', csrObject('denied', opensslCsr('/CN=y'), 'kubernetes.io/kube-apiserver-client', ['client auth']));
    const d = await get('denied');
    d.status = { conditions: [{ type: 'Denied', status: 'True', reason: 'No', message: 'no' }] };
    await csrs().update('', d, { subresource: 'approval' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await get('custom')).status?.certificate, undefined);
    assert.equal((await get('denied')).status?.certificate, undefined);
  });

  it('auto-approves a node client CSR once RBAC lets its requester create selfnodeclient, then signs it', async () => {
    // every cluster binds selfnodeclient for system:nodes (k1s' join bindings): taken away to see the SAR decide
    await c.client.resource('rbac.authorization.k8s.io/v1', 'clusterrolebindings').delete('', 'k1s:node-autoapprove-certificate-rotation');
    const node = new LocalClient(c.registry, { name: 'system:node:n2', groups: ['system:nodes', 'system:authenticated'] });
    const nodeCsrs = node.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
    await nodeCsrs.create('', csrObject('node-n2', opensslCsr('/O=system:nodes/CN=system:node:n2'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    assert.equal((await get('node-n2')).spec?.username, 'system:node:n2');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await get('node-n2')).status?.conditions, undefined, 'no binding yet: not approved');
    await c.client.resource('rbac.authorization.k8s.io/v1', 'clusterrolebindings').create('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'node-client-cert-renewal' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    } as KObject);
    const approved = await c.waitFor('auto-approved', async () => (await get('node-n2')).status?.conditions?.find((x) => x.type === 'Approved'), 15_000);
    assert.equal(approved.reason, 'AutoApproved');
    assert.equal(approved.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.');
    const cert = new X509Certificate(Buffer.from(await issued('node-n2'), 'base64'));
    assert.equal(cert.subject, 'O=system:nodes\nCN=system:node:n2');
  });

  it('does not auto-approve a node client CSR for another node without nodeclient', async () => {
    const node = new LocalClient(c.registry, { name: 'system:node:n3', groups: ['system:nodes', 'system:authenticated'] });
    await node.resource('certificates.k8s.io/v1', 'certificatesigningrequests').create('', csrObject('other-node', opensslCsr('/O=system:nodes/CN=system:node:n4'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await get('other-node')).status?.conditions, undefined);
  });

  it("auto-approves a node's own kubelet-serving CSR naming only its Node's addresses, not one naming others", async () => {
    await c.client.resource('v1', 'nodes').create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n5' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] } } as KObject);
    const node = new LocalClient(c.registry, { name: 'system:node:n5', groups: ['system:nodes', 'system:authenticated'] });
    const nodeCsrs = node.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
    const usages = ['digital signature', 'key encipherment', 'server auth'];
    await nodeCsrs.create('', csrObject('serving-own', opensslCsr('/O=system:nodes/CN=system:node:n5', 'DNS:n5,IP:10.0.0.5'), 'kubernetes.io/kubelet-serving', usages));
    await nodeCsrs.create('', csrObject('serving-foreign', opensslCsr('/O=system:nodes/CN=system:node:n5', 'DNS:n5,IP:10.9.9.9'), 'kubernetes.io/kubelet-serving', usages));
    const approved = await c.waitFor('serving auto-approved', async () => (await get('serving-own')).status?.conditions?.find((x) => x.type === 'Approved'), 15_000);
    assert.equal(approved.reason, 'AutoApproved');
    const cert = new X509Certificate(Buffer.from(await issued('serving-own'), 'base64'));
    assert.equal(cert.subjectAltName, 'DNS:n5, IP Address:10.0.0.5');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await get('serving-foreign')).status?.conditions, undefined);
  });

  it("auto-approves a node's request for its own add-ons' client certificate only", async () => {
    const node = new LocalClient(c.registry, { name: 'system:node:n6', groups: ['system:nodes', 'system:authenticated'] });
    const nodeCsrs = node.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
    const usages = ['digital signature', 'client auth'];
    await nodeCsrs.create('', csrObject('addons-own', opensslCsr('/O=k1s:node-addons/CN=k1s:node-addons:n6'), 'kubernetes.io/kube-apiserver-client', usages));
    await nodeCsrs.create('', csrObject('addons-other', opensslCsr('/O=k1s:node-addons/CN=k1s:node-addons:n7'), 'kubernetes.io/kube-apiserver-client', usages));
    await nodeCsrs.create('', csrObject('addons-masters', opensslCsr('/O=system:masters/CN=k1s:node-addons:n6'), 'kubernetes.io/kube-apiserver-client', usages));
    const cert = new X509Certificate(Buffer.from(await issued('addons-own'), 'base64'));
    assert.equal(cert.subject, 'O=k1s:node-addons\nCN=k1s:node-addons:n6');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await get('addons-other')).status?.conditions, undefined);
    assert.equal((await get('addons-masters')).status?.conditions, undefined);
  });
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { certificateSigningRequestResource, csrCondition, fillRequester, type CertificateSigningRequest } from '../../../../src/api/certificates/index.js';
import { certificateError, csrRequestError, pemDecode } from '../../../../src/api/certificates/csr-parse.js';
import { validateSignerName } from '../../../../src/api/certificates/validation.js';
import { createCa } from '../../../../src/pki/certs.js';
import { b64, makeCSR } from './helpers.js';
import type * as X509 from '@peculiar/x509';

const st = certificateSigningRequestResource.strategy;
const derOf = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----/g, ''), 'base64');
const toPem = (der: Buffer, type = 'CERTIFICATE REQUEST'): Buffer =>
  Buffer.from(`-----BEGIN ${type}-----\n${der.length ? `${der.toString('base64')}\n` : ''}-----END ${type}-----\n`);
/** Replaces the first occurrence of one hex byte string by another, fixing the outer SEQUENCE's one-byte long-form length. */
function replaceOnce(der: Buffer, from: string, to: string): Buffer {
  const at = der.indexOf(Buffer.from(from, 'hex'));
  assert.ok(at > 0 && der[1] === 0x81);
  const out = Buffer.concat([der.subarray(0, at), Buffer.from(to, 'hex'), der.subarray(at + from.length / 2)]);
  out[2] += (to.length - from.length) / 2;
  return out;
}
const PEM = makeCSR();
const csr = (spec: Record<string, unknown> = {}, status?: CertificateSigningRequest['status']): CertificateSigningRequest => ({
  metadata: { name: 'jane' },
  spec: { request: b64(PEM), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  ...(status ? { status } : {}),
});
const errs = (o: CertificateSigningRequest) => {
  st.defaults!(o);
  return st.validate!(o).map(String);
};

describe('CSR request parsing', () => {
  it('accepts signed ECDSA, RSA and Ed25519 requests and rejects bad signatures', () => {
    for (const alg of ['ec', 'rsa', 'ed25519'] as const) assert.equal(csrRequestError(Buffer.from(makeCSR('x', alg))), undefined, alg);
    assert.equal(csrRequestError(Buffer.from(makeCSR('x', 'ec', true))), 'x509: ECDSA verification failure');
    assert.equal(csrRequestError(Buffer.from(makeCSR('x', 'rsa', true))), 'crypto/rsa: verification error');
    assert.equal(csrRequestError(Buffer.from('junk')), 'PEM block type must be CERTIFICATE REQUEST');
    assert.equal(csrRequestError(Buffer.from(PEM.replaceAll('CERTIFICATE REQUEST', 'CERTIFICATE'))), 'PEM block type must be CERTIFICATE REQUEST');
    assert.equal(csrRequestError(Buffer.from(`leading text\n${PEM}`)), undefined);
  });

  it('reports structural problems, unknown algorithms and key mismatches in Go terms', () => {
    const ec = derOf(makeCSR('x', 'ec'));
    assert.equal(csrRequestError(toPem(Buffer.concat([ec, Buffer.from([0])]))), 'asn1: syntax error: trailing data');
    assert.equal(csrRequestError(toPem(ec.subarray(0, ec.length - 5))), 'asn1: syntax error: data truncated');
    assert.equal(csrRequestError(toPem(Buffer.alloc(0))), 'asn1: syntax error: data truncated');
    assert.equal(csrRequestError(toPem(Buffer.from([0x02, 0x01, 0x00]))), 'x509: malformed certificate request');
    assert.equal(csrRequestError(toPem(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))), 'x509: malformed certificate request');
    // ecdsa-with-SHA256 (1.2.840.10045.4.3.2) turned into the unassigned 1.2.840.10045.4.3.9
    assert.equal(csrRequestError(toPem(replaceOnce(ec, '06082a8648ce3d040302', '06082a8648ce3d040309'))), 'x509: cannot verify signature: algorithm unimplemented');
    // an ECDSA key under sha256WithRSAEncryption
    assert.equal(
      csrRequestError(toPem(replaceOnce(ec, '300a06082a8648ce3d040302', '300d06092a864886f70d01010b0500'))),
      'x509: signature algorithm specifies an RSA public key, but have public key of type *ecdsa.PublicKey',
    );
    assert.equal(csrRequestError(Buffer.from(makeCSR('x', 'ed25519', true))), 'x509: Ed25519 verification failure');
  });

  it('verifies RSA-PSS requests made by @peculiar/x509', async () => {
    await import('../../../../src/pki/reflect-shim.js');
    const x509 = createRequire(import.meta.url)('@peculiar/x509') as typeof X509;
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    const alg = { name: 'RSA-PSS', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
    const req = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=pss', keys, signingAlgorithm: { name: 'RSA-PSS', saltLength: 32 } as Algorithm });
    assert.equal(csrRequestError(Buffer.from(req.toString('pem'))), undefined);
  });

  it('loads @peculiar/x509 only when a request is checked', () => {
    const mod = fileURLToPath(new URL('../../../../src/api/certificates/csr-parse.js', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const m = await import(${JSON.stringify(mod)});
      const req = createRequire(${JSON.stringify(mod)});
      const loaded = () => req.resolve('@peculiar/x509') in req.cache;
      const before = loaded();
      m.certificateError(Buffer.from('text'));
      const afterCert = loaded();
      m.csrRequestError(Buffer.from(${JSON.stringify(PEM)}));
      console.log(JSON.stringify([before, afterCert, loaded()]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [false, false, true]);
  });

  it('decodes PEM like Go (skipping malformed blocks)', () => {
    const d = pemDecode(`-----BEGIN X-----\n!!!\n-----END X-----\n${PEM}`);
    assert.equal(d?.block.type, 'CERTIFICATE REQUEST');
    assert.equal(pemDecode('-----BEGIN X-----\nAAAA\n'), undefined);
  });

  it('checks issued certificates', async () => {
    const ca = await createCa();
    assert.equal(certificateError(Buffer.from(ca.certPem + ca.certPem)), undefined);
    assert.equal(certificateError(Buffer.from('')), undefined);
    assert.equal(certificateError(Buffer.from('text')), 'must contain at least one CERTIFICATE PEM block');
    assert.equal(certificateError(Buffer.from(ca.keyPem)), 'only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"');
    assert.equal(certificateError(Buffer.from('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n')), 'x509: malformed certificate');
    const der = derOf(ca.certPem);
    assert.equal(certificateError(toPem(Buffer.concat([der, der]), 'CERTIFICATE')), undefined);
    assert.equal(certificateError(toPem(Buffer.concat([der, Buffer.from([1, 2])]), 'CERTIFICATE')), 'x509: malformed certificate');
    assert.equal(certificateError(toPem(der.subarray(0, der.length - 1), 'CERTIFICATE')), 'x509: malformed certificate');
    assert.equal(certificateError(toPem(Buffer.from(ca.certPem), 'CERTIFICATE')), 'x509: malformed certificate');
    assert.equal(certificateError(toPem(Buffer.alloc(0), 'CERTIFICATE')), 'found CERTIFICATE PEM block containing 0 certificates');
  });
});

describe('CSR validation', () => {
  it('requires a PEM request, printing the bytes as Go does', () => {
    assert.deepEqual(errs(csr({})), []);
    assert.deepEqual(errs(csr({ request: b64('foo') })), ['spec.request: Invalid value: []byte{0x66, 0x6f, 0x6f}: PEM block type must be CERTIFICATE REQUEST']);
    assert.deepEqual(errs(csr({ request: undefined })), ['spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST']);
  });

  it('checks usages, signerName and expirationSeconds', () => {
    assert.deepEqual(errs(csr({ usages: [] })), ['spec.usages: Required value']);
    const bad = errs(csr({ usages: ['client auth', 'client auth', 'magic'], expirationSeconds: 599 }));
    assert.equal(bad[0], 'spec.usages[2]: Unsupported value: "magic": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"');
    assert.deepEqual(bad.slice(1), [
      'spec.usages[1]: Duplicate value: "client auth"',
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    assert.deepEqual(errs(csr({ signerName: '' })), ['spec.signerName: Required value']);
    assert.deepEqual(errs(csr({ signerName: 'kubernetes.io/legacy-unknown' })), [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    assert.deepEqual(validateSignerName('s', 'example').map(String), [
      "s: Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
    assert.deepEqual(validateSignerName('s', 'Example/My_Signer').map(String), [
      `s: Invalid value: "Example": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      's: Invalid value: "Example": should be a domain with at least two segments separated by dots',
      `s: Invalid value: "My_Signer": validating label "My_Signer": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('checks conditions and the certificate', () => {
    const o = csr({}, { conditions: [{ type: 'Approved', status: 'False' }, { type: 'Denied', status: 'True' }, { type: 'Denied', status: '' }, { status: 'Maybe' }], certificate: b64('nope') });
    assert.deepEqual(errs(o), [
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      'status.conditions[2].status: Required value',
      'status.conditions[2].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      'status.conditions[2].type: Duplicate value: "Denied"',
      'status.conditions[3].type: Required value',
      'status.conditions[3].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ]);
  });
});

describe('CSR strategy', () => {
  it('clears requester fields and status on create; fillRequester sets them from the user', () => {
    const o = csr({ username: 'mallory', groups: ['system:masters'] }, { conditions: [{ type: 'Approved', status: 'True' }] });
    st.defaults!(o);
    st.prepareForCreate!(o);
    assert.equal(o.spec?.username, undefined);
    assert.deepEqual(o.status, {});
    fillRequester(o, { name: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
    assert.deepEqual(
      { username: o.spec?.username, uid: o.spec?.uid, groups: o.spec?.groups, extra: o.spec?.extra },
      { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
    );
    fillRequester(o, { name: 'bob', groups: [] });
    assert.deepEqual([o.spec?.username, o.spec?.uid, o.spec?.groups, o.spec?.extra], ['bob', undefined, undefined, undefined]);
  });

  it('keeps spec and status on main-resource updates', () => {
    const old = csr({ username: 'jane' }, { conditions: [{ type: 'Approved', status: 'True' }] });
    const o = csr({ signerName: 'example.com/other' }, {});
    st.prepareForUpdate!(o, old);
    assert.deepEqual([o.spec, o.status], [old.spec, old.status]);
  });

  it('approval sets only conditions, with timestamps; status keeps Approved/Denied as they were', () => {
    const old = csr({}, {});
    const req = csr({ signerName: 'example.com/changed' }, { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }], certificate: b64('x') });
    const next = st.prepareForSubresourceUpdate!('approval', req, old) as CertificateSigningRequest;
    assert.equal(next.spec?.signerName, 'kubernetes.io/kube-apiserver-client');
    assert.equal(next.status?.certificate, undefined);
    const cond = next.status!.conditions![0];
    assert.equal(cond.reason, 'OK');
    assert.ok(cond.lastUpdateTime && cond.lastTransitionTime);
    assert.deepEqual(st.validateSubresourceUpdate!('approval', next, old), []);
    assert.deepEqual(st.validateStatusUpdate!(next, old).map(String), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);

    const approved = csr({}, { conditions: [{ type: 'Approved', status: 'True', reason: 'OK', lastUpdateTime: '2024-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' }] });
    const status = csr({}, { conditions: [{ type: 'Approved', status: 'True', reason: 'Changed' }, { type: 'Failed', status: 'True' }] });
    st.prepareForStatusUpdate!(status, approved);
    assert.equal(status.status!.conditions![0].reason, 'OK');
    assert.deepEqual(st.validateStatusUpdate!(status, approved), []);
    const removed = csr({}, {});
    assert.deepEqual(st.validateSubresourceUpdate!('approval', removed, approved).map(String), [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]);
  });

  it('lets status set the certificate once', async () => {
    const ca = await createCa();
    const old = csr({}, { conditions: [{ type: 'Approved', status: 'True' }] });
    const issued = csr({}, { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(ca.certPem) });
    assert.deepEqual(st.validateStatusUpdate!(issued, old), []);
    assert.deepEqual(st.validateSubresourceUpdate!('approval', issued, old).map(String), ['status.certificate: Forbidden: updates may not set certificate content']);
    const other = await createCa();
    const reissued = csr({}, { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(other.certPem) });
    assert.deepEqual(st.validateStatusUpdate!(reissued, issued).map(String), ['status.certificate: Forbidden: updates may not modify existing certificate content']);
  });
});

describe('CSR table', () => {
  it('prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', () => {
    const now = Date.parse('2024-01-01T00:00:05Z');
    const o = csr({ username: 'jane', expirationSeconds: 86400 }, { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64('c') });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(certificateSigningRequestResource.columns.map((c) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    assert.deepEqual(certificateSigningRequestResource.columns.map((c) => c.cell(o, { now })), [
      'jane',
      '5s',
      'kubernetes.io/kube-apiserver-client',
      'jane',
      '24h',
      'Approved,Issued',
    ]);
    assert.equal(csrCondition(csr()), 'Pending');
    assert.equal(csrCondition(csr({}, { conditions: [{ type: 'Approved' }, { type: 'Denied' }, { type: 'Failed' }] })), 'Denied,Failed');
    assert.equal(certificateSigningRequestResource.columns[4].cell(csr({ expirationSeconds: 600 }), { now }), '10m');
    assert.equal(certificateSigningRequestResource.columns[4].cell(csr(), { now }), '<none>');
    assert.equal(certificateSigningRequestResource.columns[2].cell(csr({ signerName: '' }), { now }), '<none>');
  });
  it('selects on spec.signerName and has the csr short name', () => {
    assert.deepEqual(certificateSigningRequestResource.shortNames, ['csr']);
    assert.equal(certificateSigningRequestResource.selectableFields!['spec.signerName'](csr()), 'kubernetes.io/kube-apiserver-client');
    assert.deepEqual(certificateSigningRequestResource.subresources, { status: true, extra: ['approval'] });
  });
});

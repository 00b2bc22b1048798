import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { goJSONMapError, x509KeyPairError } from '../../../../src/api/core/secret/go-checks.js';
import { mergeStringData, secretResource } from '../../../../src/api/core/secret/resource.js';
import type { KObject } from '../../../../src/api/types.js';
import { errors } from '../../../../src/machinery/errors.js';
import { createCa } from '../../../../src/pki/certs.js';

const st = secretResource.strategy;
const b64 = (v: string) => Buffer.from(v).toString('base64');
const secret = (extra: Record<string, unknown>): KObject => ({ metadata: { name: 's', namespace: 'default' }, ...extra });
const errs = (o: KObject) => st.validate!(o).map(String);

describe('Secret defaults', () => {
  it('merges stringData into data (overwriting), drops it and defaults type to Opaque', () => {
    const o = secret({ data: { a: b64('1'), keep: b64('k') }, stringData: { a: '2', b: 'ünï' } });
    st.defaults!(o);
    assert.deepEqual(o, secret({ data: { a: b64('2'), keep: b64('k'), b: b64('ünï') }, type: 'Opaque' }));
  });
  it('keeps an explicit type and drops an empty stringData', () => {
    const o = secret({ type: 'example.com/custom', stringData: {} });
    mergeStringData(o);
    st.defaults!(o);
    assert.deepEqual(o, secret({ type: 'example.com/custom' }));
  });
  it('inherits the old type when an update carries none', () => {
    const o = secret({});
    st.prepareForUpdate!(o, secret({ type: 'kubernetes.io/tls' }));
    assert.equal(o.type, 'kubernetes.io/tls');
  });
});

describe('Secret validation', () => {
  it('checks keys and the 1 MiB limit on decoded data', () => {
    assert.deepEqual(errs(secret({ type: 'Opaque', data: { 'a/b': b64('x') } })), [
      `data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
    const big = Buffer.alloc(1024 * 1024).toString('base64');
    assert.deepEqual(errs(secret({ type: 'Opaque', data: { a: big } })), []);
    assert.deepEqual(errs(secret({ type: 'Opaque', data: { a: big, b: b64('x') } })), [
      'data: Too long: may not be more than 1048576 bytes',
    ]);
  });

  it('requires the keys of the built-in types', () => {
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/service-account-token' })), [
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/dockercfg' })), ['data[.dockercfg]: Required value']);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/dockerconfigjson' })), ['data[.dockerconfigjson]: Required value']);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/basic-auth' })), [
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/basic-auth', data: { password: '' } })), []);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } })), [
      'data[ssh-privatekey]: Required value',
    ]);
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } })), ['data[tls.key]: Required value']);
    assert.deepEqual(errs(secret({ type: 'bootstrap.kubernetes.io/token' })), []);
    const sa = secret({ type: 'kubernetes.io/service-account-token' });
    sa.metadata.annotations = { 'kubernetes.io/service-account.name': 'default' };
    assert.deepEqual(errs(sa), []);
  });

  it('requires well-formed JSON for docker config secrets, with Go json error text', () => {
    const o = secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths": x}') } });
    assert.equal(
      errors.invalid('Secret', '', 's', st.validate!(o)).message,
      `Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'x' looking for beginning of value`,
    );
    assert.deepEqual(errs(secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"a":1}') } })), []);
  });

  it('forbids changing type, and data once immutable', () => {
    const old = secret({ type: 'Opaque', immutable: true, data: { a: b64('1') } });
    const o = secret({ type: 'kubernetes.io/basic-auth', data: { a: b64('2') } });
    assert.deepEqual(st.validateUpdate!(o, old).map(String), [
      'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});

describe("Go's json.Unmarshal errors", () => {
  const table: Array<[string, string | undefined]> = [
    ['{"a": {"b": [1, 2.5e3, true, null, "x"]}}', undefined],
    ['null', undefined],
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['"s"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['-1', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
    ["{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": 1 "b": 2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['{"a": tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a": 01}', "invalid character '1' after object key:value pair"],
    ['{"a": 1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a": -x}', "invalid character 'x' in numeric literal"],
    ['{"a": 1e}', "invalid character '}' in exponent of numeric literal"],
    ['{"a": "\\q"}', "invalid character 'q' in string escape code"],
    ['{"a": "\t"}', "invalid character '\\t' in string literal"],
  ];
  for (const [input, want] of table) it(JSON.stringify(input), () => assert.equal(goJSONMapError(Buffer.from(input)), want));
});

describe('TLS secret warnings (tls.X509KeyPair errors)', () => {
  it('warns about missing or switched PEM data and mismatched keys', async () => {
    const ca = await createCa();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const pem = (s: string) => Buffer.from(s);
    assert.equal(x509KeyPairError(pem(ca.certPem), pem(ca.keyPem)), undefined);
    assert.equal(x509KeyPairError(pem('junk'), pem(ca.keyPem)), 'tls: failed to find any PEM data in certificate input');
    assert.equal(
      x509KeyPairError(pem(ca.keyPem), pem(ca.certPem)),
      'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
    );
    assert.equal(x509KeyPairError(pem(ca.certPem), pem(ca.certPem)), 'tls: found a certificate rather than a key in the PEM for the private key');
    assert.equal(x509KeyPairError(pem(ca.certPem), pem('')), 'tls: failed to find any PEM data in key input');
    // createCa makes ECDSA keys.
    assert.equal(x509KeyPairError(pem(ca.certPem), pem(other)), 'tls: private key does not match public key');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    assert.equal(x509KeyPairError(pem(ca.certPem), pem(rsa)), 'tls: private key type does not match public key type');

    const good = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64(ca.certPem), 'tls.key': b64(ca.keyPem) } });
    assert.deepEqual(st.warnings!(good), []);
    const bad = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64(ca.certPem), 'tls.key': '' } });
    assert.deepEqual(st.warnings!(bad), ['tls: failed to find any PEM data in key input']);
    assert.deepEqual(st.warnings!(secret({ type: 'Opaque' })), []);
  });
});

describe('Secret table and fields', () => {
  it('prints NAME TYPE DATA AGE and selects by type', () => {
    const o = secret({ type: 'Opaque', data: { a: '', b: '' } });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T10:00:00Z');
    assert.deepEqual(secretResource.columns.map((c) => c.name), ['Name', 'Type', 'Data', 'Age']);
    assert.deepEqual(secretResource.columns.map((c) => c.cell(o, { now })), ['s', 'Opaque', 2, '10h']);
    assert.equal(secretResource.selectableFields!.type(o), 'Opaque');
  });
});

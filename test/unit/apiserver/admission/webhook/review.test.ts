// The AdmissionReview sent to webhooks and the checks of their answers, with kube-apiserver's texts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebhookCallError, buildReview, chooseVersion, parseResponse } from '../../../../../src/apiserver/admission/webhook/review.js';
import { goJsonSyntaxError } from '../../../../../src/machinery/go-json.js';
import type { RequestAttributes, Webhook } from '../../../../../src/apiserver/admission/webhook/types.js';

const attrs = (over: Partial<RequestAttributes> = {}): RequestAttributes => ({
  uid: 'abc-123',
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  subResource: '',
  name: 'web',
  namespace: 'default',
  namespaced: true,
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } },
  options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  dryRun: false,
  userInfo: { username: 'alice', groups: ['system:authenticated'] },
  ...over,
});

const hook = (versions: string[]): Webhook => ({ name: 'h.k1s.dev', clientConfig: { url: 'https://x' }, admissionReviewVersions: versions });
const review = (response: unknown, apiVersion = 'admission.k8s.io/v1') => ({ apiVersion, kind: 'AdmissionReview', response });
const patchB64 = (ops: unknown) => Buffer.from(JSON.stringify(ops)).toString('base64');

function throws(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof WebhookCallError, String(e));
    assert.equal(e.message, message);
    return true;
  });
}

describe('buildReview', () => {
  it('writes a v1 review as Go would, omitting empty fields and keeping nulls for absent objects', () => {
    const r = buildReview('v1', attrs());
    assert.deepEqual(r, {
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      request: {
        uid: 'abc-123',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        requestKind: { group: '', version: 'v1', kind: 'Pod' },
        requestResource: { group: '', version: 'v1', resource: 'pods' },
        name: 'web',
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'alice', groups: ['system:authenticated'] },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } },
        oldObject: null,
        dryRun: false,
        options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
      },
    });
  });

  it('carries subresources, the request kind of an equivalent match, and v1beta1', () => {
    const r = buildReview(
      'v1beta1',
      attrs({
        operation: 'UPDATE',
        subResource: 'status',
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        requestKind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
        requestResource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
        namespace: '',
        oldObject: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } },
        dryRun: true,
        userInfo: { username: 'bob', uid: 'u-1', extra: { scopes: ['a'] } },
      }),
    ) as { apiVersion: string; request: Record<string, unknown> };
    assert.equal(r.apiVersion, 'admission.k8s.io/v1beta1');
    assert.equal(r.request.subResource, 'status');
    assert.equal(r.request.requestSubResource, 'status');
    assert.deepEqual(r.request.requestKind, { group: 'apps', version: 'v1beta1', kind: 'Deployment' });
    assert.equal('namespace' in r.request, false);
    assert.equal(r.request.dryRun, true);
    assert.deepEqual(r.request.userInfo, { username: 'bob', uid: 'u-1', extra: { scopes: ['a'] } });
    assert.deepEqual(Object.keys(r.request), [
      'uid', 'kind', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'name', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options',
    ]);
  });
});

describe('chooseVersion', () => {
  it('takes the first version k1s speaks', () => {
    assert.equal(chooseVersion(hook(['v1beta1', 'v1'])), 'v1beta1');
    assert.equal(chooseVersion(hook(['v2', 'v1'])), 'v1');
  });
  it('fails as CreateAdmissionObjects does', () => {
    throws(() => chooseVersion(hook(['v2'])), 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  });
});

describe('parseResponse', () => {
  it('accepts an allowing v1 answer', () => {
    const r = parseResponse('v1', review({ uid: 'abc', allowed: true, warnings: ['careful'], auditAnnotations: { k: 'v' } }), 'abc');
    assert.deepEqual(r, { uid: 'abc', allowed: true, warnings: ['careful'], auditAnnotations: { k: 'v' } });
  });

  it('returns a rejection with its status and without looking at its patch', () => {
    const r = parseResponse('v1', review({ uid: 'abc', allowed: false, status: { code: 403, message: 'no' }, patch: patchB64({}), patchType: 'JSONPatch' }), 'abc');
    assert.deepEqual(r, { uid: 'abc', allowed: false, status: { code: 403, message: 'no' } });
  });

  it("checks the uid, the review's kind and the presence of a response (v1)", () => {
    throws(() => parseResponse('v1', review({ uid: 'other', allowed: true }), 'abc'), 'received invalid webhook response: expected response.uid="abc", got "other"');
    throws(() => parseResponse('v1', { response: { uid: 'abc', allowed: true } }, 'abc'), 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=');
    throws(
      () => parseResponse('v1', review({ uid: 'abc', allowed: true }, 'admission.k8s.io/v1beta1'), 'abc'),
      'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview',
    );
    throws(() => parseResponse('v1', review(undefined), 'abc'), 'received invalid webhook response: webhook response was absent');
    throws(() => parseResponse('v1beta1', {}, 'abc'), 'received invalid webhook response: webhook response was absent');
  });

  it('decodes a JSONPatch', () => {
    const ops = [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }];
    const r = parseResponse('v1', review({ uid: 'abc', allowed: true, patch: patchB64(ops), patchType: 'JSONPatch' }), 'abc');
    assert.deepEqual(r.patch, ops);
    const empty = parseResponse('v1', review({ uid: 'abc', allowed: true, patch: patchB64([]), patchType: 'JSONPatch' }), 'abc');
    assert.equal(empty.patch, undefined);
  });

  it('holds patch and patchType together, and JSONPatch the only type (v1)', () => {
    const ops = patchB64([{ op: 'remove', path: '/x' }]);
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: ops }), 'abc'), 'received invalid webhook response: webhook returned response.patch but not response.patchType');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patchType: 'JSONPatch' }), 'abc'), 'received invalid webhook response: webhook returned response.patchType but not response.patch');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: ops, patchType: '' }), 'abc'), 'received invalid webhook response: webhook returned invalid response.patchType of ""');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: ops, patchType: 'MergePatch' }), 'abc'), 'unsupported patch type "MergePatch"');
  });

  it("refuses a validating webhook's patch", () => {
    const ops = patchB64([{ op: 'remove', path: '/x' }]);
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: ops, patchType: 'JSONPatch' }), 'abc', false), 'received invalid webhook response: validating webhook may not return response.patch');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patchType: 'JSONPatch' }), 'abc', false), 'received invalid webhook response: validating webhook may not return response.patchType');
  });

  it('keeps v1beta1 lenient: no uid or kind check, a patch without patchType is a JSONPatch', () => {
    const ops = [{ op: 'replace', path: '/spec/replicas', value: 2 }];
    const r = parseResponse('v1beta1', { response: { uid: 'whatever', allowed: true, patch: patchB64(ops) } }, 'abc');
    assert.deepEqual(r.patch, ops);
    assert.equal(r.uid, 'whatever');
  });

  it('words undecodable answers and patches as Go does', () => {
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: 'abc', patchType: 'JSONPatch' }), 'abc'), 'failed to call webhook: illegal base64 data at input byte 0');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: 'ab$d', patchType: 'JSONPatch' }), 'abc'), 'failed to call webhook: illegal base64 data at input byte 2');
    throws(() => parseResponse('v1', review({ uid: 'abc', allowed: 'yes' }), 'abc'), 'failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool');
    throws(() => parseResponse('v1', review({ uid: 7, allowed: true }), 'abc'), 'failed to call webhook: json: cannot unmarshal number into Go struct field AdmissionResponse.response.uid of type types.UID');
    throws(() => parseResponse('v1', review([]), 'abc'), 'failed to call webhook: json: cannot unmarshal array into Go struct field AdmissionReview.response of type v1.AdmissionResponse');
    throws(
      () => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: patchB64({ op: 'add' }), patchType: 'JSONPatch' }), 'abc'),
      'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
    throws(
      () => parseResponse('v1', review({ uid: 'abc', allowed: true, patch: Buffer.from('[{"op":').toString('base64'), patchType: 'JSONPatch' }), 'abc'),
      'received undecodable patch in webhook response: unexpected end of JSON input',
    );
  });
});

describe('goJsonSyntaxError', () => {
  it("speaks encoding/json's scanner", () => {
    const e = (s: string) => goJsonSyntaxError(Buffer.from(s));
    assert.equal(e('{"a":1}'), undefined);
    assert.equal(e('{"a" 1}'), "invalid character '1' after object key");
    assert.equal(e('{"a":1 "b"}'), "invalid character '\"' after object key:value pair");
    assert.equal(e('[1,]'), "invalid character ']' looking for beginning of value");
    assert.equal(e('{,}'), "invalid character ',' looking for beginning of object key string");
    assert.equal(e('tru'), 'unexpected end of JSON input');
    assert.equal(e('{} x'), "invalid character 'x' after top-level value");
    assert.equal(e('-x'), "invalid character 'x' in numeric literal");
    assert.equal(e('"a\\q"'), "invalid character 'q' in string escape code");
  });
});

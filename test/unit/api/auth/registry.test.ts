import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { authzResources, tokenReviewResource } from '../../../../src/api/auth/index.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { rejects } from '../registry-harness.js';

const AZ = 'authorization.k8s.io/v1';
const AN = 'authentication.k8s.io/v1';
const canCreatePods = { apiVersion: AZ, kind: 'SelfSubjectAccessReview', metadata: {}, spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } } };


describe('access and token reviews through the registry', () => {
  let store: SqliteStore;
  let admin: LocalClient;
  let jane: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const reviews = authzResources.filter((r) => r.kind !== 'TokenReview');
    const tokens = tokenReviewResource(async (token, audiences) =>
      token === 'good' ? { user: { name: 'system:serviceaccount:default:builder', uid: 'u-1', groups: ['system:serviceaccounts'] }, audiences: audiences.length ? audiences : ['https://k1s'] } : undefined,
    );
    const registry = new Registry(store, [namespaceResource, ...reviews, tokens], [metaDefinitions, coreDefinitions]);
    admin = new LocalClient(registry);
    jane = new LocalClient(registry, { name: 'jane', uid: 'j-1', groups: ['devs', 'system:authenticated'] });
    await admin.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    await store.close();
  });

  it('SelfSubjectAccessReview without an authorizer: yes for system:masters only (kubectl auth can-i)', async () => {
    const yes = await admin.resource(AZ, 'selfsubjectaccessreviews').create('', canCreatePods);
    assert.deepEqual(yes, { ...canCreatePods, metadata: { creationTimestamp: null }, status: { allowed: true } });
    const no = await jane.resource(AZ, 'selfsubjectaccessreviews').create('', canCreatePods);
    assert.deepEqual(no.status, { allowed: false });
    await rejects(
      admin.resource(AZ, 'selfsubjectaccessreviews').create('', { ...canCreatePods, spec: {} }),
      422,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    await assert.rejects(admin.resource(AZ, 'selfsubjectaccessreviews').get('', 'x'), (e: unknown) => e instanceof StatusError && e.code === 405);
  });

  it('SubjectAccessReview and LocalSubjectAccessReview answer for the subject in the spec', async () => {
    const sar = await jane.resource(AZ, 'subjectaccessreviews').create('', {
      apiVersion: AZ,
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'root', groups: ['system:masters'] },
    });
    assert.deepEqual(sar.status, { allowed: true });
    const lsars = admin.resource(AZ, 'localsubjectaccessreviews');
    const body = { apiVersion: AZ, kind: 'LocalSubjectAccessReview', metadata: {}, spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, user: 'bob' } };
    const lsar = await lsars.create('default', body);
    assert.deepEqual(lsar.metadata, { namespace: 'default', creationTimestamp: null });
    assert.deepEqual(lsar.status, { allowed: false });
    await rejects(
      lsars.create('default', { ...body, spec: { ...body.spec, resourceAttributes: { verb: 'get', resource: 'pods' } } }),
      422,
      'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace',
    );
    await rejects(lsars.create('default', { ...body, metadata: { namespace: 'kube-system' } }), 400, 'the namespace of the provided object does not match the namespace sent on the request');
  });

  it('SelfSubjectRulesReview lists everything for system:masters and nothing for others', async () => {
    const body = { apiVersion: AZ, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' } };
    const all = await admin.resource(AZ, 'selfsubjectrulesreviews').create('', body);
    assert.deepEqual(all, {
      apiVersion: AZ,
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
    const none = await jane.resource(AZ, 'selfsubjectrulesreviews').create('', body);
    assert.deepEqual(none.status, { resourceRules: [], nonResourceRules: [], incomplete: false });
    await rejects(admin.resource(AZ, 'selfsubjectrulesreviews').create('', { ...body, spec: {} }), 400, 'no namespace on request');
  });

  it('SelfSubjectReview returns the requesting user (kubectl auth whoami)', async () => {
    const r = await jane.resource(AN, 'selfsubjectreviews').create('', { apiVersion: AN, kind: 'SelfSubjectReview', metadata: {} });
    assert.equal(r.kind, 'SelfSubjectReview');
    assert.equal(r.apiVersion, AN);
    assert.match(String(r.metadata.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(r.status, { userInfo: { username: 'jane', uid: 'j-1', groups: ['devs', 'system:authenticated'] } });
  });

  it('TokenReview asks the injected verifier; an empty token is a bad request', async () => {
    const trs = admin.resource(AN, 'tokenreviews');
    const good = await trs.create('', { apiVersion: AN, kind: 'TokenReview', metadata: {}, spec: { token: 'good' } });
    assert.deepEqual(good.status, {
      authenticated: true,
      user: { username: 'system:serviceaccount:default:builder', uid: 'u-1', groups: ['system:serviceaccounts'] },
      audiences: ['https://k1s'],
    });
    assert.deepEqual(good.spec, { token: 'good' });
    const bad = await trs.create('', { apiVersion: AN, kind: 'TokenReview', metadata: {}, spec: { token: 'nope' } });
    assert.deepEqual(bad.status, { user: {} });
    await rejects(trs.create('', { apiVersion: AN, kind: 'TokenReview', metadata: {}, spec: {} }), 400, 'token is required for TokenReview in authentication');
  });

  it('the default TokenReview verifier accepts no token', async () => {
    const s = SqliteStore.open({ path: ':memory:' });
    try {
      const c = new LocalClient(new Registry(s, [...authzResources], [metaDefinitions, coreDefinitions]));
      const r = await c.resource(AN, 'tokenreviews').create('', { apiVersion: AN, kind: 'TokenReview', metadata: {}, spec: { token: 'anything', audiences: ['x'] } });
      assert.deepEqual(r.status, { user: {} });
    } finally {
      await s.close();
    }
  });
});

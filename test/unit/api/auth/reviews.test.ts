import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  authzResources,
  decide,
  localSubjectAccessReviewResource,
  reviewAttributes,
  selfSubjectAccessReviewResource as ssar,
  subjectAccessReviewResource as sar,
  userInfo,
  validateLocalSubjectAccessReview,
} from '../../../../src/api/auth/index.js';
import type { KObject } from '../../../../src/api/types.js';

const msgs = (errs: { toString(): string }[]) => errs.map(String);
const review = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KObject => ({ metadata, spec });
const pods = { verb: 'create', resource: 'pods', namespace: 'default' };

describe('review kinds', () => {
  it('are create-only and never stored', () => {
    assert.deepEqual(
      authzResources.map((r) => [r.group, r.plural, r.namespaced, r.verbs, !!r.virtual]),
      [
        ['authorization.k8s.io', 'localsubjectaccessreviews', true, ['create'], true],
        ['authorization.k8s.io', 'selfsubjectaccessreviews', false, ['create'], true],
        ['authorization.k8s.io', 'selfsubjectrulesreviews', false, ['create'], true],
        ['authorization.k8s.io', 'subjectaccessreviews', false, ['create'], true],
        ['authentication.k8s.io', 'selfsubjectreviews', false, ['create'], true],
        ['authentication.k8s.io', 'tokenreviews', false, ['create'], true],
      ],
    );
    assert.deepEqual(localSubjectAccessReviewResource.columns, []);
  });

  it('answers from the authorizer, or with the system:masters rule alone without one', () => {
    const attrs = reviewAttributes({ resourceAttributes: { namespace: 'ns', verb: 'list', resource: 'pods' } });
    assert.deepEqual(attrs, { verb: 'list', resourceRequest: true, apiGroup: '', apiVersion: '', resource: 'pods', subresource: '', namespace: 'ns', name: '', path: '' });
    assert.equal(reviewAttributes({ resourceAttributes: { namespace: 'x', verb: 'get', resource: 'pods' } }, 'lsar-ns').namespace, 'lsar-ns');
    assert.deepEqual(reviewAttributes({ nonResourceAttributes: { path: '/healthz', verb: 'get' } }), { verb: 'get', resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' });
    assert.deepEqual(decide({ name: 'root', groups: ['system:authenticated', 'system:masters'] }, attrs, undefined), { allowed: true });
    assert.deepEqual(decide({ name: 'jane', groups: ['system:authenticated'] }, attrs, undefined), { allowed: false });
    const seen: unknown[] = [];
    const authorizer = {
      authorize: (u: { name: string }, a: unknown) => (seen.push([u.name, a]), { allowed: u.name === 'jane', reason: u.name === 'jane' ? 'RBAC: allowed by x' : '' }),
      rulesFor: () => [],
    };
    assert.deepEqual(decide({ name: 'jane', groups: [] }, attrs, authorizer), { allowed: true, reason: 'RBAC: allowed by x' });
    assert.deepEqual(decide({ name: 'bob', groups: [] }, attrs, authorizer), { allowed: false });
    assert.deepEqual(seen, [['jane', attrs], ['bob', attrs]]);
  });

  it('renders user info as authentication.k8s.io UserInfo', () => {
    assert.deepEqual(userInfo({ name: 'jane', groups: ['devs'] }), { username: 'jane', groups: ['devs'] });
    assert.deepEqual(userInfo({ name: 'x', uid: 'u1', groups: [], extra: { scopes: ['a'] } }), { username: 'x', uid: 'u1', extra: { scopes: ['a'] } });
  });
});

describe('access review validation', () => {
  it('exactly one of resourceAttributes and nonResourceAttributes', () => {
    assert.deepEqual(msgs(ssar.strategy.validate!(review({}))), [
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    ]);
    assert.deepEqual(msgs(ssar.strategy.validate!(review({ resourceAttributes: pods, nonResourceAttributes: { path: '/healthz', verb: 'get' } }))), [
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    ]);
    assert.deepEqual(ssar.strategy.validate!(review({ resourceAttributes: pods }, { creationTimestamp: null })), []);
  });

  it('SubjectAccessReview needs a user or group, and metadata must be empty', () => {
    assert.deepEqual(msgs(sar.strategy.validate!(review({ resourceAttributes: pods }, { name: 'x' }))), [
      'spec.user: Invalid value: "": at least one of user or group must be specified',
      'metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty',
    ]);
    assert.deepEqual(sar.strategy.validate!(review({ resourceAttributes: pods, groups: ['g'] }, { labels: {} })), []);
  });

  it('validates field and label selector attributes', () => {
    const errs = ssar.strategy.validate!(
      review({
        resourceAttributes: {
          ...pods,
          fieldSelector: { rawSelector: 'a=b', requirements: [{ key: '', operator: 'Exists', values: ['x'] }] },
          labelSelector: {},
        },
      }),
    );
    assert.deepEqual(msgs(errs), [
      'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements',
      'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required',
    ]);
    // Unknown operators pass, for newer clients.
    assert.deepEqual(ssar.strategy.validate!(review({ resourceAttributes: { ...pods, labelSelector: { requirements: [{ key: 'a', operator: 'Gt', values: ['1'] }] } } })), []);
  });

  it('LocalSubjectAccessReview: namespace must match, no non-resource attributes', () => {
    const lsar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { namespace: 'default' }) =>
      msgs(validateLocalSubjectAccessReview(review(spec, metadata)));
    assert.deepEqual(lsar({ resourceAttributes: pods, user: 'u' }), []);
    assert.deepEqual(lsar({ resourceAttributes: { ...pods, namespace: 'other' }, user: 'u' }), [
      'spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    ]);
    assert.deepEqual(lsar({ nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'u' }), [
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
    ]);
    assert.match(lsar({ resourceAttributes: pods, user: 'u' }, { namespace: 'default', name: 'n' })[0], /^metadata: Invalid value: v1\.ObjectMeta\{Name:"n", .*: must be empty except for namespace$/);
  });
});

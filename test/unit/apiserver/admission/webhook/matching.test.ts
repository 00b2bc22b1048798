import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activation, evaluateMatchConditions, isExempt, matchesSelectors, ruleMatches } from '../../../../../src/apiserver/admission/webhook/matching.js';
import type { RequestAttributes } from '../../../../../src/apiserver/admission/webhook/types.js';

const req = (over: Partial<RequestAttributes> = {}): RequestAttributes => ({
  uid: 'u', operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' },
  subResource: '', name: 'p', namespace: 'ns', namespaced: true, dryRun: false, userInfo: { username: 'alice', groups: ['dev'] },
  object: { metadata: { name: 'p', labels: { app: 'web' } } }, ...over,
});
const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

describe('webhook rules', () => {
  it('match operations, groups, versions and resources with wildcards', () => {
    assert.ok(ruleMatches(rule, req()));
    assert.ok(!ruleMatches(rule, req({ operation: 'UPDATE' })));
    assert.ok(ruleMatches({ ...rule, operations: ['*'] }, req({ operation: 'DELETE' })));
    assert.ok(!ruleMatches({ ...rule, apiGroups: ['apps'] }, req()));
    assert.ok(ruleMatches({ ...rule, apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }, req()));
    assert.ok(!ruleMatches({ ...rule, operations: [] }, req()), 'an empty list matches nothing');
  });

  it('match subresources: "pods" is the object only, "pods/*", "*/status" and "*/*"', () => {
    const status = req({ operation: 'UPDATE', subResource: 'status' });
    const r = (resources: string[]) => ({ ...rule, operations: ['*'], resources });
    assert.ok(!ruleMatches(r(['pods']), status));
    assert.ok(!ruleMatches(r(['*']), status));
    assert.ok(ruleMatches(r(['pods/*']), status));
    assert.ok(ruleMatches(r(['*/status']), status));
    assert.ok(ruleMatches(r(['pods/status']), status));
    assert.ok(!ruleMatches(r(['pods/exec']), status));
    assert.ok(ruleMatches(r(['*/*']), req()));
  });

  it('match scope; a Namespace is cluster-scoped', () => {
    assert.ok(ruleMatches({ ...rule, scope: 'Namespaced' }, req()));
    assert.ok(!ruleMatches({ ...rule, scope: 'Cluster' }, req()));
    const ns = req({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: 'x', namespaced: true });
    const nsRule = { ...rule, resources: ['namespaces'] };
    assert.ok(ruleMatches({ ...nsRule, scope: 'Cluster' }, ns));
    assert.ok(!ruleMatches({ ...nsRule, scope: 'Namespaced' }, ns));
  });

  it('exempt the webhook and policy configurations', () => {
    assert.ok(isExempt(req({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } })));
    assert.ok(isExempt(req({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings' } })));
    assert.ok(!isExempt(req()));
  });
});

describe('webhook selectors', () => {
  it('namespaceSelector uses the namespace labels, or a Namespace\'s own; cluster-scoped requests always match', () => {
    const hook = { namespaceSelector: { matchLabels: { env: 'prod' } } };
    assert.ok(matchesSelectors(hook, req(), { env: 'prod' }));
    assert.ok(!matchesSelectors(hook, req(), { env: 'dev' }));
    assert.ok(matchesSelectors(hook, req({ namespaced: false, namespace: '' }), undefined));
    const ns = req({ resource: { group: '', version: 'v1', resource: 'namespaces' }, object: { metadata: { name: 'x', labels: { env: 'prod' } } } });
    assert.ok(matchesSelectors(hook, ns, undefined));
  });

  it('objectSelector matches the object or the old object', () => {
    const hook = { objectSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } };
    assert.ok(matchesSelectors(hook, req(), {}));
    assert.ok(!matchesSelectors(hook, req({ object: { metadata: {} } }), {}));
    assert.ok(matchesSelectors(hook, req({ operation: 'DELETE', object: undefined, oldObject: { metadata: { labels: { app: 'web' } } } }), {}));
  });
});

describe('match conditions', () => {
  const allow = () => ({ decision: 'allow' as const, reason: '' });
  const run = (exprs: string[]) => evaluateMatchConditions({ matchConditions: exprs.map((expression, i) => ({ name: `c${i}`, expression })) }, () => activation(req(), allow));

  it('all true → match; any false → no match, even beside errors', () => {
    assert.deepEqual(run(["request.userInfo.username == 'alice'", "object.metadata.labels.app == 'web'"]), { matched: true });
    assert.deepEqual(run(['false', 'object.nope == 1']), { matched: false });
  });

  it('errors without a false are reported, one as itself and several aggregated', () => {
    assert.deepEqual(run(['true', 'object.nope == 1']), { error: "expression 'object.nope == 1' resulted in error: no such key: nope" });
    const two = run(['object.a == 1', 'object.b == 1']);
    assert.ok('error' in two && two.error.startsWith("[expression 'object.a == 1' resulted in error: no such key: a, expression 'object.b == 1'"));
  });

  it('ask the authorizer as the requesting user', () => {
    const seen: string[] = [];
    const authz = (u: { name: string }, a: { verb: string; resource: string; namespace: string }) => {
      seen.push(`${u.name} ${a.verb} ${a.resource} ${a.namespace}`);
      return { decision: a.verb === 'get' ? ('allow' as const) : ('noopinion' as const), reason: '' };
    };
    const r = evaluateMatchConditions({ matchConditions: [{ name: 'a', expression: "authorizer.requestResource.check('get').allowed() && !authorizer.group('').resource('secrets').check('list').allowed()" }] }, () => activation(req(), authz));
    assert.deepEqual(r, { matched: true });
    assert.deepEqual(seen, ['alice get pods ns', 'alice list secrets ']);
  });
});

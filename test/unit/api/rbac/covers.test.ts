// Rule coverage and the escalation text, against the cases of kube's policy_comparator and ConfirmNoEscalation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakdownRule, compactRules, compactString, escalationError, uncoveredRules } from '../../../../src/api/rbac/covers.js';
import { ALL_RULES } from '../../../../src/api/rbac/rules.js';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]) => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });

describe('RBAC rule coverage', () => {
  it('breaks a rule down to one group, resource, verb and name each', () => {
    assert.equal(breakdownRule(rule(['get', 'list'], ['', 'apps'], ['pods', 'deployments'], ['a', 'b'])).length, 16);
    assert.deepEqual(breakdownRule({ verbs: ['get', 'head'], nonResourceURLs: ['/healthz'] }), [
      { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      { nonResourceURLs: ['/healthz'], verbs: ['head'] },
    ]);
    assert.deepEqual(breakdownRule({ verbs: ['get'], resources: ['pods'] }), [], 'no group: nothing granted');
  });

  it('covers by stars, exact values, */subresource and URL prefixes', () => {
    assert.deepEqual(uncoveredRules([...ALL_RULES], [rule(['*'], ['*'], ['*']), { verbs: ['get'], nonResourceURLs: ['/x'] }]), []);
    assert.deepEqual(uncoveredRules([rule(['get', 'list'], [''], ['pods'])], [rule(['get'], [''], ['pods'])]), []);
    assert.deepEqual(uncoveredRules([rule(['get'], [''], ['pods'])], [rule(['get', 'delete'], [''], ['pods'])]), [rule(['delete'], [''], ['pods'])]);
    assert.deepEqual(uncoveredRules([rule(['get'], ['*'], ['*/scale'])], [rule(['get'], ['apps'], ['deployments/scale'])]), []);
    assert.equal(uncoveredRules([rule(['get'], ['*'], ['*/scale'])], [rule(['get'], ['apps'], ['deployments'])]).length, 1);
    assert.equal(uncoveredRules([rule(['get'], [''], ['pods'])], [rule(['*'], [''], ['pods'])]).length, 1, 'a star is only covered by a star');
    assert.deepEqual(uncoveredRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }]), []);
    assert.equal(uncoveredRules([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/api'] }]).length, 1);
  });

  it('holds named objects only through unnamed rules or the same names', () => {
    assert.deepEqual(uncoveredRules([rule(['get'], [''], ['cm'])], [rule(['get'], [''], ['cm'], ['a'])]), []);
    assert.deepEqual(uncoveredRules([rule(['get'], [''], ['cm'], ['a', 'b'])], [rule(['get'], [''], ['cm'], ['a'])]), []);
    assert.equal(uncoveredRules([rule(['get'], [''], ['cm'], ['a'])], [rule(['get'], [''], ['cm'])]).length, 1);
  });

  it('compacts single group/resource rules by verb and prints them compactly', () => {
    const missing = [rule(['get'], [''], ['pods']), rule(['delete'], [''], ['pods']), rule(['get'], [''], ['cm'], ['a'])];
    assert.deepEqual(compactRules(missing), [rule(['get'], [''], ['cm'], ['a']), rule(['get', 'delete'], [''], ['pods'])]);
    assert.equal(compactString(rule(['get', 'delete'], [''], ['pods'])), '{APIGroups:[""], Resources:["pods"], Verbs:["get" "delete"]}');
    assert.equal(compactString(rule(['get'], ['apps'], ['deployments'], ['web'])), '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}');
    assert.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/metrics'] }), '{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  });
});

describe('the escalation text', () => {
  const alice = { name: 'alice', groups: ['g', 'system:authenticated'] };
  it('says nothing when the rules are held', () => {
    assert.equal(escalationError(alice, [rule(['*'], [''], ['pods'])], [rule(['get', 'delete'], [''], ['pods'])]), undefined);
  });

  it('lists the missing rules sorted, as kube-apiserver words it', () => {
    const granted = [rule(['delete'], [''], ['pods']), rule(['get'], ['apps'], ['deployments']), { verbs: ['get'], nonResourceURLs: ['/metrics'] }];
    assert.equal(
      escalationError(alice, [rule(['get'], ['apps'], ['deployments'])], granted),
      'user "alice" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });

  it('appends resolution errors as an aggregate in a list', () => {
    const text = (errs: string[]) => escalationError({ name: 'bob' }, [], [rule(['get'], [''], ['pods'])], errs);
    assert.equal(text(['roles.rbac.authorization.k8s.io "x" not found']), 'user "bob" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [roles.rbac.authorization.k8s.io "x" not found]');
    assert.ok(text(['a', 'b', 'a'])?.endsWith('; resolution errors: [[a, b]]'));
  });
});

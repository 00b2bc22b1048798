// Impersonation headers: what kube's buildImpersonationRequests reads from them, the error without a user, the
// attributes each is authorized with, the user a request then runs as, and the bearer token and anonymous parts
// of authentication.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerToken } from '../../../../src/apiserver/auth/authentication.js';
import {
  extraKey,
  hasImpersonationHeaders,
  impersonate,
  impersonationAttributes,
  impersonationRequests,
  internalErrorText,
  splitServiceAccountUsername,
} from '../../../../src/apiserver/auth/impersonation.js';
import type { RequestAttributes } from '../../../../src/api/rbac/rules.js';

const raw = (...pairs: [string, string][]) => pairs.flat();
const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
const allowAll = { authorize: () => ({ allowed: true, reason: '' }), rulesFor: () => [] };

describe('impersonation headers', () => {
  it('reads the user, groups in order, extras and the uid, in any case', () => {
    const reqs = impersonationRequests(raw(['impersonate-group', 'b'], ['Impersonate-User', 'jane'], ['IMPERSONATE-GROUP', 'a'], ['Impersonate-Extra-Scopes', 'x'], ['impersonate-extra-scopes', 'y'], ['Impersonate-Uid', 'u1'], ['Accept', '*/*']));
    assert.deepEqual(reqs, [
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'b' },
      { kind: 'Group', name: 'a' },
      { kind: 'UserExtra', name: 'x', key: 'scopes' },
      { kind: 'UserExtra', name: 'y', key: 'scopes' },
      { kind: 'UID', name: 'u1' },
    ]);
    assert.equal(hasImpersonationHeaders(raw(['Accept', '*/*'], ['Authorization', 'Bearer x'])), false);
    assert.equal(hasImpersonationHeaders(raw(['Impersonate-Uid', 'x'])), true);
  });

  it('takes the first user and uid only; an empty user is none', () => {
    assert.deepEqual(impersonationRequests(raw(['Impersonate-User', 'a'], ['Impersonate-User', 'b'])), [{ kind: 'User', name: 'a' }]);
    assert.throws(() => impersonationRequests(raw(['Impersonate-User', ''], ['Impersonate-User', 'b'], ['Impersonate-Group', 'g'])), /without impersonating a user/);
  });

  it('percent-decodes extra keys after lower-casing, keeping a malformed one as sent', () => {
    assert.equal(extraKey('Example.COM%2FScope'), 'example.com/scope');
    assert.equal(extraKey('a%zzb'), 'a%zzb');
    assert.equal(extraKey('a%0d%0ab'), 'a\r\nb');
    assert.equal(extraKey('%c3%a9'), 'é');
    assert.equal(extraKey('%ff'), '\ufffd');
  });

  it("words the error without a user as Go prints the ObjectReferences", () => {
    assert.throws(() => impersonationRequests(raw(['Impersonate-Group', 'foo'])), { message: 'requested [{Group  foo    }] without impersonating a user' });
    assert.throws(() => impersonationRequests(raw(['Impersonate-Extra-k', 'v'], ['Impersonate-Uid', 'u'])), {
      message: 'requested [{UserExtra  v  authentication.k8s.io/v1  k} {UID  u  authentication.k8s.io/v1  }] without impersonating a user',
    });
    assert.equal(internalErrorText('/api?a=<b>&c', 'x'), 'Internal Server Error: "/api?a=&lt;b&gt;&amp;c": x\n');
  });

  it('recognises service account users only when their namespace and name are valid', () => {
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:sa'), { namespace: 'ns', name: 'sa' });
    for (const u of ['system:serviceaccount:ns', 'system:serviceaccount:ns:sa:x', 'system:serviceaccount:NS:sa', 'system:serviceaccount::sa', 'serviceaccount:ns:sa']) {
      assert.equal(splitServiceAccountUsername(u), undefined, u);
    }
    assert.deepEqual(impersonationRequests(raw(['Impersonate-User', 'system:serviceaccount:Bad:sa'])), [{ kind: 'User', name: 'system:serviceaccount:Bad:sa' }]);
  });

  it('authorizes each with kube attributes', () => {
    const pick = (a: RequestAttributes) => [a.verb, a.apiGroup, a.resource, a.subresource, a.namespace, a.name].join('|');
    assert.equal(pick(impersonationAttributes({ kind: 'User', name: 'jane' })), 'impersonate||users|||jane');
    assert.equal(pick(impersonationAttributes({ kind: 'Group', name: 'g' })), 'impersonate||groups|||g');
    assert.equal(pick(impersonationAttributes({ kind: 'ServiceAccount', namespace: 'ns', name: 'sa' })), 'impersonate||serviceaccounts||ns|sa');
    assert.equal(pick(impersonationAttributes({ kind: 'UID', name: 'u' })), 'impersonate|authentication.k8s.io|uids|||u');
    assert.equal(pick(impersonationAttributes({ kind: 'UserExtra', name: 'v', key: 'scopes' })), 'impersonate|authentication.k8s.io|userextras|scopes||v');
  });
});

describe('the impersonated user', () => {
  const as = (...pairs: [string, string][]) => {
    const r = impersonate(admin, raw(...pairs), allowAll);
    assert.ok(r && 'user' in r, JSON.stringify(r));
    return r.user;
  };

  it('gets system:authenticated, unless the groups name it or system:unauthenticated', () => {
    assert.deepEqual(as(['Impersonate-User', 'jane']), { name: 'jane', groups: ['system:authenticated'] });
    assert.deepEqual(as(['Impersonate-User', 'jane'], ['Impersonate-Group', 'system:unauthenticated']), { name: 'jane', groups: ['system:unauthenticated'] });
    assert.deepEqual(as(['Impersonate-User', 'jane'], ['Impersonate-Group', 'g'], ['Impersonate-Uid', 'u'], ['Impersonate-Extra-K', 'v']), {
      name: 'jane', groups: ['g', 'system:authenticated'], uid: 'u', extra: { k: ['v'] },
    });
  });

  it('as system:anonymous gets system:unauthenticated', () => {
    assert.deepEqual(as(['Impersonate-User', 'system:anonymous']), { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    assert.deepEqual(as(['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'system:authenticated']), { name: 'system:anonymous', groups: ['system:authenticated', 'system:unauthenticated'] });
  });

  it("as a service account gets its groups, unless groups are given", () => {
    assert.deepEqual(as(['Impersonate-User', 'system:serviceaccount:ns:sa']), {
      name: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    });
    assert.deepEqual(as(['Impersonate-User', 'system:serviceaccount:ns:sa'], ['Impersonate-Group', 'g']), { name: 'system:serviceaccount:ns:sa', groups: ['g', 'system:authenticated'] });
  });

  it('is refused at the first thing the requester may not impersonate, with kube\'s 403', () => {
    const onlyJane = { authorize: (_u: unknown, a: RequestAttributes) => ({ allowed: a.resource === 'users' && a.name === 'jane', reason: '' }), rulesFor: () => [] };
    const bob = { name: 'bob', groups: ['system:authenticated'] };
    assert.ok('user' in impersonate(bob, raw(['Impersonate-User', 'jane']), onlyJane)!);
    const r = impersonate(bob, raw(['Impersonate-User', 'jane'], ['Impersonate-Extra-Scopes', 'view']), onlyJane);
    assert.ok(r && 'forbidden' in r);
    assert.equal(r.forbidden.message, 'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    assert.equal(r.forbidden.code, 403);
    const sa = impersonate(bob, raw(['Impersonate-User', 'system:serviceaccount:ns:sa']), onlyJane);
    assert.ok(sa && 'forbidden' in sa);
    assert.equal(sa.forbidden.message, 'serviceaccounts "sa" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"');
    assert.deepEqual(impersonate(bob, raw(['Impersonate-Group', 'g']), onlyJane), { internalError: 'requested [{Group  g    }] without impersonating a user' });
    assert.equal(impersonate(bob, raw(['Accept', '*/*']), onlyJane), undefined);
  });
});

describe('bearer tokens', () => {
  it('reads the scheme in any case, and an empty or missing token as no credentials', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('bearer abc'), 'abc');
    assert.equal(bearerToken('Bearer abc def'), 'abc');
    assert.equal(bearerToken('Bearer '), undefined);
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

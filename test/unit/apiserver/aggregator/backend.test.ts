// The request-header identity sent to extension API servers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authProxyHeaders, escapeHeaderKey, isIdentityHeader } from '../../../../src/apiserver/aggregator/backend.js';

describe('request-header identity', () => {
  it('sends the user, one group header per group and escaped extra keys', () => {
    assert.deepEqual(authProxyHeaders({ name: 'alice', groups: ['a', 'b'], extra: { 'scopes.example.com/x y': ['1', '2'], empty: [] } }), {
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['a', 'b'],
      'X-Remote-Extra-scopes.example.com%2Fx%20y': ['1', '2'],
    });
  });

  it('escapes like Go\'s headerKeyEscape', () => {
    assert.equal(escapeHeaderKey('a-b_c.d~'), 'a-b_c.d~');
    assert.equal(escapeHeaderKey('ü%'), '%C3%BC%25');
  });

  it('recognises the identity headers a client may not pass on', () => {
    for (const h of ['X-Remote-User', 'x-remote-group', 'X-Remote-Extra-foo', 'Impersonate-User']) assert.ok(isIdentityHeader(h), h);
    assert.ok(!isIdentityHeader('Accept'));
  });
});

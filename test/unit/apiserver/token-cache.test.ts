import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedTokenAuthenticator } from '../../../src/apiserver/auth/token-cache.js';

const jwt = (exp: number) => `h.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.s`;

describe('token authentication cache', () => {
  it('remembers successes for 10 s, never failures, and never past the token expiry', async () => {
    let t = 1_000_000_000_000;
    let calls = 0;
    let valid = true;
    const auth = cachedTokenAuthenticator(async () => {
      calls++;
      return valid ? { name: 'u', groups: [] } : undefined;
    }, () => t);
    const long = jwt(t / 1000 + 3600);
    assert.equal((await auth(long))?.name, 'u');
    valid = false;
    assert.equal((await auth(long))?.name, 'u', 'served from the cache');
    assert.equal(calls, 1);
    t += 10_001;
    assert.equal(await auth(long), undefined, 'expired from the cache after 10 s');
    assert.equal(await auth(long), undefined);
    assert.equal(calls, 3, 'failures are not cached');
    valid = true;
    const short = jwt(t / 1000 + 2);
    await auth(short);
    t += 2_500;
    valid = false;
    assert.equal(await auth(short), undefined, 'a cached token is not served past its exp');
    assert.equal(await auth(long, ['other']), undefined, 'audiences are part of the key');
  });
});

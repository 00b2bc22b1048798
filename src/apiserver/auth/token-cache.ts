// Successful bearer-token authentications are remembered for 10 s, as kube-apiserver's token cache does
// (--token-auth success TTL 10 s, failures not cached): verifying a JWT and reading its ServiceAccount on every
// request would cost more than the request itself. A cached entry never outlives the token's own expiry.
import type { UserInfo } from '../context.js';

const SUCCESS_TTL_MS = 10_000;
const MAX_ENTRIES = 4096;

export type TokenAuthenticator = (token: string, audiences?: string[]) => Promise<UserInfo | undefined>;

export function cachedTokenAuthenticator(inner: TokenAuthenticator, now: () => number = Date.now): TokenAuthenticator {
  const cache = new Map<string, { user: UserInfo; until: number }>();
  return async (token, audiences) => {
    const key = audiences?.length ? `${audiences.join(',')}\u0000${token}` : token;
    const t = now();
    const hit = cache.get(key);
    if (hit && hit.until > t) return hit.user;
    if (hit) cache.delete(key);
    const user = await inner(token, audiences);
    if (user) {
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(key, { user, until: Math.min(t + SUCCESS_TTL_MS, expiryOf(token) ?? Infinity) });
    }
    return user;
  };
}

/** The `exp` claim of a JWT in ms, read without verifying (the token was verified before it was cached). */
function expiryOf(token: string): number | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: number }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

// Bootstrap tokens (kube-apiserver's --enable-bootstrap-token-auth, plugin/pkg/auth/authenticator/token/bootstrap):
// a bearer token `<id>.<secret>` is looked up as the Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token, and authenticates as system:bootstrap:<id> in system:bootstrappers (and the Secret's
// auth-extra-groups) while it is not expired, not being deleted and allowed for authentication. A node joining the
// cluster uses one to ask for its client certificate.
import { timingSafeEqual } from 'node:crypto';
import type { Registry } from '../registry/registry.js';
import type { UserInfo } from '../context.js';
import { StatusError } from '../../machinery/errors.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_GROUP = 'system:bootstrappers';
/** `<6 lowercase letters or digits>.<16 of them>` (bootstrapapi.BootstrapTokenPattern) */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** what an extra group must look like (bootstrapapi.BootstrapGroupPattern) */
export const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

interface TokenSecret {
  metadata: { deletionTimestamp?: string };
  type?: string;
  data?: Record<string, string>;
}

const field = (s: TokenSecret, key: string) => (s.data?.[key] === undefined ? undefined : Buffer.from(s.data[key]!, 'base64').toString('utf8'));

const sameString = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The Secret's user, or why it does not authenticate (kube logs the reason and answers 401 either way). */
export function bootstrapTokenUser(secret: TokenSecret, id: string, tokenSecret: string, now = Date.now()): UserInfo | string {
  if (secret.metadata.deletionTimestamp) return 'the token is being deleted';
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return `the Secret has type ${secret.type ?? ''}, not ${BOOTSTRAP_TOKEN_SECRET_TYPE}`;
  if (field(secret, 'token-id') !== id || !sameString(field(secret, 'token-secret') ?? '', tokenSecret)) return 'the token does not match';
  const expiration = field(secret, 'expiration');
  if (expiration !== undefined) {
    const at = Date.parse(expiration);
    if (Number.isNaN(at) || at <= now) return 'the token has expired';
  }
  if (field(secret, 'usage-bootstrap-authentication') !== 'true') return 'the token is not for authentication';
  const extra = (field(secret, 'auth-extra-groups') ?? '').split(',').map((g) => g.trim()).filter(Boolean);
  const bad = extra.find((g) => !EXTRA_GROUP_PATTERN.test(g));
  if (bad) return `auth-extra-groups has ${JSON.stringify(bad)}, which is not system:bootstrappers:…`;
  return { name: `system:bootstrap:${id}`, groups: [BOOTSTRAP_GROUP, ...extra, 'system:authenticated'] };
}

export function bootstrapTokenAuthenticator(registry: Registry) {
  return async (token: string): Promise<UserInfo | undefined> => {
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!m) return undefined;
    let secret: TokenSecret;
    try {
      secret = (await registry.mustLookup('', 'v1', 'secrets').get('kube-system', `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${m[1]}`)) as unknown as TokenSecret;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
    const user = bootstrapTokenUser(secret, m[1]!, m[2]!);
    return typeof user === 'string' ? undefined : user;
  };
}

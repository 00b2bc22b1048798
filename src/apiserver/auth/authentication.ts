// Request authentication as kube-apiserver's chain runs it: a verified client certificate, else a bearer token,
// else (with --anonymous-auth, kube's default) system:anonymous in system:unauthenticated. Credentials that are
// sent but fail (an unknown token, a certificate of another CA) are a 401 even when anonymous requests are
// allowed (kube's union.NewFailOnError): a bad login is never downgraded to anonymous.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { PeerIdentityCache } from '../../pki/client-auth.js';
import type { UserInfo } from '../context.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export interface AuthenticationOptions {
  /** bearer-token authenticators (service accounts); undefined: a token always fails */
  authenticateToken?: (token: string) => Promise<UserInfo | undefined>;
  /** --anonymous-auth: requests without credentials run as system:anonymous instead of failing */
  anonymous: boolean;
}

/** The user, or undefined for a 401; a promise only when a bearer token has to be checked. */
export type Authentication = UserInfo | undefined | Promise<UserInfo | undefined>;

export function anonymousUser(): UserInfo {
  return { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
}

/** The token of an `Authorization: Bearer <token>` header (scheme in any case), as kube's bearertoken reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.split(' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

export class Authenticator {
  private readonly peers = new PeerIdentityCache();

  constructor(private readonly opts: AuthenticationOptions) {}

  authenticate(req: IncomingMessage): Authentication {
    const socket = req.socket as TLSSocket;
    const peer = this.peers.identity(socket);
    if (peer) {
      const groups = peer.groups.includes(AUTHENTICATED_GROUP) ? [...peer.groups] : [...peer.groups, AUTHENTICATED_GROUP];
      return { name: peer.user, groups };
    }
    if (this.peers.rejected(socket)) return undefined;
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) return this.opts.authenticateToken ? this.opts.authenticateToken(token) : undefined;
    return this.opts.anonymous ? anonymousUser() : undefined;
  }
}

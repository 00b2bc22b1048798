// Kubernetes x509 client authentication: the user is the certificate's CN and
// the groups are its O values (k8s.io/apiserver/pkg/authentication/request/x509).
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface PeerIdentity {
  user: string;
  groups: string[];
}

// node returns a subject attribute as a string, or as an array when it repeats.
type SubjectValue = string | string[] | undefined;

const values = (v: SubjectValue): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * The identity in a peer certificate as returned by `TLSSocket.getPeerCertificate()`,
 * or null when there is none (no certificate yields `{}`) or it has no usable CN.
 * Does NOT check that the certificate was verified: see `authenticatedPeer`.
 */
export function identityFromPeerCertificate(cert: Partial<PeerCertificate> | null | undefined): PeerIdentity | null {
  const subject = cert?.subject as Record<string, SubjectValue> | undefined;
  if (!subject) return null;
  const cns = values(subject.CN);
  // Several CNs would make the user ambiguous (Go silently takes the last one): refuse instead.
  if (cns.length !== 1 || cns[0] === '') return null;
  return { user: cns[0]!, groups: values(subject.O).filter((o) => o !== '') };
}

/**
 * The identity of the client on a TLS socket, only if its certificate chain was
 * verified against the server's `ca` (with `requestCert: true`). OpenSSL also
 * enforces the clientAuth extended key usage during that verification.
 */
export function authenticatedPeer(socket: TLSSocket): PeerIdentity | null {
  if (!socket.authorized) return null;
  return identityFromPeerCertificate(socket.getPeerCertificate());
}

/**
 * `authenticatedPeer`, remembered per TLS connection: reading the peer certificate (getPeerCertificate builds
 * the whole certificate as JS objects, fingerprints included) costs more than the rest of a small request.
 * A TLS 1.2 renegotiation changes the handshake's Finished message, so a changed one forces a fresh read. TLS 1.3
 * has no renegotiation (and node offers no post-handshake authentication): its connections keep their first answer
 * without copying the Finished message out at every request.
 */
interface PeerEntry {
  finished: Buffer | undefined;
  identity: PeerIdentity | null;
  fixed: boolean;
  rejected?: boolean;
}

export class PeerIdentityCache {
  private readonly bySocket = new WeakMap<TLSSocket, PeerEntry>();

  identity(socket: TLSSocket): PeerIdentity | null {
    return this.entry(socket).identity;
  }

  /**
   * Whether the client sent a certificate that did not verify: kube's x509 authenticator fails such a request
   * (401) instead of passing it on to the next authenticator or to anonymous.
   */
  rejected(socket: TLSSocket): boolean {
    const e = this.entry(socket);
    if (e.rejected === undefined) {
      const cert = socket.authorized ? undefined : socket.getPeerCertificate?.();
      e.rejected = !!cert && Object.keys(cert).length > 0;
    }
    return e.rejected;
  }

  private entry(socket: TLSSocket): PeerEntry {
    const hit = this.bySocket.get(socket);
    if (hit?.fixed) return hit;
    const finished = socket.getFinished();
    if (hit && finished && hit.finished?.equals(finished)) return hit;
    const e: PeerEntry = { finished, identity: authenticatedPeer(socket), fixed: !!finished && socket.getProtocol() === 'TLSv1.3' };
    this.bySocket.set(socket, e);
    return e;
  }
}

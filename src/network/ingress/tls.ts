// Certificates for the ingress HTTPS listener: SNI picks the TLS Secret of the Ingress `tls` entry naming the host
// (exact or one-label `*.` wildcard), an entry without hosts covers any host, and anything else gets the self-signed
// "Kubernetes Ingress Controller Fake Certificate" as ingress-nginx serves.
import tls from 'node:tls';
import type { Ingress } from '../../api/networking/ingress/schema.js';
import type { Informer } from '../../client/informer.js';
import { createCa, createServingCert, type CertKeyPem } from '../../pki/certs.js';
import { hostMatches } from './match.js';

export const FAKE_CERT_CN = 'Kubernetes Ingress Controller Fake Certificate';

export interface TlsEntry {
  hosts: string[];
  namespace: string;
  secretName: string;
  ingress: string;
}

/** The fallback certificate: a leaf for localhost/127.0.0.1 signed by a throw-away CA. */
export async function fakeCertificate(): Promise<CertKeyPem> {
  const ca = await createCa({ commonName: `${FAKE_CERT_CN} CA` });
  return createServingCert(ca, { commonName: FAKE_CERT_CN, hostnames: ['localhost', 'ingress.local'], ips: ['127.0.0.1', '::1'] });
}

/** TLS entries of the served Ingresses, oldest Ingress first (the caller sorts). */
export function tlsEntries(ingresses: readonly Ingress[]): TlsEntry[] {
  const out: TlsEntry[] = [];
  for (const ing of ingresses) {
    for (const t of ing.spec?.tls ?? []) {
      if (!t.secretName) continue;
      out.push({ hosts: (t.hosts ?? []).map((h) => h.toLowerCase()), namespace: ing.metadata.namespace!, secretName: t.secretName, ingress: ing.metadata.name! });
    }
  }
  return out;
}

export type SecretCheck = { ok: true; context: tls.SecureContext } | { ok: false; reason: string };

export class TlsStore {
  private entries: TlsEntry[] = [];
  private readonly contexts = new Map<string, SecretCheck>();
  readonly fallback: tls.SecureContext;

  constructor(
    private readonly secrets: Informer,
    fallback: CertKeyPem,
  ) {
    this.fallback = tls.createSecureContext({ cert: fallback.certPem, key: fallback.keyPem });
  }

  setEntries(entries: TlsEntry[]): void {
    this.entries = entries;
  }

  /** The secure context of one Secret, or why it cannot be used (cached per resourceVersion). */
  check(namespace: string, name: string): SecretCheck {
    const secret = this.secrets.get(namespace, name) as { data?: Record<string, string>; metadata: { resourceVersion?: string } } | undefined;
    if (!secret) return { ok: false, reason: `secret "${namespace}/${name}" not found` };
    const key = `${namespace}/${name}@${secret.metadata.resourceVersion}`;
    let c = this.contexts.get(key);
    if (c) return c;
    const crt = secret.data?.['tls.crt'];
    const pk = secret.data?.['tls.key'];
    if (!crt || !pk) c = { ok: false, reason: `secret "${namespace}/${name}" has no tls.crt and tls.key` };
    else {
      try {
        c = { ok: true, context: tls.createSecureContext({ cert: Buffer.from(crt, 'base64'), key: Buffer.from(pk, 'base64') }) };
      } catch (e) {
        c = { ok: false, reason: `secret "${namespace}/${name}" holds no valid certificate and key: ${(e as Error).message}` };
      }
    }
    if (this.contexts.size > 1024) this.contexts.clear();
    this.contexts.set(key, c);
    return c;
  }

  /** SNI: exact host entries, then wildcard entries, then entries without hosts, else the fallback. */
  contextFor(servername: string | undefined): tls.SecureContext {
    const host = (servername ?? '').toLowerCase();
    const tiers: ((e: TlsEntry) => boolean)[] = [
      (e) => host !== '' && e.hosts.includes(host),
      (e) => host !== '' && e.hosts.some((h) => h.startsWith('*.') && hostMatches(h, host)),
      (e) => e.hosts.length === 0,
    ];
    for (const tier of tiers) {
      for (const e of this.entries) {
        if (!tier(e)) continue;
        const c = this.check(e.namespace, e.secretName);
        if (c.ok) return c.context;
      }
    }
    return this.fallback;
  }
}

// The front-proxy PKI of a data directory: a CA of its own (kube's --requestheader-client-ca-file) and the client
// certificate the API server presents to extension API servers it proxies to (--proxy-client-cert-file, CN
// front-proxy-client), kept next to the cluster's certificates and reused on later starts.
import { chmod } from 'node:fs/promises';
import { createCa, createClientCert, isExpired, keyMatchesCert, needsRenewal, subjectOf } from './certs.js';
import { KEY_MODE } from './fsutil.js';
import { holds, loadPair, reusable, writePair, type CertFiles } from './pki.js';

export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

export interface FrontProxyFiles {
  ca: CertFiles;
  client: CertFiles;
  written: string[];
}

/** Creates what is missing or unusable; a CA whose key does not match is replaced (only this server trusts it). */
export async function ensureFrontProxyPki(dir: string): Promise<FrontProxyFiles> {
  const written: string[] = [];
  const [caPair, clientPair] = await Promise.all([loadPair(dir, 'front-proxy-ca'), loadPair(dir, 'front-proxy-client')]);
  const caOk =
    caPair.certPem !== null &&
    caPair.keyPem !== null &&
    holds(() => !isExpired(caPair.certPem!) && !needsRenewal(caPair.certPem!) && keyMatchesCert(caPair.certPem!, caPair.keyPem!));
  const ca: CertFiles = caOk
    ? { certPath: caPair.certPath, keyPath: caPair.keyPath, certPem: caPair.certPem!, keyPem: caPair.keyPem! }
    : await writePair(caPair, await createCa({ commonName: `front-proxy-ca@${Math.floor(Date.now() / 1000)}` }), written);
  const clientPem = reusable(clientPair, ca, (pem) => subjectOf(pem) === `CN=${FRONT_PROXY_CLIENT_NAME}`);
  const client: CertFiles = clientPem
    ? { certPath: clientPair.certPath, keyPath: clientPair.keyPath, ...clientPem }
    : await writePair(clientPair, await createClientCert(ca, { commonName: FRONT_PROXY_CLIENT_NAME }), written);
  await Promise.all([ca.keyPath, client.keyPath].map((p) => chmod(p, KEY_MODE)));
  return { ca, client, written };
}

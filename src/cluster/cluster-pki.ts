// A cluster's certificates and keys at start: the serving names, the cluster's shared files when several servers
// share an etcd (shared-bootstrap.ts), then the data directory's PKI and front-proxy PKI, created or reused.
import { join } from 'node:path';
import { ensureFrontProxyPki, type FrontProxyFiles } from '../pki/front-proxy.js';
import { defaultServingNames, ensurePki, type PkiFiles, type ServingNames } from '../pki/pki.js';
import type { DatastoreOptions } from './datastore.js';
import { ensureSecretsEncryptionConfig } from './secrets-encryption.js';
import { resolveToken, shareBootstrap } from './shared-bootstrap.js';

const UNSPECIFIC = ['127.0.0.1', '0.0.0.0', '::', '::1'];

export interface ClusterPkiOptions {
  dataDir: string;
  bindAddress: string;
  /** the address other servers and clients reach this one at (in the serving certificate) */
  advertiseAddress?: string;
  /** the `kubernetes` Service's IP: in-cluster clients verify the serving certificate against it */
  serviceIP: string;
  datastore?: DatastoreOptions;
  token?: string;
  secretsEncryption?: boolean;
  log: (line: string) => void;
}

export async function clusterPki(opts: ClusterPkiOptions): Promise<{ pki: PkiFiles; frontProxy: FrontProxyFiles; shared: boolean }> {
  const names: ServingNames = defaultServingNames({ serviceIPs: [opts.serviceIP] });
  for (const ip of [opts.bindAddress, opts.advertiseAddress]) if (ip && !UNSPECIFIC.includes(ip) && !names.ips.includes(ip)) names.ips.push(ip);
  const tls = join(opts.dataDir, 'tls');
  const local = async () => {
    const pki = await ensurePki(tls, names);
    // the aggregator's own CA and client certificate, which extension API servers trust through the request headers
    return { pki, frontProxy: await ensureFrontProxyPki(pki.dir) };
  };
  let shared = false;
  if (opts.datastore) {
    const token = await resolveToken(opts.dataDir, opts.token);
    const how = await shareBootstrap({
      dataDir: opts.dataDir,
      datastore: opts.datastore,
      token,
      secretsEncryption: opts.secretsEncryption,
      log: opts.log,
      createLocal: async () => {
        await local();
        if (opts.secretsEncryption) ensureSecretsEncryptionConfig(opts.dataDir, opts.log);
      },
    });
    shared = how !== 'standalone';
  }
  // after the shared files are in place: leaves the shared CA did not sign are issued again, with this server's names
  return { ...(await local()), shared };
}

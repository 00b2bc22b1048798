// `k1s server`'s etcd flags, named as k3s names them: --datastore-endpoint (etcd only: http(s)://host:port, several
// comma-separated), --datastore-cafile/-certfile/-keyfile for TLS, and kube-apiserver's --etcd-prefix.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatastoreOptions } from '../cluster/datastore.js';
import { parseEndpoint } from '../storage/etcd/client.js';

/** the --datastore-* and --etcd-prefix flags (undefined: SQLite), or the usage error */
export function datastoreFlags(values: Record<string, string | boolean | undefined>): DatastoreOptions | undefined | string {
  const endpoint = values['datastore-endpoint'] as string | undefined;
  const files = { caFile: 'datastore-cafile', certFile: 'datastore-certfile', keyFile: 'datastore-keyfile' } as const;
  if (endpoint === undefined) {
    for (const flag of [...Object.values(files), 'etcd-prefix']) if (values[flag] !== undefined) return `--${flag} needs --datastore-endpoint`;
    return undefined;
  }
  const endpoints = endpoint.split(',').map((e) => e.trim()).filter(Boolean);
  if (!endpoints.length) return '--datastore-endpoint needs at least one http(s)://host:port';
  for (const e of endpoints) {
    try {
      parseEndpoint(e);
    } catch (err) {
      return `--datastore-endpoint: ${(err as Error).message}`;
    }
  }
  const opts: DatastoreOptions = { endpoints };
  for (const [key, flag] of Object.entries(files) as [keyof typeof files, string][]) {
    const f = values[flag] as string | undefined;
    if (f === undefined) continue;
    if (!existsSync(f)) return `--${flag} ${f}: no such file`;
    opts[key] = resolve(f);
  }
  if ((opts.certFile === undefined) !== (opts.keyFile === undefined)) return '--datastore-certfile and --datastore-keyfile go together';
  const prefix = values['etcd-prefix'] as string | undefined;
  if (prefix !== undefined) {
    if (!prefix.startsWith('/') || prefix.length < 2) return `--etcd-prefix must be a path such as /registry, got "${prefix}"`;
    opts.prefix = prefix;
  }
  return opts;
}

/** The server flags that put a cluster's state in this etcd (datastoreFlags' inverse). */
export function datastoreArgs(ds: DatastoreOptions): string[] {
  const args = ['--datastore-endpoint', ds.endpoints.join(',')];
  if (ds.prefix && ds.prefix !== '/registry') args.push('--etcd-prefix', ds.prefix);
  if (ds.caFile) args.push('--datastore-cafile', ds.caFile);
  if (ds.certFile) args.push('--datastore-certfile', ds.certFile);
  if (ds.keyFile) args.push('--datastore-keyfile', ds.keyFile);
  return args;
}

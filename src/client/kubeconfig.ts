// Reading a kubeconfig's current context into what an HTTPS client needs (embedded data or file paths).
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { YAML } from '../machinery/yaml.js';

export interface ClientConfig {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  insecure?: boolean;
}

interface Named<T> {
  name: string;
  [k: string]: unknown;
  value?: T;
}

export function loadKubeconfig(path: string, context?: string): ClientConfig {
  const text = readFileSync(path, 'utf8');
  const doc = YAML.parse(text) as Record<string, unknown>;
  const pick = <T>(list: unknown, name: string, field: string): T => {
    const found = ((list ?? []) as Named<T>[]).find((e) => e.name === name);
    if (!found) throw new Error(`kubeconfig ${path}: no ${field} named "${name}"`);
    return found[field] as T;
  };
  const ctxName = context ?? (doc['current-context'] as string);
  if (!ctxName) throw new Error(`kubeconfig ${path}: no current-context`);
  const ctx = pick<{ cluster: string; user: string }>(doc.contexts, ctxName, 'context');
  const cluster = pick<Record<string, unknown>>(doc.clusters, ctx.cluster, 'cluster');
  const user = pick<Record<string, unknown>>(doc.users, ctx.user, 'user') ?? {};
  const base = dirname(path);
  const data = (obj: Record<string, unknown>, dataKey: string, fileKey: string): string | undefined => {
    if (typeof obj[dataKey] === 'string') return Buffer.from(obj[dataKey] as string, 'base64').toString('utf8');
    if (typeof obj[fileKey] === 'string') {
      const f = obj[fileKey] as string;
      return readFileSync(isAbsolute(f) ? f : join(base, f), 'utf8');
    }
    return undefined;
  };
  return {
    server: cluster.server as string,
    caPem: data(cluster, 'certificate-authority-data', 'certificate-authority'),
    certPem: data(user, 'client-certificate-data', 'client-certificate'),
    keyPem: data(user, 'client-key-data', 'client-key'),
    token: typeof user.token === 'string' ? user.token : undefined,
    insecure: cluster['insecure-skip-tls-verify'] === true,
  };
}

// Admin kubeconfig generation, in the shape kubeadm and k3s write it.
import { open } from 'node:fs/promises';
import { YAML } from '../machinery/yaml.js';
import { KEY_MODE, ensureParentDir } from './fsutil.js';

export interface KubeconfigOptions {
  /** API server URL, e.g. https://127.0.0.1:6443 */
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Name of the cluster, user and context entries. */
  name?: string;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** A self-contained kubeconfig (credentials embedded as *-data fields). */
export function kubeconfigYaml(opts: KubeconfigOptions): string {
  const name = opts.name ?? 'k1s';
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users: [
      {
        name,
        user: {
          'client-certificate-data': b64(opts.clientCertPem),
          'client-key-data': b64(opts.clientKeyPem),
        },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
    preferences: {},
  };
  return plainKubeconfig(doc, name) ?? YAML.stringify(doc);
}

// A scalar the yaml package writes unquoted: starts with a letter, no spaces, quotes, '#', flow indicators,
// no ': ' nor a trailing ':', and not a core-schema boolean or null.
const plainSafe = /^[A-Za-z][A-Za-z0-9+/=._:@-]*$/;
const isPlain = (v: string) => plainSafe.test(v) && !v.endsWith(':') && !/^(true|false|null)$/i.test(v);

/**
 * The text `YAML.stringify(doc)` gives for the usual case (all values plain scalars), written without
 * loading the yaml package at start-up; null when a value would need quoting, so the caller falls back.
 */
function plainKubeconfig(doc: { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] }, name: string): string | null {
  const { cluster } = doc.clusters[0];
  const { user } = doc.users[0];
  const values = [name, ...Object.values(cluster), ...Object.values(user)];
  if (!values.every(isPlain)) return null;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${name}`,
    '    cluster:',
    `      server: ${cluster.server}`,
    `      certificate-authority-data: ${cluster['certificate-authority-data']}`,
    'users:',
    `  - name: ${name}`,
    '    user:',
    `      client-certificate-data: ${user['client-certificate-data']}`,
    `      client-key-data: ${user['client-key-data']}`,
    'contexts:',
    `  - name: ${name}`,
    '    context:',
    `      cluster: ${name}`,
    `      user: ${name}`,
    `current-context: ${name}`,
    'preferences: {}',
    '',
  ].join('\n');
}

/**
 * Writes a kubeconfig with mode 0600 (it holds a private key), creating parent
 * directories. Written in place rather than renamed over, so a symlinked
 * ~/.kube/config stays a symlink; the mode is fixed before any byte is written.
 */
export async function writeKubeconfig(path: string, yaml: string): Promise<void> {
  await ensureParentDir(path);
  const fh = await open(path, 'w', KEY_MODE);
  try {
    await fh.chmod(KEY_MODE); // an existing file keeps its old mode on open
    await fh.writeFile(yaml, 'utf8');
  } finally {
    await fh.close();
  }
}

type Named = { name?: unknown } & Record<string, unknown>;
type Config = Record<string, unknown>;

/**
 * Merges `newYaml` into `existingYaml` the way `kind` updates ~/.kube/config:
 * clusters, users and contexts with the same name are replaced, others kept,
 * and current-context switches to the new one. Other fields of the existing
 * file (preferences, extensions) are preserved.
 */
export function mergeKubeconfig(existingYaml: string, newYaml: string): string {
  const existing = (YAML.parse(existingYaml) ?? {}) as Config;
  const incoming = (YAML.parse(newYaml) ?? {}) as Config;
  const merged: Config = { apiVersion: 'v1', kind: 'Config', ...existing };
  for (const key of ['clusters', 'users', 'contexts']) {
    const list = Array.isArray(existing[key]) ? [...(existing[key] as Named[])] : [];
    for (const entry of Array.isArray(incoming[key]) ? (incoming[key] as Named[]) : []) {
      const i = list.findIndex((e) => e?.name === entry.name);
      if (i >= 0) list[i] = entry;
      else list.push(entry);
    }
    merged[key] = list;
  }
  if (incoming['current-context'] !== undefined) merged['current-context'] = incoming['current-context'];
  return YAML.stringify(merged);
}

// Merging a cluster's entries into the user's kubeconfig ($KUBECONFIG's first file, else ~/.kube/config) the way
// kind and minikube do: the cluster, user and context named after the cluster are replaced or added, every other
// entry (and unknown top-level fields) is kept, and the file stays mode 0600 (it holds a private key).
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { YAML } from '../machinery/yaml.js';

interface Named {
  name: string;
  [k: string]: unknown;
}

type Doc = Record<string, unknown> & { clusters?: Named[]; users?: Named[]; contexts?: Named[]; 'current-context'?: string };

/** The kubeconfig file k1s merges into, as kubectl picks the file it writes to. */
export function userKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const first = env.KUBECONFIG?.split(':').find((p) => p !== '');
  return first ?? join(env.HOME || homedir(), '.kube', 'config');
}

function readDoc(file: string): Doc {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const doc = (YAML.parse(text) ?? {}) as Doc;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${file} is not a kubeconfig (not a YAML mapping): fix or move it`);
  return doc;
}

function writeDoc(file: string, doc: Doc): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.k1s-${process.pid}.tmp`;
  writeFileSync(tmp, YAML.stringify(doc), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

function upsert(list: Named[] | undefined, entry: Named): Named[] {
  const out = (list ?? []).filter((e) => e?.name !== entry.name);
  out.push(entry);
  return out;
}

/**
 * Adds the (only) cluster/user/context of the standalone kubeconfig `source` to `target` under `name`, and makes
 * it the current context unless setCurrent is false.
 */
export function mergeKubeconfig(target: string, source: string, opts: { name: string; setCurrent?: boolean }): void {
  const src = readDoc(source);
  const ctx = src.contexts?.find((c) => c.name === src['current-context']) ?? src.contexts?.[0];
  const ctxBody = ctx?.context as { cluster: string; user: string } | undefined;
  const cluster = src.clusters?.find((c) => c.name === ctxBody?.cluster);
  const user = src.users?.find((u) => u.name === ctxBody?.user);
  if (!ctxBody || !cluster || !user) throw new Error(`${source} has no complete context to merge`);
  const doc = readDoc(target);
  doc.apiVersion ??= 'v1';
  doc.kind ??= 'Config';
  doc.clusters = upsert(doc.clusters, { name: opts.name, cluster: cluster.cluster });
  doc.users = upsert(doc.users, { name: opts.name, user: user.user });
  doc.contexts = upsert(doc.contexts, { name: opts.name, context: { cluster: opts.name, user: opts.name } });
  if (opts.setCurrent !== false) doc['current-context'] = opts.name;
  doc.preferences ??= {};
  writeDoc(target, doc);
}

/** Removes the entries named `name`; the current context is cleared if it was this one. True if anything changed. */
export function removeKubeconfigEntries(target: string, name: string): boolean {
  const doc = readDoc(target);
  let changed = false;
  for (const field of ['clusters', 'users', 'contexts'] as const) {
    const list = doc[field];
    if (!list) continue;
    const kept = list.filter((e) => e?.name !== name);
    if (kept.length !== list.length) {
      doc[field] = kept;
      changed = true;
    }
  }
  if (doc['current-context'] === name) {
    doc['current-context'] = '';
    changed = true;
  }
  if (changed) writeDoc(target, doc);
  return changed;
}

/** Whether target has a context named `name`. */
export function hasContext(target: string, name: string): boolean {
  try {
    return readDoc(target).contexts?.some((c) => c.name === name) ?? false;
  } catch {
    return false;
  }
}

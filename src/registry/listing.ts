// tags/list and _catalog: names in containerd's image store, paginated with n/last and a Link header as the spec says.
import type { ServerResponse } from 'node:http';
import type { ContainerdStore } from '../runtime/containerd-store.js';
import { RegistryError } from './routes.js';

function page(items: string[], q: URLSearchParams): { items: string[]; more: boolean } {
  const last = q.get('last');
  const nRaw = q.get('n');
  let list = [...new Set(items)].sort();
  if (last) list = list.filter((t) => t > last);
  if (nRaw === null) return { items: list, more: false };
  const n = Math.max(0, Number(nRaw) || 0);
  return { items: list.slice(0, n), more: list.length > n };
}

function link(path: string, q: URLSearchParams, last: string | undefined): Record<string, string> {
  if (!last) return {};
  return { Link: `<${path}?n=${q.get('n')}&last=${encodeURIComponent(last)}>; rel="next"` };
}

export async function listTags(store: ContainerdStore, names: string[], repo: string, q: URLSearchParams, res: ServerResponse): Promise<void> {
  const tags: string[] = [];
  for (const img of await store.listImages()) {
    const at = img.name.lastIndexOf(':');
    if (at > img.name.lastIndexOf('/') && names.includes(img.name.slice(0, at))) tags.push(img.name.slice(at + 1));
  }
  if (tags.length === 0) throw new RegistryError('NAME_UNKNOWN', 'repository name not known to registry', { name: repo });
  const p = page(tags, q);
  json(res, 200, { name: repo, tags: p.items }, 'GET', p.more ? link(`/v2/${repo}/tags/list`, q, p.items.at(-1)) : {});
}

/** this registry's own repositories by their names, loaded images by their full names (docker.io/library/busybox) */
export async function listCatalog(store: ContainerdStore, self: string, q: URLSearchParams, res: ServerResponse): Promise<void> {
  const repos: string[] = [];
  for (const img of await store.listImages()) {
    if (img.name.includes('@')) continue;
    const at = img.name.lastIndexOf(':');
    const repo = at > img.name.lastIndexOf('/') ? img.name.slice(0, at) : img.name;
    if (repo.startsWith(`${self}/`)) repos.push(repo.slice(self.length + 1));
    else if (!repo.split('/')[0]!.includes(':')) repos.push(repo);
  }
  const p = page(repos, q);
  json(res, 200, { repositories: p.items }, 'GET', p.more ? link('/v2/_catalog', q, p.items.at(-1)) : {});
}

export function json(res: ServerResponse, status: number, body: unknown, method = 'GET', headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(method === 'HEAD' ? undefined : text);
}

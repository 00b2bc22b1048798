// Accept-header negotiation: JSON or YAML, and the meta.k8s.io transformations (Table, PartialObjectMetadata).
import { errors } from '../../machinery/errors.js';

export type Output =
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'table'; apiVersion: string }
  | { kind: 'partial'; apiVersion: string };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [];
  return accept
    .split(',')
    .map((part) => {
      const [type, ...ps] = part.split(';').map((x) => x.trim());
      const params: Record<string, string> = {};
      for (const p of ps) {
        const i = p.indexOf('=');
        if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim();
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((m) => m.type);
}

/** Chooses the response form for a resource request (the first acceptable media range wins). */
export function negotiate(accept: string | undefined, opts: { list: boolean; watch: boolean }): Output {
  const ranges = parseAccept(accept);
  if (!ranges.length) return { kind: 'json' };
  for (const r of ranges) {
    const json = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*';
    const as = r.params.as;
    if (as) {
      if (!json || r.params.g !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(r.params.v ?? '')) continue;
      const apiVersion = `meta.k8s.io/${r.params.v}`;
      if (as === 'Table') return { kind: 'table', apiVersion };
      if (as === 'PartialObjectMetadata' && (!opts.list || opts.watch)) return { kind: 'partial', apiVersion };
      if (as === 'PartialObjectMetadataList' && opts.list) return { kind: 'partial', apiVersion };
      continue;
    }
    if (json) return { kind: 'json' };
    if ((r.type === 'application/yaml' || r.type === 'text/yaml') && !opts.watch) return { kind: 'yaml' };
    if (r.type === 'application/json;stream=watch') return { kind: 'json' };
  }
  throw errors.notAcceptable(
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
}

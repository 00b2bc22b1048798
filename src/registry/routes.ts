// The OCI distribution spec's URL space (/v2/<name>/manifests|blobs|blobs/uploads|tags) and its error bodies, and
// how a repository name maps to an image name in containerd's one multi-registry image store.
import { normalizeImageName } from '../runtime/images.js';

export type Route =
  | { kind: 'ping' }
  | { kind: 'catalog' }
  | { kind: 'manifest'; name: string; reference: string }
  | { kind: 'blob'; name: string; digest: string }
  | { kind: 'uploads'; name: string }
  | { kind: 'upload'; name: string; uuid: string }
  | { kind: 'tags'; name: string };

const COMPONENT = '[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*';
const NAME = `${COMPONENT}(?:/${COMPONENT})*`;
const ROUTES: [RegExp, (m: RegExpExecArray) => Route][] = [
  [/^\/v2\/?$/, () => ({ kind: 'ping' })],
  [/^\/v2\/_catalog$/, () => ({ kind: 'catalog' })],
  [new RegExp(`^/v2/(${NAME})/manifests/([^/]+)$`), (m) => ({ kind: 'manifest', name: m[1]!, reference: m[2]! })],
  [new RegExp(`^/v2/(${NAME})/blobs/uploads/?$`), (m) => ({ kind: 'uploads', name: m[1]! })],
  [new RegExp(`^/v2/(${NAME})/blobs/uploads/([A-Za-z0-9-]+)$`), (m) => ({ kind: 'upload', name: m[1]!, uuid: m[2]! })],
  [new RegExp(`^/v2/(${NAME})/blobs/([^/]+)$`), (m) => ({ kind: 'blob', name: m[1]!, digest: m[2]! })],
  [new RegExp(`^/v2/(${NAME})/tags/list$`), (m) => ({ kind: 'tags', name: m[1]! })],
];

export function parseRoute(pathname: string): Route | undefined {
  for (const [re, make] of ROUTES) {
    const m = re.exec(pathname);
    if (m) return make(m);
  }
  return undefined;
}

export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
/** only sha256: it is what containerd stores and what every client sends */
export const DIGEST = /^sha256:[a-f0-9]{64}$/;
export const isDigest = (s: string): boolean => /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(s);

/** The spec's error codes with their HTTP statuses. */
export const ERRORS = {
  BLOB_UNKNOWN: 404,
  BLOB_UPLOAD_INVALID: 400,
  BLOB_UPLOAD_UNKNOWN: 404,
  DIGEST_INVALID: 400,
  MANIFEST_BLOB_UNKNOWN: 404,
  MANIFEST_INVALID: 400,
  MANIFEST_UNKNOWN: 404,
  NAME_INVALID: 400,
  NAME_UNKNOWN: 404,
  SIZE_INVALID: 400,
  UNSUPPORTED: 405,
  RANGE_INVALID: 416,
} as const;
export type ErrorCode = keyof typeof ERRORS;

export class RegistryError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: unknown,
    readonly status: number = ERRORS[code],
  ) {
    super(message);
  }

  body(): string {
    return JSON.stringify({ errors: [{ code: this.code, message: this.message, detail: this.detail ?? null }] });
  }
}

/**
 * The containerd image names (without tag) a repository may stand for, first the one a push writes.
 * containerd asks a mirror with `?ns=<upstream>` (docker.io, quay.io …), so `library/busybox?ns=docker.io` is
 * docker.io/library/busybox. Without ns the repository is this registry's own (`localhost:5000/app`); reading then
 * also finds an image loaded under the repository's Docker-normalised name (`library/busybox` →
 * docker.io/library/busybox, `registry.k8s.io/pause` → registry.k8s.io/pause), so that what `k1s image load` put
 * in the store can be pulled from the registry by any client.
 */
export function imageNames(repo: string, ns: string | undefined, self: string): string[] {
  if (ns) return [`${ns}/${repo}`];
  const normalized = normalizeImageName(repo).replace(/:latest$/, '');
  return normalized === `${self}/${repo}` ? [normalized] : [`${self}/${repo}`, normalized];
}

/** a well-formed upstream host in `ns` (a host name with an optional port) */
export const NS = /^[A-Za-z0-9.-]+(?::[0-9]+)?$/;

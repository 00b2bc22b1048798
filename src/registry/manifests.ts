// What the registry needs to know about manifests: their media types, the blobs and manifests they refer to (which
// must exist before a push is accepted, and which containerd's garbage collector follows through gc.ref labels).
import { RegistryError } from './routes.js';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const MANIFEST_TYPES = new Set([OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_LIST]);
const INDEX_TYPES = new Set([OCI_INDEX, DOCKER_LIST]);

interface Desc {
  mediaType?: string;
  digest?: string;
  size?: number;
}

export interface ParsedManifest {
  mediaType: string;
  /** blobs (config, layers) an image manifest needs */
  blobs: Desc[];
  /** manifests an index lists */
  manifests: Desc[];
}

/**
 * Parses a manifest body; the media type is the document's own, else the Content-Type it came with, else guessed
 * from its shape (an OCI manifest may leave mediaType out). Undefined when it is no manifest at all.
 */
export function parseManifest(body: Buffer, contentType?: string): ParsedManifest | undefined {
  let doc: { mediaType?: unknown; schemaVersion?: unknown; config?: Desc; layers?: Desc[]; manifests?: Desc[] };
  try {
    doc = JSON.parse(body.toString('utf8')) as typeof doc;
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object' || doc.schemaVersion !== 2) return undefined;
  const declared = typeof doc.mediaType === 'string' ? doc.mediaType : undefined;
  const ct = contentType?.split(';')[0]?.trim();
  const mediaType = declared ?? (ct && MANIFEST_TYPES.has(ct) ? ct : Array.isArray(doc.manifests) ? OCI_INDEX : OCI_MANIFEST);
  if (!MANIFEST_TYPES.has(mediaType)) return undefined;
  if (INDEX_TYPES.has(mediaType)) {
    if (!Array.isArray(doc.manifests)) return undefined;
    return { mediaType, blobs: [], manifests: doc.manifests };
  }
  if (!doc.config || !Array.isArray(doc.layers)) return undefined;
  return { mediaType, blobs: [doc.config, ...doc.layers], manifests: [] };
}

/** A manifest PUT's body, checked: a known manifest type whose Content-Type, if it names one, agrees. */
export function checkPushedManifest(body: Buffer, contentType: string | undefined): ParsedManifest {
  const m = parseManifest(body, contentType);
  if (!m) throw new RegistryError('MANIFEST_INVALID', 'manifest invalid', 'not an OCI or Docker v2 schema 2 image manifest or index');
  const ct = contentType?.split(';')[0]?.trim();
  if (ct && MANIFEST_TYPES.has(ct) && ct !== m.mediaType) {
    throw new RegistryError('MANIFEST_INVALID', 'manifest invalid', `mediaType ${m.mediaType} does not match Content-Type ${ct}`);
  }
  for (const d of [...m.blobs, ...m.manifests]) {
    if (typeof d.digest !== 'string' || typeof d.size !== 'number') throw new RegistryError('MANIFEST_INVALID', 'manifest invalid', 'a descriptor lacks digest or size');
  }
  return m;
}

/** containerd's gc.ref labels: what a manifest refers to stays as long as the manifest does (as after a pull) */
export function gcLabels(m: ParsedManifest): Record<string, string> {
  const labels: Record<string, string> = {};
  if (m.manifests.length) m.manifests.forEach((d, i) => (labels[`containerd.io/gc.ref.content.m.${i}`] = d.digest!));
  else {
    const [config, ...layers] = m.blobs;
    labels['containerd.io/gc.ref.content.config'] = config!.digest!;
    layers.forEach((d, i) => (labels[`containerd.io/gc.ref.content.l.${i}`] = d.digest!));
  }
  return labels;
}

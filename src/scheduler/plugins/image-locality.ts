// ImageLocality (kube-scheduler 1.33, score weight 1): nodes that already hold the pod's images score higher. Each
// image present on the node adds its size scaled by the share of nodes holding it (spreading wins over piling pods
// onto the one node that has an image); the sum is clamped to [23 MiB, 1000 MiB × number of containers] and mapped
// onto 0–100. Init containers count too. Image names are compared as full references (`nginx` is
// `docker.io/library/nginx:latest`), which matches what a CRI runtime reports in node.status.images.
import type { KObject } from '../../api/types.js';
import type { InformerFactory } from '../../client/informer.js';
import type { PodInfo } from './pod-info.js';
import type { NodeInfo } from '../node-info.js';

export const IMAGE_LOCALITY = 'ImageLocality';
const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;
const MAX_NODE_SCORE = 100;

/** What ImageLocality needs of the cluster's images (kube's ImageStateSummary). */
export interface ImageLookups {
  /** the image's size and on how many nodes it is, if `node` has it */
  onNode(node: string, image: string): { size: number; numNodes: number } | undefined;
  /** whether any node has the image (lets pods with unknown images skip scoring) */
  known(image: string): boolean;
  totalNodes(): number;
}

/** A full image reference: default registry docker.io, `library/` for official images, tag `latest`. */
export function normalizeImageName(name: string): string {
  let rest = name;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at);
    rest = rest.slice(0, at);
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  let domain = 'docker.io';
  let path = rest;
  if (first && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    domain = first === 'index.docker.io' ? 'docker.io' : first;
    path = rest.slice(slash + 1);
  }
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  if (!tag && !digest) tag = ':latest';
  return `${domain}/${path}${tag}${digest}`;
}

interface ImageEntry {
  names?: string[] | null;
  sizeBytes?: number;
}

/**
 * The images every node reports, kept up to date from the node informer (the scheduler cache's imageStates).
 * The size of an image is the one its first holder reported, as in kube.
 */
export class ImageStates implements ImageLookups {
  /** image → node → reported size (insertion order = first holder first) */
  private readonly holders = new Map<string, Map<string, number>>();
  /** node → the images it reported */
  private readonly byNode = new Map<string, Set<string>>();

  constructor(informers?: InformerFactory) {
    informers?.informer('v1', 'nodes').addHandler({
      add: (n) => this.setNode(n),
      update: (_o, n) => this.setNode(n),
      delete: (n) => this.removeNode(n.metadata.name!),
    });
  }

  setNode(node: KObject): void {
    const name = node.metadata.name!;
    const images = ((node as { status?: { images?: ImageEntry[] | null } }).status?.images ?? []) as ImageEntry[];
    const now = new Map<string, number>();
    for (const img of images) for (const n of img.names ?? []) if (!now.has(normalizeImageName(n))) now.set(normalizeImageName(n), img.sizeBytes ?? 0);
    const before = this.byNode.get(name) ?? new Set<string>();
    for (const img of before) if (!now.has(img)) this.drop(img, name);
    for (const [img, size] of now) {
      let h = this.holders.get(img);
      if (!h) this.holders.set(img, (h = new Map()));
      if (!h.has(name)) h.set(name, size);
    }
    this.byNode.set(name, new Set(now.keys()));
  }

  removeNode(name: string): void {
    for (const img of this.byNode.get(name) ?? []) this.drop(img, name);
    this.byNode.delete(name);
  }

  onNode(node: string, image: string): { size: number; numNodes: number } | undefined {
    const h = this.holders.get(image);
    if (!h?.has(node)) return undefined;
    return { size: h.values().next().value ?? 0, numNodes: h.size };
  }

  known(image: string): boolean {
    return this.holders.has(image);
  }

  totalNodes(): number {
    return this.byNode.size;
  }

  private drop(img: string, node: string): void {
    const h = this.holders.get(img);
    h?.delete(node);
    if (h && !h.size) this.holders.delete(img);
  }
}

/** calculatePriority: clamp the summed scaled sizes and map them onto 0–100. */
export function imageLocalityPriority(sum: number, numContainers: number): number {
  const max = MAX_CONTAINER_THRESHOLD * Math.max(1, numContainers);
  const s = Math.min(Math.max(sum, MIN_THRESHOLD), max);
  return Math.trunc((MAX_NODE_SCORE * (s - MIN_THRESHOLD)) / (max - MIN_THRESHOLD));
}

function podImages(p: PodInfo): string[] {
  let imgs = p.cycle.get(IMAGE_LOCALITY) as string[] | undefined;
  if (!imgs) {
    imgs = [...(p.spec.initContainers ?? []), ...(p.spec.containers ?? [])].map((c) => normalizeImageName((c as { image?: string }).image ?? ''));
    p.cycle.set(IMAGE_LOCALITY, imgs);
  }
  return imgs;
}

/** The ImageLocality score of one node (not normalised, as in kube). */
export function imageLocalityScore(p: PodInfo, ni: NodeInfo, images: ImageLookups): number {
  const imgs = podImages(p);
  const total = images.totalNodes();
  if (!total) return 0;
  let sum = 0;
  for (const img of imgs) {
    const st = images.onNode(ni.name, img);
    if (st) sum += Math.trunc(st.size * (st.numNodes / total));
  }
  return imageLocalityPriority(sum, imgs.length);
}

/** Scores for the feasible nodes, or undefined when no image information is wired (every score would be 0). */
export function imageLocalityScores(p: PodInfo, nodes: NodeInfo[]): number[] | undefined {
  const images = nodes[0]?.cluster?.lookups.images;
  if (!images || !images.totalNodes() || !podImages(p).some((img) => images.known(img))) return undefined;
  return nodes.map((n) => imageLocalityScore(p, n, images));
}

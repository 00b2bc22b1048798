// EndpointSliceTracker (k8s.io/endpointslice/util, 1.33): the generation of every EndpointSlice a controller
// wrote, per Service, so it can tell its own writes from others' and a cache that has not caught up yet.
import type { EndpointSlice } from '../../api/discovery/endpointslice/validation.js';
import { LABEL_SERVICE_NAME } from '../../api/discovery/endpointslice/resource.js';

/** The generation recorded for a slice we deleted and expect to disappear. */
const DELETION_EXPECTED = -1;

const serviceKeyOf = (slice: EndpointSlice) => `${slice.metadata.namespace ?? ''}/${slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? ''}`;

export class EndpointSliceTracker {
  private readonly byService = new Map<string, Map<string, number>>();

  private gens(slice: EndpointSlice, create: boolean): Map<string, number> | undefined {
    const key = serviceKeyOf(slice);
    let m = this.byService.get(key);
    if (!m && create) this.byService.set(key, (m = new Map()));
    return m;
  }

  has(slice: EndpointSlice): boolean {
    return this.gens(slice, false)?.has(slice.metadata.uid ?? '') ?? false;
  }

  /** True unless this is (at most) the generation we wrote ourselves. */
  shouldSync(slice: EndpointSlice): boolean {
    const g = this.gens(slice, false)?.get(slice.metadata.uid ?? '');
    return g === undefined || (slice.metadata.generation ?? 0) > g;
  }

  /** The cached slices miss a write of ours, or still hold one we deleted. */
  staleSlices(serviceKey: string, slices: EndpointSlice[]): boolean {
    const m = this.byService.get(serviceKey);
    if (!m) return false;
    const seen = new Set<string>();
    for (const s of slices) {
      const uid = s.metadata.uid ?? '';
      seen.add(uid);
      const g = m.get(uid);
      if (g === undefined) continue;
      if (g === DELETION_EXPECTED || g > (s.metadata.generation ?? 0)) return true;
    }
    for (const [uid, g] of m) if (g !== DELETION_EXPECTED && !seen.has(uid)) return true;
    return false;
  }

  update(slice: EndpointSlice): void {
    this.gens(slice, true)!.set(slice.metadata.uid ?? '', slice.metadata.generation ?? 0);
  }

  expectDeletion(slice: EndpointSlice): void {
    this.gens(slice, true)!.set(slice.metadata.uid ?? '', DELETION_EXPECTED);
  }

  /** Forgets a deleted slice; false when the deletion was not ours. */
  handleDeletion(slice: EndpointSlice): boolean {
    const m = this.gens(slice, false);
    const uid = slice.metadata.uid ?? '';
    const g = m?.get(uid);
    m?.delete(uid);
    return g === DELETION_EXPECTED;
  }

  deleteService(serviceKey: string): void {
    this.byService.delete(serviceKey);
  }
}

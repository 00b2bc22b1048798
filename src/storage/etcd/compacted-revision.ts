import { StoreError } from '../types.js';
import type { EtcdClient } from './client.js';

/**
 * etcd does not say how far it has compacted: a read at revision r fails exactly when r is below it, so the
 * compacted revision is found by bisection (a read at revision 1 answers for a store never compacted).
 */
export async function findCompacted(client: EtcdClient, probe: Buffer, current: number): Promise<number> {
  const readable = async (rev: number) => {
    try {
      await client.range({ key: probe, revision: rev, count_only: true });
      return true;
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Compacted') return false;
      throw e;
    }
  };
  if (current <= 1 || (await readable(1))) return 0;
  let lo = 1; // not readable
  let hi = current; // readable
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await readable(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

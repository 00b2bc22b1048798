// Container garbage collection (the kubelet's containerGC): exited instances beyond the newest two per container
// are removed with their log files. Run after every relist, from the state that relist read.
import { promises as fs } from 'node:fs';
import type { CriClient } from '../../runtime/cri-client.js';
import type { ContainerInfo, CriPodState } from './pod-state.js';

/** kube's container GC keeps the running instance and the one before it per container */
const KEEP_INSTANCES = 2;

/** Starts the removal of the instances beyond KEEP_INSTANCES; failures are left for the next pass. */
export function collectContainerGarbage(cri: CriClient, state: CriPodState): void {
  for (const uid of state.uids()) {
    const byName = new Map<string, ContainerInfo[]>();
    for (const c of state.get(uid)!.containers) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
    for (const list of byName.values()) {
      const old = list.sort((a, b) => b.attempt - a.attempt || b.createdAt - a.createdAt).slice(KEEP_INSTANCES).filter((c) => c.state === 'exited');
      for (const c of old) {
        void cri
          .removeContainer({ container_id: c.criId })
          .then(async () => {
            if (c.logPath) await fs.rm(c.logPath, { force: true });
          })
          .catch(() => undefined);
      }
    }
  }
}

// `k1s delete` of a cluster that ran a real node: pods outlive `k1s server` (as they outlive k3s), so deleting the
// cluster brings its containerd back once to stop and remove every sandbox through CRI — which runs CNI DEL and
// releases IPs, hostPorts and network namespaces properly — then removes the pods' cgroups.
import { existsSync } from 'node:fs';
import { containerdPaths } from '../../runtime/containerd-config.js';
import { Containerd } from '../../runtime/containerd.js';
import { CriClient } from '../../runtime/cri-client.js';
import { POD_UID_LABEL } from '../cri/sandbox-config.js';
import { removePodCgroup, type QOSClass } from '../cri/qos-cgroups.js';

const QOS_CLASSES: QOSClass[] = ['Guaranteed', 'Burstable', 'BestEffort'];

/** Stops and removes every pod sandbox of the node whose data dir is given; returns how many there were. */
export async function removeAllPods(dataDir: string, opts: { sandboxImage: string; log?: (line: string) => void }): Promise<number> {
  if (!existsSync(containerdPaths(dataDir).root)) return 0;
  const containerd = new Containerd({ dataDir, sandboxImage: opts.sandboxImage, log: opts.log });
  await containerd.start();
  const cri = new CriClient(containerd.endpoint);
  try {
    const { items } = await cri.listPodSandbox({});
    for (const s of items) {
      await cri.stopPodSandbox({ pod_sandbox_id: s.id }).catch((e) => opts.log?.(`k1s: stopping sandbox ${s.id}: ${(e as Error).message}`));
      await cri.removePodSandbox({ pod_sandbox_id: s.id }).catch((e) => opts.log?.(`k1s: removing sandbox ${s.id}: ${(e as Error).message}`));
    }
    // a cgroup can only go once the kernel has let go of its last task: a second pass after a short wait
    const uids = items.map((s) => s.labels?.[POD_UID_LABEL]).filter((u): u is string => !!u);
    for (const delay of [0, 300]) {
      await new Promise((r) => setTimeout(r, delay));
      for (const uid of uids) for (const qos of QOS_CLASSES) await removePodCgroup(uid, qos).catch(() => undefined);
    }
    return items.length;
  } finally {
    cri.close();
    await containerd.stop();
  }
}

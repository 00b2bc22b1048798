// The node side of the local-path provisioner: for PVs of rancher.io/local-path pinned to this node it creates the
// volume directory (mode 0777, so any pod user can write) once provisioned, and removes it when the PV is Released
// with reclaim policy Delete, then marks the PV so the provisioner deletes it. The node announces its storage root
// on its Node object, which tells the provisioner where to put directories and to wait for their removal.
// Real (containerd) nodes run one; simulated nodes do not.
import { chmod, mkdir, rm } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { Informer } from '../../client/informer.js';
import { WorkQueue } from '../../client/workqueue.js';
import { StatusError } from '../../machinery/errors.js';
import { pinnedNode, ANN_PROVISIONED_BY, type Volume } from '../../api/core/persistentvolume/claims.js';
import {
  ANN_DIRECTORY_REMOVED, ANN_NODE_STORAGE_ROOT, LOCAL_PATH_PROVISIONER, volumePath,
} from '../../controllers/volume/local-path-provisioner.js';

export interface LocalPathDirsOptions {
  client: Client;
  /** announces the storage root on the Node (the kubelet's own client; default: client) */
  nodeClient?: Client;
  nodeName: string;
  /** the directory this node keeps local-path volumes under */
  storageRoot: string;
  provisioner?: string;
  log?: (line: string) => void;
}

export class LocalPathDirs {
  private readonly pvs: Informer;
  private readonly queue: WorkQueue;
  private readonly root: string;
  private readonly provisioner: string;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: LocalPathDirsOptions) {
    this.root = resolve(opts.storageRoot);
    this.provisioner = opts.provisioner ?? LOCAL_PATH_PROVISIONER;
    this.log = opts.log ?? ((l) => console.error(l));
    this.pvs = new Informer(opts.client, 'v1', 'persistentvolumes', { log: this.log });
    this.queue = new WorkQueue((name) => this.sync(name), {
      workers: 1,
      baseDelayMs: 50,
      maxDelayMs: 30_000,
      onError: (key, err) => this.log(`k1s: local-path dirs: ${key}: ${(err as Error)?.message ?? err}`),
    });
  }

  async start(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o755 });
    await (this.opts.nodeClient ?? this.opts.client)
      .resource('v1', 'nodes')
      .patch('', this.opts.nodeName, 'merge', { metadata: { annotations: { [ANN_NODE_STORAGE_ROOT]: this.root } } })
      .catch((e) => this.log(`k1s: local-path dirs: announcing ${this.root} on node ${this.opts.nodeName}: ${(e as Error).message}`));
    const on = (o: KObject) => {
      if (this.mine(o as Volume)) this.queue.add(o.metadata.name!);
    };
    this.pvs.addHandler({ add: on, update: (_, o) => on(o) });
    await this.pvs.start();
  }

  stop(): void {
    this.queue.stop();
    this.pvs.stop();
  }

  private mine(pv: Volume): boolean {
    return pv.metadata.annotations?.[ANN_PROVISIONED_BY] === this.provisioner && pinnedNode(pv) === this.opts.nodeName;
  }

  /** The PV's directory, only if it lies inside our storage root (never touch anything else). */
  private dirOf(pv: Volume): string | undefined {
    const p = volumePath(pv);
    if (!p) return undefined;
    const abs = resolve(p);
    return abs.startsWith(this.root + sep) ? abs : undefined;
  }

  private async sync(name: string): Promise<void> {
    const pv = this.pvs.get('', name) as Volume | undefined;
    if (!pv || !this.mine(pv)) return;
    const dir = this.dirOf(pv);
    if (!dir) return;
    const released = pv.status?.phase === 'Released' || pv.status?.phase === 'Failed';
    if (released && pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      if (pv.metadata.annotations?.[ANN_DIRECTORY_REMOVED] === 'true') return;
      await rm(dir, { recursive: true, force: true });
      try {
        await this.opts.client.resource('v1', 'persistentvolumes').patch('', name, 'merge', { metadata: { annotations: { [ANN_DIRECTORY_REMOVED]: 'true' } } });
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
      return;
    }
    if (released || pv.metadata.deletionTimestamp) return;
    await mkdir(dir, { recursive: true });
    // mkdir's mode is filtered by the umask
    await chmod(dir, 0o777);
  }
}

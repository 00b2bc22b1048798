// A real containerd (src/runtime/containerd.ts) in a temp dir with a pause image and a busybox image built on the
// spot, one host-network sandbox running a busybox container, and KubeletStreams over CRI for it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Containerd } from '../../../src/runtime/containerd.js';
import { CriClient } from '../../../src/runtime/cri-client.js';
import { writeOciImageTar, type ImageFile } from '../../../src/runtime/oci-layout.js';
import type { KubeletStreams } from '../../../src/kubelet/server.js';

const PAUSE_C = `#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void die(int s) { (void)s; _exit(0); }
static void reap(int s) { (void)s; while (waitpid(-1, 0, WNOHANG) > 0) {} }
int main(void) { signal(SIGINT, die); signal(SIGTERM, die); signal(SIGCHLD, reap); for (;;) pause(); }
`;

export const PAUSE_IMAGE = 'k1s.test/pause:streams';
export const BUSYBOX_IMAGE = 'k1s.test/busybox:streams';

export interface RuntimeFixture {
  cri: CriClient;
  sandboxId: string;
  /** container ids by name */
  containers: Map<string, string>;
  logDir: string;
  /** runs a busybox container in the sandbox */
  run(name: string, command: string[], opts?: { stdin?: boolean; tty?: boolean }): Promise<string>;
  /** KubeletStreams over CRI for pods whose containers are in `containers` */
  streams(): Omit<KubeletStreams, 'getPod'>;
  close(): Promise<void>;
}

export async function runtimeFixture(): Promise<RuntimeFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-kl-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch {
        /* best effort */
      }
    }
  };
  try {
    const src = join(dir, 'pause.c');
    writeFileSync(src, PAUSE_C);
    execFileSync('gcc', ['-static', '-O2', '-o', join(dir, 'pause'), src]);
    await writeOciImageTar({ out: join(dir, 'pause.tar'), name: PAUSE_IMAGE, files: [{ path: 'pause', mode: 0o755, source: join(dir, 'pause') }], config: { entrypoint: ['/pause'] } });
    const applets = ['sh', 'cat', 'echo', 'sleep', 'httpd', 'mkdir', 'tty', 'wc', 'ls', 'tar', 'printf', 'id'];
    const files: ImageFile[] = [
      { path: 'bin', mode: 0o755, dir: true },
      { path: 'tmp', mode: 0o1777, dir: true },
      { path: 'bin/busybox', mode: 0o755, source: '/usr/bin/busybox' },
      ...applets.map((a) => ({ path: `bin/${a}`, mode: 0o777, symlink: 'busybox' })),
    ];
    await writeOciImageTar({ out: join(dir, 'busybox.tar'), name: BUSYBOX_IMAGE, files, config: { env: ['PATH=/bin'], cmd: ['sh'] } });

    const containerd = new Containerd({ dataDir: join(dir, 'data'), sandboxImage: PAUSE_IMAGE });
    await containerd.start();
    cleanups.push(() => containerd.stop());
    for (const tar of ['pause.tar', 'busybox.tar']) {
      execFileSync('ctr', ['-a', containerd.paths.address, '-n', 'k8s.io', 'images', 'import', join(dir, tar)], { stdio: 'pipe' });
    }
    const cri = new CriClient(containerd.endpoint);
    cleanups.push(() => cri.close());
    const logDir = join(dir, 'pods', 'sandbox');
    mkdirSync(logDir, { recursive: true });
    const sandboxConfig = {
      metadata: { name: 'streams', namespace: 'default', uid: `uid-${process.pid}-${Date.now()}`, attempt: 0 },
      hostname: '',
      log_directory: logDir,
      linux: { security_context: { namespace_options: { network: 'NODE' as const, pid: 'POD' as const, ipc: 'POD' as const } } },
    };
    const { pod_sandbox_id: sandboxId } = await cri.runPodSandbox({ config: sandboxConfig });
    cleanups.push(async () => {
      await cri.stopPodSandbox({ pod_sandbox_id: sandboxId });
      await cri.removePodSandbox({ pod_sandbox_id: sandboxId });
    });
    const containers = new Map<string, string>();
    const fixture: RuntimeFixture = {
      cri,
      sandboxId,
      containers,
      logDir,
      async run(name, command, opts = {}) {
        const { container_id } = await cri.createContainer({
          pod_sandbox_id: sandboxId,
          sandbox_config: sandboxConfig,
          config: { metadata: { name, attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command, log_path: `${name}.log`, stdin: opts.stdin ?? false, tty: opts.tty ?? false },
        } as never);
        await cri.startContainer({ container_id });
        containers.set(name, container_id);
        return container_id;
      },
      streams() {
        const id = (container: string) => containers.get(container);
        const fail = (e: unknown) => ({ code: 500, message: (e as Error).message });
        return {
          containerLogPath: async (cid) => (await cri.containerStatus({ container_id: cid.replace(/^containerd:\/\//, '') })).status?.log_path,
          isContainerRunning: async (cid) => (await cri.containerStatus({ container_id: cid.replace(/^containerd:\/\//, '') })).status?.state === 'CONTAINER_RUNNING',
          exec: async (_pod, container, cmd, o) => {
            const cid = id(container);
            if (!cid) return { code: 500, message: `container not found ("${container}")` };
            return cri.exec({ container_id: cid, cmd, ...o }).then((r) => r.url, fail);
          },
          attach: async (_pod, container, o) => {
            const cid = id(container);
            if (!cid) return { code: 500, message: `container not found ("${container}")` };
            return cri.attach({ container_id: cid, ...o }).then((r) => r.url, fail);
          },
          portForward: async (_pod, ports) => cri.portForward({ pod_sandbox_id: sandboxId, port: ports }).then((r) => r.url, fail),
        };
      },
      close,
    };
    cleanups.push(async () => {
      for (const cid of containers.values()) {
        await cri.stopContainer({ container_id: cid, timeout: 0 }).catch(() => undefined);
        await cri.removeContainer({ container_id: cid }).catch(() => undefined);
      }
    });
    return fixture;
  } catch (e) {
    await close();
    throw e;
  }
}

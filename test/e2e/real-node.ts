// One real-node k1s server per e2e file: its own data dir and network (bridge, pod and Service ranges, so files
// can run side by side), the busybox image loaded; and the teardown every such file needs: delete what the tests
// made, let the kubelet remove every pod (pods outlive `k1s server`, as with k3s), stop, clean the host.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupNodeNetwork } from '../../src/network/host-cleanup.js';
import { removeNodeServiceProxyRules } from '../../src/network/service-proxy/node.js';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

export interface RealNode {
  server: K1sServer;
  dataDir: string;
}

export const busyboxTar = join(k1sBin, '..', '..', 'dist', 'images', 'busybox.tar');

/** Starts the server (`extraArgs` name its network) and loads busybox; stops it again if loading fails. */
export async function startRealNode(name: string, extraArgs: string[]): Promise<RealNode> {
  const dataDir = mkdtempSync(join(tmpdir(), `k1s-e2e-${name}-`));
  let server: K1sServer;
  try {
    server = await startServer({ dataDir, agent: true, extraArgs });
  } catch (e) {
    removeDir(dataDir);
    throw e;
  }
  const load = await run(process.execPath, [k1sBin, 'image', 'load', '--data-dir', dataDir, busyboxTar]);
  if (load.code !== 0) {
    await server.stop().catch(() => undefined);
    removeDir(dataDir);
  }
  assert.equal(load.code, 0, load.stderr);
  return { server, dataDir };
}

/**
 * `deletes`: kubectl arguments after `delete` (e.g. ['pods', '-l', 'suite=x']), run in order before the server
 * stops; `dataDir` is removed even when the server never started.
 */
export async function stopRealNode(node: { server?: K1sServer; dataDir?: string }, opts: { bridge: string; deletes: string[][]; label: string; started: number }): Promise<void> {
  const { server, dataDir } = node;
  try {
    if (server) {
      const k = kubectl(server, '1.33');
      for (const d of opts.deletes) await k.run(['delete', ...d, '--wait=true', '--timeout=60s'], { timeoutMs: 90_000 });
      const pods = join(server.dataDir, 'agent', 'pods');
      await until(async () => !existsSync(pods) || readdirSync(pods).length === 0, 'the kubelet to remove every pod', 60_000).catch((e) => console.error(String(e)));
      await server.stop();
    }
  } finally {
    if (dataDir) {
      await cleanupNodeNetwork({ ipamDataDir: join(dataDir, 'agent', 'cni', 'networks'), bridge: opts.bridge, networkName: `k1s-pod-network-${opts.bridge}` }).catch(() => undefined);
      await removeNodeServiceProxyRules({ bridge: opts.bridge }).catch(() => undefined);
      removeDir(dataDir);
    }
    console.log(`${opts.label} e2e took ${Math.round((Date.now() - opts.started) / 1000)} s`);
  }
}

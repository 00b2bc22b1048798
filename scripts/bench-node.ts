// Real-node figures (issue 6): apply → Running for 1 pod and for 50 pods with the image present, beside the raw CRI
// sequence (RunPodSandbox + CreateContainer + StartContainer) on the same containerd in the same run, and the RSS
// of k1s with 100 running pods. Needs root and containerd; prints why it is skipped otherwise. K1S_BENCH_NODE=one
// (with K1S_BENCH_ONLY=node) runs only the single-pod row; Running is seen through a watch, as `kubectl wait` sees
// it (K1S_BENCH_POLL=1: a LIST every 10 ms instead, whose own cost slows the node); K1S_TRACE_POD=<file> writes
// each pod's timeline (bench, scheduler, kubelet, CRI calls).
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerdPaths } from '../src/runtime/containerd-config.js';
import { CriClient } from '../src/runtime/cri-client.js';
import type { PodSandboxConfig } from '../src/runtime/cri-types.js';
import { cleanupNodeNetwork } from '../src/network/host-cleanup.js';
import { ipamDir } from '../src/kubelet/node/agent.js';
import { removePodCgroup } from '../src/kubelet/cri/qos-cgroups.js';
import { removeAllPods } from '../src/kubelet/node/teardown.js';
import { Containerd } from '../src/runtime/containerd.js';
import { writeCniConfig } from '../src/network/cni-config.js';
import { podTraceOn, tracePod } from '../src/machinery/pod-trace.js';
import { median, request, root, rssMiB, startServer, stop, type Server } from './bench-server.js';

type Row = (k: string, v: string) => void;
const IMAGE = 'k1s.local/busybox:1.35';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PodLike {
  metadata: { name: string };
  status?: { phase?: string };
}

async function podsRunning(server: Server, ns: string, names: string[]): Promise<boolean> {
  const list = JSON.parse((await request(server, 'GET', `/api/v1/namespaces/${ns}/pods`)).body) as { items: PodLike[] };
  const running = new Set(list.items.filter((p) => p.status?.phase === 'Running').map((p) => p.metadata.name));
  return names.every((n) => running.has(n));
}

const busybox = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] },
});

/**
 * A watch of the namespace's pods, open (response headers in) when this resolves; running() resolves once every
 * name is Running. This is how a client waits for pods (kubectl wait, controllers); the default LIST every 10 ms
 * loads the server under test (~40 ms of k1s CPU per pod on the 2-core bench machine, where containerd needs the
 * CPU too).
 */
async function watchPods(server: Server, ns: string): Promise<{ running: (names: string[]) => Promise<void>; close: () => void }> {
  const phase = new Map<string, string>();
  let wake = () => {};
  let failed: Error | undefined;
  const req = https.get(new URL(`${server.url}/api/v1/namespaces/${ns}/pods?watch=1`), { agent: server.agent });
  await new Promise<void>((resolve, reject) => {
    req.on('error', (e) => {
      failed = e;
      reject(e);
      wake();
    });
    req.on('response', (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const ev = JSON.parse(buf.slice(0, i)) as { type: string; object: PodLike };
          buf = buf.slice(i + 1);
          if (ev.type === 'DELETED') phase.delete(ev.object.metadata.name);
          else phase.set(ev.object.metadata.name, ev.object.status?.phase ?? '');
        }
        wake();
      });
      resolve();
    });
  });
  return {
    async running(names) {
      while (!names.every((n) => phase.get(n) === 'Running')) {
        if (failed) throw failed;
        await new Promise<void>((r) => (wake = r));
      }
    },
    close: () => req.destroy(),
  };
}

/** creates the pods and returns ms until every one is Running: seen through a watch, or with K1S_BENCH_POLL=1
 *  polled every 10 ms through the API */
async function applyToRunning(server: Server, ns: string, names: string[]): Promise<number> {
  const watch = process.env.K1S_BENCH_POLL === '1' ? undefined : await watchPods(server, ns);
  try {
    const t0 = performance.now();
    if (podTraceOn) for (const n of names) tracePod(`${ns}/${n}`, 'bench: POST');
    await Promise.all(names.map((n) => request(server, 'POST', `/api/v1/namespaces/${ns}/pods`, busybox(n))));
    if (podTraceOn) for (const n of names) tracePod(`${ns}/${n}`, 'bench: POST answered');
    if (watch) await watch.running(names);
    else while (!(await podsRunning(server, ns, names))) await sleep(10);
    if (podTraceOn) for (const n of names) tracePod(`${ns}/${n}`, 'bench: Running seen');
    return performance.now() - t0;
  } finally {
    watch?.close();
  }
}

async function deleteAll(server: Server, ns: string): Promise<void> {
  await request(server, 'DELETE', `/api/v1/namespaces/${ns}/pods`);
  for (;;) {
    const list = JSON.parse((await request(server, 'GET', `/api/v1/namespaces/${ns}/pods`)).body) as { items: unknown[] };
    if (!list.items.length) return;
    await sleep(100);
  }
}

/** the kubelet's minimal sequence for one pod, straight over CRI; returns ms */
async function rawPod(cri: CriClient, logRoot: string, i: number, sandboxes: string[]): Promise<number> {
  const uid = `bench-raw-${process.pid}-${i}`;
  const config: PodSandboxConfig = {
    metadata: { name: `raw-${i}`, uid, namespace: 'bench-raw', attempt: 0 },
    hostname: `raw-${i}`,
    log_directory: join(logRoot, `bench-raw_raw-${i}_${uid}`),
    labels: { 'io.kubernetes.pod.uid': uid },
    // every kubelet runs the sandbox with the runtime's default seccomp profile (kubernetes/kubernetes#90949), which
    // costs containerd ~12 ms here: part of the minimal sequence, not of what k1s adds
    linux: {
      cgroup_parent: `/kubepods/besteffort/pod${uid}`,
      security_context: { namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }, seccomp: { profile_type: 'RuntimeDefault' } },
    },
  };
  const t0 = performance.now();
  const who = `bench-raw/raw-${i}`;
  tracePod(who, 'raw: RunPodSandbox');
  const { pod_sandbox_id } = await cri.runPodSandbox({ config });
  tracePod(who, 'raw: CreateContainer');
  sandboxes.push(pod_sandbox_id);
  const { container_id } = await cri.createContainer({
    pod_sandbox_id,
    sandbox_config: config,
    config: { metadata: { name: 'main', attempt: 0 }, image: { image: IMAGE }, command: ['sleep', '3600'], log_path: 'main/0.log' },
  });
  tracePod(who, 'raw: StartContainer');
  await cri.startContainer({ container_id });
  tracePod(who, 'raw: StartContainer done');
  return performance.now() - t0;
}

/** stops and removes the raw sandboxes, then their cgroups (runc makes them, nobody else removes them) */
async function removeSandboxes(cri: CriClient, ids: string[]): Promise<void> {
  for (const id of ids.splice(0)) {
    const st = await cri.podSandboxStatus({ pod_sandbox_id: id }).catch(() => undefined);
    await cri.stopPodSandbox({ pod_sandbox_id: id }).catch(() => undefined);
    await cri.removePodSandbox({ pod_sandbox_id: id }).catch(() => undefined);
    const uid = st?.status?.metadata?.uid;
    if (uid) await removePodCgroup(uid, 'BestEffort').catch(() => undefined);
  }
}

/**
 * The raw CRI sequence in a containerd of its own (same binary, same images, a bridge network like k1s'), so the
 * k1s node's kubelet never sees (and garbage-collects) sandboxes it did not make.
 */
async function rawFigures(): Promise<{ one: number; fifty: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-raw-'));
  const images = join(root, 'dist', 'images');
  const containerd = new Containerd({ dataDir: dir, sandboxImage: 'k1s.local/pause:3.10', importOnStart: [join(images, 'pause.tar'), join(images, 'busybox.tar')] });
  const paths = containerdPaths(dir);
  const net = { bridge: 'k1sraw0', networkName: 'k1s-pod-network-k1sraw0' };
  await writeCniConfig({ confDir: paths.cniConfDir, podCIDR: '10.47.0.0/24', ipamDataDir: join(dir, 'ipam'), ...net });
  await containerd.start();
  const cri = new CriClient(containerd.endpoint);
  const sandboxes: string[] = [];
  try {
    await cri.waitReady(10_000, { network: true });
    await rawPod(cri, paths.podLogDir, 0, sandboxes);
    await removeSandboxes(cri, sandboxes);
    const one: number[] = [];
    for (let i = 1; i <= 5; i++) one.push(await rawPod(cri, paths.podLogDir, i, sandboxes));
    await removeSandboxes(cri, sandboxes);
    if (process.env.K1S_BENCH_NODE === 'one') return { one: median(one), fifty: NaN };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 50 }, (_, i) => rawPod(cri, paths.podLogDir, 100 + i, sandboxes)));
    const fifty = performance.now() - t0;
    return { one: median(one), fifty };
  } finally {
    await removeSandboxes(cri, sandboxes).catch(() => undefined);
    cri.close();
    await containerd.stop();
    await cleanupNodeNetwork({ ipamDataDir: join(dir, 'ipam'), ...net }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchNode(row: Row): Promise<void> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/containerd')) {
    row('real node (apply → Running, raw CRI, RSS with 100 pods)', 'skipped: needs root and containerd');
    return;
  }
  const raw = await rawFigures();
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-node-'));
  const { server } = await startServer(dir, ['--ingress-http-port', '0', '--ingress-https-port', '0', '--cluster-cidr', '10.45.0.0/16', '--cni-bridge', 'k1sbench0'], { agent: true });
  try {
    for (;;) {
      const nodes = JSON.parse((await request(server, 'GET', '/api/v1/nodes')).body) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
      if (nodes.items.some((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))) break;
      await sleep(100);
    }
    execFileSync(process.execPath, [join(root, 'bin', 'k1s'), 'image', 'load', '--data-dir', dir, join(root, 'dist', 'images', 'busybox.tar')]);
    await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    while ((await request(server, 'GET', '/api/v1/namespaces/bench/serviceaccounts/default')).status !== 200) await sleep(50);
    // warm-up: the first sandbox pays for the bridge
    await applyToRunning(server, 'bench', ['warm']);
    await deleteAll(server, 'bench');

    const one: number[] = [];
    for (let i = 1; i <= 5; i++) one.push(await applyToRunning(server, 'bench', [`one-${i}`]));
    await deleteAll(server, 'bench');
    row('real node: 1 pod created → Running seen through a watch, image present (median of 5)', `${median(one).toFixed(0)} ms; raw CRI sequence ${raw.one.toFixed(0)} ms (${(median(one) / raw.one).toFixed(2)}×; goal ≤ 1.3×)`);
    // K1S_BENCH_NODE=one stops after the single-pod row
    if (process.env.K1S_BENCH_NODE === 'one') return;

    const fifty = await applyToRunning(server, 'bench', Array.from({ length: 50 }, (_, i) => `fifty-${i}`));
    await deleteAll(server, 'bench');
    const rawFifty = raw.fifty;
    row('real node: 50 pods created at once → all Running', `${(fifty / 1000).toFixed(1)} s; raw CRI, 50 at once ${(rawFifty / 1000).toFixed(1)} s (${(fifty / rawFifty).toFixed(2)}×)`);

    const hundred = Array.from({ length: 100 }, (_, i) => `hundred-${i}`);
    const t100 = await applyToRunning(server, 'bench', hundred);
    await sleep(2000);
    const containerd = execFileSync('pgrep', ['-f', `containerd --config ${containerdPaths(dir).config}`]).toString().trim().split('\n')[0];
    row(
      'real node: 100 running pods',
      `all Running in ${(t100 / 1000).toFixed(1)} s; k1s RSS ${rssMiB(server.proc.pid!)} MiB, containerd RSS ${containerd ? rssMiB(Number(containerd)) : '?'} MiB (+ one ~13 MiB shim per pod)`,
    );
    await deleteAll(server, 'bench');
  } finally {
    await stop(server);
    // pods outlive the server: remove them as k1s delete does, then the network leftovers
    await removeAllPods(dir, { sandboxImage: 'k1s.local/pause:3.10' }).catch((e) => console.error(`bench: removing pods: ${(e as Error).message}`));
    await cleanupNodeNetwork({ ipamDataDir: ipamDir(dir), bridge: 'k1sbench0', networkName: 'k1s-pod-network-k1sbench0' }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

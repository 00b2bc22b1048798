// What a user of the CLI waits for (issue 9): `k1s start` until the node is Ready and cluster DNS answers (a real
// node; API-only without root), the server's idle RSS, and `k1s snapshot save` / `k1s start --from-snapshot` of a
// cluster holding 10,000 objects. Every cluster lives in a temporary K1S_HOME and KUBECONFIG and is deleted after.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { clusterPaths, readState } from '../src/cli/clusters.js';
import { median, root, rssMiB } from './bench-server.js';

type Row = (k: string, v: string) => void;
const bin = join(root, 'bin', 'k1s');

function k1s(env: NodeJS.ProcessEnv, args: string[]): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return performance.now() - t0;
}

const statePid = (home: string, name: string): number => readState(clusterPaths(name, home))?.pid ?? 0;

/** 10,000 ConfigMaps through HTTPS with the cluster's admin kubeconfig, 32 at a time */
async function fill(kubeconfigFile: string, count: number): Promise<void> {
  const kc = YAML.parse(readFileSync(kubeconfigFile, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 32,
    ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
    cert: b64(kc.users[0].user['client-certificate-data']),
    key: b64(kc.users[0].user['client-key-data']),
  });
  const url = kc.clusters[0].cluster.server as string;
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((res, rej) => {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(200) } });
      const req = https.request(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (r) => {
        r.resume();
        r.on('end', () => (r.statusCode === 201 ? res() : rej(new Error(`create: HTTP ${r.statusCode}`))));
      });
      req.on('error', rej);
      req.end(body);
    });
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < count) await one(next++);
  }));
  agent.destroy();
}

export async function benchCli(row: Row): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'k1s-bench-cli-'));
  const env = { ...process.env, K1S_HOME: home, KUBECONFIG: join(home, 'kubeconfig') };
  const realNode = process.getuid?.() === 0 && existsSync('/usr/bin/containerd');
  const net = ['--cni-bridge', 'k1sbcli0', '--cluster-cidr', '10.54.0.0/16', '--service-cidr', '10.154.0.0/16', '--ingress-http-port', '18180', '--ingress-https-port', '18543'];
  try {
    const starts: number[] = [];
    const restarts: number[] = [];
    let rss = 0;
    for (let i = 0; i < 3; i++) {
      starts.push(k1s(env, ['start', 'bench', ...(realNode ? net : ['--no-kubelet']), '--no-switch-context']));
      if (i === 0) {
        await new Promise((r) => setTimeout(r, 10_000));
        rss = rssMiB(statePid(home, 'bench'));
      }
      k1s(env, ['stop', 'bench']);
      restarts.push(k1s(env, ['start', 'bench', '--no-switch-context']));
      k1s(env, ['delete', 'bench']);
    }
    const what = realNode ? 'node Ready and cluster DNS answering' : 'API ready (no root: no real node)';
    row(`k1s start → ${what}, new cluster (median of 3; goal ≤ 2 s)`, `${(median(starts) / 1000).toFixed(2)} s`);
    row(`k1s start of a stopped cluster → ${what} (median of 3)`, `${(median(restarts) / 1000).toFixed(2)} s`);
    row(`k1s server RSS, idle 10 s after start${realNode ? ' (real node, no pods; containerd not counted)' : ''}`, `${rss} MiB`);

    k1s(env, ['start', 'snap', '--no-kubelet', '--no-switch-context']);
    await fill(clusterPaths('snap', home).kubeconfig, 10_000);
    const file = join(home, 'snap.tar');
    const save = k1s(env, ['snapshot', 'save', file, '--name', 'snap']);
    const restore = k1s(env, ['snapshot', 'restore', file, '--name', 'fork1']);
    const fork = k1s(env, ['start', 'fork2', '--from-snapshot', file, '--no-kubelet', '--no-switch-context']);
    row('k1s snapshot save of a running cluster with 10,000 ConfigMaps', `${(save / 1000).toFixed(2)} s`);
    row('k1s snapshot restore of it into a new cluster / k1s start --from-snapshot (restore + start to API ready)', `${(restore / 1000).toFixed(2)} s / ${(fork / 1000).toFixed(2)} s`);
  } finally {
    for (const name of ['bench', 'snap', 'fork1', 'fork2']) {
      try {
        k1s(env, ['delete', name]);
      } catch {
        // not there
      }
    }
    rmSync(home, { recursive: true, force: true });
  }
}

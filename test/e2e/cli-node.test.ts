// Issue 9's acceptance on a REAL node (root, containerd): `k1s start` → kubectl get nodes Ready → busybox Deployment
// + Service → `k1s stop` → `k1s start` → same objects, pods Running → `k1s snapshot save` → `k1s delete` →
// `k1s start --from-snapshot` → same objects, pods Running → `k1s delete` leaves no process, mount, cgroup, bridge,
// iptables chain or kubeconfig entry behind. Its own pod network (bridge k1sacc0, 10.48.0.0/16) and free ports, a
// temp K1S_HOME and KUBECONFIG, so it runs beside the other real-node tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanupNodeNetwork } from '../../src/network/host-cleanup.js';
import { proxyChainPrefix, removeNodeServiceProxyRules } from '../../src/network/service-proxy-node.js';
import { kubectlPath, repoRoot, run, type RunResult } from './harness.js';

const BRIDGE = 'k1sacc0';
const CIDR = '10.48.0.0/16';
const BUSYBOX = 'k1s.local/busybox:1.35';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const app = (replicas: number) => [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          // serves /etc, so a client can fetch /passwd
          containers: [{ name: 'httpd', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['httpd', '-f', '-p', '8080', '-h', '/etc'] }],
        },
      },
    },
  },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } },
];

/** Processes whose command line names `dir` (the server, its containerd and the shims all do). */
function processesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(dir) && Number(pid) !== process.pid) out.push(`${pid}: ${cmd}`);
    } catch {
      // gone
    }
  }
  return out;
}

/** Pod cgroup dirs of these pod uids left in any hierarchy. */
function podCgroups(uids: Iterable<string>): string[] {
  const left: string[] = [];
  for (const h of readdirSync('/sys/fs/cgroup')) {
    for (const qos of ['', 'besteffort/', 'burstable/']) {
      for (const uid of uids) {
        const dir = `/sys/fs/cgroup/${h}/kubepods/${qos}pod${uid}`;
        if (existsSync(dir)) left.push(dir);
      }
    }
  }
  return left;
}

test('k1s on a real node: start, stop/start, snapshot, delete, start --from-snapshot, delete leaves nothing', { timeout: 150_000 }, async (t) => {
  const t0 = Date.now();
  const home = mkdtempSync(join(tmpdir(), 'k1s-cli-node-'));
  const k1sHome = join(home, 'k1s');
  const kubeconfig = join(home, 'kubeconfig');
  // the compiled CLI (bin/k1s may run a bundle of another build); K1S_SELF makes `start` spawn the same one
  const entry = join(home, 'k1s.mjs');
  writeFileSync(entry, `import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/src/cli/main.js')).href)}).then((m) => m.main(process.argv.slice(2)));\n`);
  const env: NodeJS.ProcessEnv = { HOME: home, K1S_HOME: k1sHome, KUBECONFIG: kubeconfig, K1S_SELF: entry, K1S_KUBECTL: kubectlPath('1.33'), K1S_SQLITE_WRITER: 'thread' };
  const k1s = (...args: string[]) => run(process.execPath, [entry, ...args], { env, timeoutMs: 90_000 });
  const kubectl = (args: string[], input?: string) => run(kubectlPath('1.33'), args, { env, input, timeoutMs: 30_000 });
  const ok = (r: RunResult, what: string) => {
    assert.equal(r.code, 0, `${what} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  t.after(async () => {
    // whatever a failure left: the CLI's own delete first, then the network by hand, then the files
    for (const name of ['accept', 'fork']) if (existsSync(join(k1sHome, name))) await k1s('delete', name);
    for (const p of processesUnder(home)) process.kill(Number(p.split(':')[0]), 'SIGKILL');
    await removeNodeServiceProxyRules({ bridge: BRIDGE }).catch(() => undefined);
    await cleanupNodeNetwork({ ipamDataDir: join(home, 'ipam-unused'), bridge: BRIDGE, networkName: `k1s-pod-network-${BRIDGE}` }).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  });
  const figures: string[] = [];
  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const s = Date.now();
    const r = await fn();
    figures.push(`${what} ${Date.now() - s} ms`);
    return r;
  };

  const [apiPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const netFlags = ['--cni-bridge', BRIDGE, '--cluster-cidr', CIDR, '--service-cidr', '10.148.0.0/16', '--port', String(apiPort), '--ingress-http-port', String(httpPort), '--ingress-https-port', String(httpsPort)];
  const started = ok(await timed('start', () => k1s('start', '--name', 'accept', ...netFlags)), 'k1s start');
  assert.match(started.stdout, new RegExp(`cluster "accept" is ready at https://127\\.0\\.0\\.1:${apiPort}`));
  assert.match(started.stderr, /^containerd \(\d+ ms\)$/m, 'the containerd phase');
  assert.match(started.stderr, /^DNS \(kubernetes\.default\.svc\.cluster\.local is \d+\.\d+\.\d+\.\d+ at 10\.48\.\d+\.1\)/m, 'start waited for cluster DNS');

  const nodes = ok(await kubectl(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{end}']), 'get nodes');
  assert.equal(nodes.stdout, 'True');
  const load = ok(await timed('image load', () => k1s('image', 'load', '--name', 'accept', join(repoRoot, 'dist', 'images', 'busybox.tar'))), 'image load');
  assert.match(load.stdout, /loaded 1 image\(s\)/);
  ok(await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: app(2) })), 'apply');

  /** uids of the Deployment, the Service and the pods, once both pods run */
  const runningApp = async (what: string): Promise<{ deployment: string; service: string; pods: string[] }> => {
    const deadline = Date.now() + 45_000;
    let last = '';
    while (Date.now() < deadline) {
      const r = await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.uid}={.status.phase}/{.status.containerStatuses[0].ready} {end}']);
      last = r.stdout + r.stderr;
      const pods = r.stdout.trim().split(' ').filter(Boolean);
      if (pods.length === 2 && pods.every((p) => p.endsWith('=Running/true'))) {
        const uid = async (kind: string) => ok(await kubectl(['get', kind, 'web', '-o', 'jsonpath={.metadata.uid}']), `get ${kind}`).stdout;
        return { deployment: await uid('deployment'), service: await uid('service'), pods: pods.map((p) => p.split('=')[0]!).sort() };
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.fail(`${what}: the pods of web did not run: ${last}\n${(await kubectl(['describe', 'pods', '-l', 'app=web'])).stdout}`);
  };
  /** a pod reaches the Service by its DNS name */
  const serviceAnswers = async () => {
    const r = ok(await kubectl(['exec', 'deploy/web', '--', 'sh', '-c', 'timeout 5 wget -qO- http://web/passwd']), 'wget through the Service');
    assert.match(r.stdout, /^root:/m);
  };
  const first = await timed('pods Running', () => runningApp('first start'));
  await serviceAnswers();
  const podUids = new Set(first.pods);

  // stop: the server, its containerd and the pods' containers end; start resumes with the same objects
  const stopped = ok(await timed('stop', () => k1s('stop', 'accept')), 'k1s stop');
  assert.match(stopped.stdout, /2 pods of the node stopped/);
  assert.deepEqual(processesUnder(home), [], 'nothing of the cluster runs after k1s stop');
  assert.deepEqual(podCgroups(podUids), []);
  ok(await timed('restart', () => k1s('start', 'accept')), 'k1s start (again)');
  const resumed = await timed('pods Running again', () => runningApp('restart'));
  assert.equal(resumed.deployment, first.deployment);
  assert.equal(resumed.service, first.service);
  assert.deepEqual(resumed.pods, first.pods, 'the same pods run again');
  await serviceAnswers();

  const snap = join(home, 'accept.tar');
  const saved = ok(await timed('snapshot save', () => k1s('snapshot', 'save', snap, '--name', 'accept')), 'snapshot save');
  assert.match(saved.stdout, /saved to .*: \d+ objects at revision \d+, 2 image names/);
  ok(await timed('delete', () => k1s('delete', 'accept')), 'k1s delete');
  assert.equal(existsSync(join(k1sHome, 'accept')), false);

  // a new cluster from the snapshot: its containerd lacks busybox, which start reports with the command to fix it
  const forked = ok(await timed('start --from-snapshot', () => k1s('start', 'fork', '--from-snapshot', snap, '--port', String(apiPort))), 'start --from-snapshot');
  assert.match(forked.stderr, /1 image of the snapshot is not in the node's containerd[\s\S]*\n  k1s\.local\/busybox:1\.35\n[\s\S]*k1s image load --name fork FILE\.tar/);
  assert.match(forked.stderr, /^DNS \(/m);
  ok(await k1s('image', 'load', '--name', 'fork', join(repoRoot, 'dist', 'images', 'busybox.tar')), 'image load into the fork');
  const fork = await timed('fork pods Running', () => runningApp('fork'));
  assert.equal(fork.deployment, first.deployment);
  assert.equal(fork.service, first.service);
  for (const uid of fork.pods) podUids.add(uid);
  await serviceAnswers();
  const ctx = ok(await kubectl(['config', 'current-context']), 'current-context');
  assert.equal(ctx.stdout.trim(), 'k1s-fork');

  ok(await timed('delete fork', () => k1s('delete', 'fork')), 'k1s delete fork');
  // nothing left: processes, mounts, pod cgroups, the bridge, iptables chains, kubeconfig entries, the data dirs
  assert.deepEqual(processesUnder(home), []);
  assert.deepEqual(readFileSync('/proc/self/mounts', 'utf8').split('\n').filter((l) => l.includes(home)), []);
  assert.deepEqual(podCgroups(podUids), []);
  assert.notEqual((await run('ip', ['link', 'show', BRIDGE])).code, 0, `bridge ${BRIDGE} is gone`);
  const rules = ok(await run('iptables-save', []), 'iptables-save').stdout.split('\n');
  const prefix = proxyChainPrefix(BRIDGE);
  assert.deepEqual(rules.filter((l) => l.includes(BRIDGE) || l.includes(prefix) || l.includes('10.48.')), []);
  assert.doesNotMatch(readFileSync(kubeconfig, 'utf8'), /k1s-(accept|fork)/);
  assert.deepEqual(readdirSync(k1sHome), []);
  assert.match(ok(await k1s('list'), 'list').stdout, /no clusters/);
  console.log(`cli-node acceptance: ${figures.join(', ')}; total ${Date.now() - t0} ms`);
});

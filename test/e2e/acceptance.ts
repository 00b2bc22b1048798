// Issue 9's acceptance on a REAL node (root, containerd), for any way of running k1s (the compiled CLI, the
// standalone executable): `k1s start` → kubectl get nodes Ready → busybox Deployment + Service → `k1s stop` →
// `k1s start` → same objects, pods Running → `k1s snapshot save` → `k1s delete` → `k1s start --from-snapshot` →
// same objects, pods Running → `k1s delete` leaves no process, mount, cgroup, bridge, iptables chain or kubeconfig
// entry behind. Each caller gives its own pod network (bridge, CIDRs), K1S_HOME and KUBECONFIG, so runs can go side
// by side with the other real-node tests.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupNodeNetwork } from '../../src/network/host-cleanup.js';
import { proxyChainPrefix, removeNodeServiceProxyRules } from '../../src/network/service-proxy/node.js';
import { freePort, repoRoot, run, type RunResult } from './harness.js';

const BUSYBOX = 'k1s.local/busybox:1.35';

export interface AcceptanceOptions {
  /** runs k1s with these arguments (in the caller's environment: K1S_HOME, KUBECONFIG, PATH) */
  k1s(...args: string[]): Promise<RunResult>;
  /** runs kubectl 1.33 against the KUBECONFIG k1s writes */
  kubectl(args: string[], input?: string): Promise<RunResult>;
  /** a directory everything of the run lives under (processes, mounts and the snapshot are looked for there) */
  home: string;
  k1sHome: string;
  kubeconfig: string;
  bridge: string;
  clusterCIDR: string;
  serviceCIDR: string;
  /** the node flags the server process must have been started with (none for the standalone executable) */
  serverNodeFlags: readonly string[];
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

/** Whatever a failed run left: the CLI's own delete first, then processes, the network by hand. */
export async function cleanUpAcceptance(o: AcceptanceOptions): Promise<void> {
  for (const name of ['accept', 'fork']) if (existsSync(join(o.k1sHome, name))) await o.k1s('delete', name);
  for (const p of processesUnder(o.home)) process.kill(Number(p.split(':')[0]), 'SIGKILL');
  await removeNodeServiceProxyRules({ bridge: o.bridge }).catch(() => undefined);
  await cleanupNodeNetwork({ ipamDataDir: join(o.home, 'ipam-unused'), bridge: o.bridge, networkName: `k1s-pod-network-${o.bridge}` }).catch(() => undefined);
}

/** The whole scenario; returns the time of each step, e.g. "start 1530 ms". */
export async function runAcceptance(o: AcceptanceOptions): Promise<string[]> {
  const { k1s, kubectl } = o;
  const ok = (r: RunResult, what: string) => {
    assert.equal(r.code, 0, `${what} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const figures: string[] = [];
  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const s = Date.now();
    const r = await fn();
    figures.push(`${what} ${Date.now() - s} ms`);
    return r;
  };

  const [apiPort, httpPort, httpsPort, kubeletPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const netFlags = ['--cni-bridge', o.bridge, '--cluster-cidr', o.clusterCIDR, '--service-cidr', o.serviceCIDR, '--port', String(apiPort), '--ingress-http-port', String(httpPort), '--ingress-https-port', String(httpsPort), '--kubelet-port', String(kubeletPort)];
  const started = ok(await timed('start', () => k1s('start', '--name', 'accept', ...netFlags)), 'k1s start');
  assert.match(started.stdout, new RegExp(`cluster "accept" is ready at https://127\\.0\\.0\\.1:${apiPort}`));
  assert.match(started.stderr, /^containerd \(\d+ ms\)$/m, 'the containerd phase');
  const server = processesUnder(o.home).find((p) => / server /.test(p));
  assert.ok(server, `the server process: ${processesUnder(o.home).join('\n')}`);
  const serverArgs = server.split(' ');
  const flagsBeforeScript = serverArgs.slice(1, serverArgs.findIndex((a) => a === 'server')).filter((a) => a.startsWith('--'));
  assert.deepEqual(flagsBeforeScript, [...o.serverNodeFlags], `the server's node flags: ${server}`);
  const net16 = o.clusterCIDR.split('.').slice(0, 2).join('\\.');
  assert.match(started.stderr, new RegExp(`^DNS \\(kubernetes\\.default\\.svc\\.cluster\\.local is \\d+\\.\\d+\\.\\d+\\.\\d+ at ${net16}\\.\\d+\\.1\\)`, 'm'), 'start waited for cluster DNS');

  const nodes = ok(await kubectl(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{end}']), 'get nodes');
  assert.equal(nodes.stdout, 'True');
  const load = ok(await timed('image load', () => k1s('image', 'load', '--name', 'accept', join(repoRoot, 'dist', 'images', 'busybox.tar'))), 'image load');
  assert.match(load.stdout, /loaded 1 image\(s\)/);
  ok(await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: app(2) })), 'apply');

  /** uids of the Deployment, the Service and the pods, once both pods run */
  /** `since` (ms): their containers must have started since (the status of a stopped node's pods is stale until the
   * kubelet is back and has restarted them) */
  const runningApp = async (what: string, since = 0): Promise<{ deployment: string; service: string; pods: string[] }> => {
    const deadline = Date.now() + 45_000;
    let last = '';
    while (Date.now() < deadline) {
      const r = await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.uid}={.status.phase}/{.status.containerStatuses[0].ready}/{.status.containerStatuses[0].state.running.startedAt} {end}']);
      last = r.stdout + r.stderr;
      const pods = r.stdout.trim().split(' ').filter(Boolean);
      // startedAt has whole seconds
      const fresh = (p: string) => Date.parse(p.split('/')[2] ?? '') >= Math.floor(since / 1000) * 1000;
      if (pods.length === 2 && pods.every((p) => p.includes('=Running/true/') && fresh(p))) {
        const uid = async (kind: string) => ok(await kubectl(['get', kind, 'web', '-o', 'jsonpath={.metadata.uid}']), `get ${kind}`).stdout;
        return { deployment: await uid('deployment'), service: await uid('service'), pods: pods.map((p) => p.split('=')[0]!).sort() };
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.fail(`${what}: the pods of web did not run: ${last}\n${(await kubectl(['describe', 'pods', '-l', 'app=web'])).stdout}`);
  };
  /** a pod reaches the Service by its DNS name; right after a node (re)starts, the node's Service rules and DNS may
   * still be converging while its pods already run (as after a kubelet restart in Kubernetes), so a few tries */
  const serviceAnswers = async () => {
    const tries: string[] = [];
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await kubectl(['exec', 'deploy/web', '--', 'sh', '-c', 'timeout 5 wget -qO- http://web/passwd']);
      if (r.code === 0 && /^root:/m.test(r.stdout)) return;
      tries.push(`${new Date().toISOString()} ${r.code}: ${r.stdout}${r.stderr}`.trim());
      if (Date.now() > deadline) {
        // what the pod sees and what the cluster holds, to tell DNS from Service routing from endpoints
        const show = async (args: string[]) => {
          const x = await kubectl(args);
          return `$ kubectl ${args.join(' ')}\n${x.stdout}${x.stderr}`;
        };
        const state = await Promise.all([
          show(['exec', 'deploy/web', '--', 'sh', '-c', 'cat /etc/resolv.conf; timeout 5 nslookup web.default.svc.cluster.local; ip addr']),
          show(['get', 'pods,svc,endpointslices', '-A', '-o', 'wide']),
          show(['get', 'events', '-A']),
        ]);
        assert.fail(`wget through the Service failed ${tries.length} times:\n${tries.join('\n')}\n${state.join('\n')}`);
      }
      await new Promise((res) => setTimeout(res, 500));
    }
  };
  const first = await timed('pods Running', () => runningApp('first start'));
  await serviceAnswers();
  const podUids = new Set(first.pods);

  // stop: the server, its containerd and the pods' containers end; start resumes with the same objects
  const stopped = ok(await timed('stop', () => k1s('stop', 'accept')), 'k1s stop');
  assert.match(stopped.stdout, /2 pods of the node stopped/);
  assert.deepEqual(processesUnder(o.home), [], 'nothing of the cluster runs after k1s stop');
  assert.deepEqual(podCgroups(podUids), []);
  const restartedAt = Date.now();
  ok(await timed('restart', () => k1s('start', 'accept')), 'k1s start (again)');
  const resumed = await timed('pods Running again', () => runningApp('restart', restartedAt));
  assert.equal(resumed.deployment, first.deployment);
  assert.equal(resumed.service, first.service);
  assert.deepEqual(resumed.pods, first.pods, 'the same pods run again');
  await serviceAnswers();

  const snap = join(o.home, 'accept.tar');
  const saved = ok(await timed('snapshot save', () => k1s('snapshot', 'save', snap, '--name', 'accept')), 'snapshot save');
  assert.match(saved.stdout, /saved to .*: \d+ objects at revision \d+, 2 image names/);
  ok(await timed('delete', () => k1s('delete', 'accept')), 'k1s delete');
  assert.equal(existsSync(join(o.k1sHome, 'accept')), false);

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
  assert.deepEqual(processesUnder(o.home), []);
  assert.deepEqual(readFileSync('/proc/self/mounts', 'utf8').split('\n').filter((l) => l.includes(o.home)), []);
  assert.deepEqual(podCgroups(podUids), []);
  assert.notEqual((await run('ip', ['link', 'show', o.bridge])).code, 0, `bridge ${o.bridge} is gone`);
  const rules = ok(await run('iptables-save', []), 'iptables-save').stdout.split('\n');
  const prefix = proxyChainPrefix(o.bridge);
  assert.deepEqual(rules.filter((l) => l.includes(o.bridge) || l.includes(prefix) || l.includes(`${o.clusterCIDR.split('.').slice(0, 2).join('.')}.`)), []);
  assert.doesNotMatch(readFileSync(o.kubeconfig, 'utf8'), /k1s-(accept|fork)/);
  assert.deepEqual(readdirSync(o.k1sHome), []);
  assert.match(ok(await k1s('list'), 'list').stdout, /no clusters/);
  return figures;
}

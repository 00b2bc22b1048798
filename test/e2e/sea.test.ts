// The standalone executable (dist/k1s, scripts/build-sea.mjs) on a machine as bare as it claims to need: copied
// alone into an empty directory under /tmp (no node_modules above it), run with an empty environment whose PATH
// holds no node — only the host programs a real node spawns. (1) `k1s server` with a simulated node serves
// kubectl; (2) issue 9's whole real-node acceptance (test/e2e/acceptance.ts, as test/e2e/cli-node.test.ts runs it
// with the compiled CLI) passes with it: CNI bridge k1ssea0, cluster CIDR 10.52.0.0/16, service CIDR 10.152.0.0/16.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanUpAcceptance, runAcceptance, type AcceptanceOptions } from './acceptance.js';
import { freePort, kubectlPath, repoRoot, run, type RunResult } from './harness.js';

const sea = join(repoRoot, 'dist', 'k1s');
const kubectl = kubectlPath('1.33');
/** what a real node runs from PATH (src/runtime, src/kubelet, src/network; go-iptables in the CNI plugins) */
const HOST_PROGRAMS = ['containerd', 'containerd-shim-runc-v2', 'ctr', 'runc', 'iptables', 'iptables-save', 'iptables-restore', 'ip', 'nsenter', 'mount', 'umount', 'conntrack'];
const REQUIRED = new Set(['containerd', 'containerd-shim-runc-v2', 'ctr', 'runc', 'iptables', 'ip']);

interface Run {
  code: number;
  out: string;
}

interface Sandbox {
  dir: string;
  exe: string;
  env: NodeJS.ProcessEnv;
  run(file: string, args: string[], timeoutMs?: number): Promise<Run>;
}

/** An empty directory with only the executable, a private HOME and a bin dir of symlinks to host programs. */
/** `beforeRemove` stops what runs from the sandbox: a cluster's mounts under it would stop its removal. */
function sandbox(t: { after(fn: () => void | Promise<void>): void }, programs: string[], beforeRemove?: () => Promise<void>): Sandbox {
  assert.ok(existsSync(sea), `${sea} is missing: npm run build makes it (scripts/build-sea.mjs)`);
  const dir = mkdtempSync('/tmp/k1s-sea-');
  t.after(async () => {
    await beforeRemove?.();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let d = dir; d !== '/'; d = dirname(d)) assert.ok(!existsSync(join(d, 'node_modules')), `${d}/node_modules exists`);
  const exe = join(dir, 'k1s');
  copyFileSync(sea, exe);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const p of programs) {
    const found = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((d) => join(d, p)).find((f) => existsSync(f));
    if (found) symlinkSync(found, join(bin, p));
    else assert.ok(!REQUIRED.has(p), `${p} is not installed (apt-get install -y containerd runc containernetworking-plugins iptables)`);
  }
  assert.deepEqual(readdirSync(bin).filter((f) => f.startsWith('node')), []);
  mkdirSync(join(dir, 'home'));
  // like env -i: nothing of this process' environment
  const env: NodeJS.ProcessEnv = { PATH: bin, HOME: join(dir, 'home'), K1S_HOME: join(dir, 'clusters'), KUBECONFIG: join(dir, 'home', '.kube', 'config') };
  const run = (file: string, args: string[], timeoutMs = 30_000) =>
    new Promise<Run>((resolve) => {
      execFile(file, args, { env, cwd: dir, timeout: timeoutMs }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
  return { dir, exe, env, run };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('dist/k1s alone serves an API-only cluster with a simulated node to kubectl', { timeout: 60_000 }, async (t) => {
  const sb = sandbox(t, []);
  const port = await freePort();
  const kubeconfig = join(sb.dir, 'kubeconfig');
  const args = ['server', '--disable-agent', '--simulated-nodes', '1', '--data-dir', join(sb.dir, 'data'), '--https-listen-port', String(port), '--write-kubeconfig', kubeconfig];
  const t0 = performance.now();
  const server: ChildProcess = spawn(sb.exe, args, { env: sb.env, cwd: sb.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    server.kill('SIGKILL');
  });
  let log = '';
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  await until('the API server to be ready', async () => (/API server ready/.test(log) ? true : server.exitCode !== null ? assert.fail(`k1s exited:\n${log}`) : undefined), 30_000);
  t.diagnostic(`dist/k1s server: ready ${Math.round(performance.now() - t0)} ms after spawn (fresh data dir)`);

  const kc = (...a: string[]) => sb.run(kubectl, ['--kubeconfig', kubeconfig, ...a]);
  const created = await kc('create', 'configmap', 'sea', '--from-literal=made=by-the-sea');
  assert.equal(created.code, 0, created.out);
  const got = await kc('get', 'configmap', 'sea', '-o', 'jsonpath={.data.made}');
  assert.equal(got.out, 'by-the-sea');
  const ready = await until(
    'k1s-sim-0 to be Ready',
    async () => {
      const r = await kc('get', 'node', 'k1s-sim-0', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
      return r.out === 'True' ? r.out : undefined;
    },
    20_000,
  );
  assert.equal(ready, 'True');
  // the executable's files were extracted once, into the sandbox HOME's cache
  const cache = join(sb.env.HOME!, '.cache', 'k1s');
  const [extracted] = readdirSync(cache).filter((d) => d.startsWith('sea-'));
  assert.ok(extracted, `nothing extracted under ${cache}`);
  for (const f of ['better_sqlite3.node', 'dist/images/pause.tar', 'dist/sqlite-writer.cjs', 'package.json', '.complete']) {
    assert.ok(existsSync(join(cache, extracted, f)), `${f} not extracted`);
  }
  server.kill('SIGTERM');
  assert.equal(await exited, 0, log);
});

test('dist/k1s passes the real-node acceptance: start, stop/start, snapshot, delete, start --from-snapshot, delete leaves nothing', { timeout: 150_000 }, async (t) => {
  // whatever happens, nothing of this sandbox keeps running (k1s delete first: it knows the node's leftovers)
  let o: AcceptanceOptions | undefined;
  const sb = sandbox(t, HOST_PROGRAMS, async () => {
    if (o) await cleanUpAcceptance(o);
  });
  const t0 = Date.now();
  // like env -i (sb.env only), stdout and stderr apart, as the scenario reads them
  const k1s = (...args: string[]) =>
    new Promise<RunResult>((resolve) => {
      execFile(sb.exe, args, { env: sb.env, cwd: sb.dir, timeout: 90_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  o = {
    k1s,
    kubectl: (args, input) => run(kubectl, args, { env: sb.env, input, timeoutMs: 30_000 }),
    home: sb.dir,
    k1sHome: sb.env.K1S_HOME!,
    kubeconfig: sb.env.KUBECONFIG!,
    bridge: 'k1ssea0',
    clusterCIDR: '10.52.0.0/16',
    serviceCIDR: '10.152.0.0/16',
    serverNodeFlags: [],
  };
  const figures = await runAcceptance(o);
  t.diagnostic(`dist/k1s acceptance: ${figures.join(', ')}; total ${Date.now() - t0} ms`);
});

// `k1s agent` end to end: a network namespace made here stands in for a second machine (a veth pair to the host,
// 10.158.0.1 on the host, 10.158.0.2 inside); `k1s server` listens on 10.158.0.1 without a node of its own and the
// agent joins from the namespace with the server's join token, by token discovery and TLS bootstrapping. Checked
// with real kubectl: the Node Ready with its address, both CSRs approved and issued, a busybox pod on it with logs,
// exec and port-forward through the server, a restart without the token, and joins refused for a deleted token, a wrong secret
// and a wrong CA hash while the joined node keeps working, and a server restart it carries on across. Traffic goes only to loopback and those two addresses.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { k1sBin, kubectl, kubectlPath, removeDir, run, startServer, until, type K1sServer } from './harness.js';
import { busyboxTar } from './real-node.js';

const started = Date.now();
const suffix = `${process.pid % 10000}`;
const NS = `k1sag-${suffix}`;
const HOST_IF = `k1sagh${suffix}`;
const NS_IF = `k1sagn${suffix}`;
const HOST_IP = '10.158.0.1';
const NODE_IP = '10.158.0.2';
const NODE = 'k1s-agent-e2e';
const BRIDGE = 'k1sag0';

let server: K1sServer | undefined;
let agent: { proc: ChildProcess; log: () => string } | undefined;
const dirs: string[] = [];

const sh = (cmd: string, args: string[]) => run(cmd, args, { timeoutMs: 20_000 });
/** the k1s CLI inside the namespace: nsenter enters its network only (`ip netns exec` would also remount /sys,
 *  hiding the cgroup mounts runc needs) */
const inNamespace = (args: string[]) => ['--net=/run/netns/' + NS, process.execPath, k1sBin, ...args];

function startAgent(dataDir: string, extra: string[]): { proc: ChildProcess; log: () => string; ready: Promise<void> } {
  const proc = spawn('nsenter', inNamespace(['agent', '--server', server!.url, '--data-dir', dataDir, '--node-name', NODE, '--node-ip', NODE_IP, '--cni-bridge', BRIDGE, '--node-labels', 'e2e.k1s.dev/machine=second', ...extra]), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`the agent did not become Ready:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (new RegExp(`k1s agent: node ${NODE} Ready`).test(out)) {
        clearTimeout(timer);
        res();
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`the agent exited with ${code}:\n${out}`));
    });
  });
  return { proc, log: () => out, ready };
}

function stopAgent(a: { proc: ChildProcess }): Promise<number | null> {
  return new Promise((res) => {
    if (a.proc.exitCode !== null) return res(a.proc.exitCode);
    const t = setTimeout(() => a.proc.kill('SIGKILL'), 30_000);
    a.proc.once('exit', (code) => {
      clearTimeout(t);
      res(code);
    });
    a.proc.kill('SIGTERM');
  });
}

/** a join attempt that must be refused: its exit code and output */
async function refusedJoin(token: string, extra: string[] = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'k1s-e2e-agent-refused-'));
  dirs.push(dataDir);
  return run('nsenter', inNamespace(['agent', '--server', server!.url, '--token', token, '--data-dir', dataDir, '--node-name', 'refused', '--node-ip', NODE_IP, ...extra]), { timeoutMs: 30_000 });
}

before(async () => {
  // leftovers of a run that was killed
  await sh('ip', ['netns', 'del', NS]);
  await sh('ip', ['link', 'del', HOST_IF]);
  for (const args of [
    ['netns', 'add', NS],
    ['link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF],
    ['link', 'set', NS_IF, 'netns', NS],
    ['addr', 'add', `${HOST_IP}/24`, 'dev', HOST_IF],
    ['link', 'set', HOST_IF, 'up'],
    ['-n', NS, 'addr', 'add', `${NODE_IP}/24`, 'dev', NS_IF],
    ['-n', NS, 'link', 'set', NS_IF, 'up'],
    ['-n', NS, 'link', 'set', 'lo', 'up'],
  ]) {
    const r = await sh('ip', args);
    assert.equal(r.code, 0, `ip ${args.join(' ')}: ${r.stderr}`);
  }
  server = await startServer({ extraArgs: ['--bind-address', HOST_IP, '--cluster-cidr', '10.158.64.0/18', '--service-cidr', '10.158.32.0/20'] });
  dirs.push(server.dataDir);
  const dataDir = mkdtempSync(join(tmpdir(), 'k1s-e2e-agent-'));
  dirs.push(dataDir);
  const a = startAgent(dataDir, ['--token', readFileSync(join(server.dataDir, 'token'), 'utf8').trim()]);
  agent = a;
  await a.ready;
  // the agent's own containerd has its own images
  const load = await run(process.execPath, [k1sBin, 'image', 'load', '--data-dir', dataDir, busyboxTar]);
  assert.equal(load.code, 0, load.stderr);
});

after(async () => {
  try {
    if (server && agent) {
      const k = kubectl(server, '1.33');
      await k.run(['delete', 'pod', '-l', 'suite=agent', '--wait=true', '--timeout=60s'], { timeoutMs: 90_000 });
      // pods outlive the agent: it must have removed them (sandbox, shim, cgroups) before it stops
      const pods = join(agentDir(), 'agent', 'pods');
      await until(async () => !existsSync(pods) || readdirSync(pods).length === 0, 'the agent to remove every pod', 60_000).catch((e) => console.error(String(e)));
    }
    if (agent) await stopAgent(agent);
    await server?.stop();
  } finally {
    // the namespace takes the veth pair, the pod bridge and its iptables rules with it
    await sh('ip', ['netns', 'del', NS]);
    await until(async () => (await sh('ip', ['link', 'show', HOST_IF])).code !== 0, 'the host side of the veth pair to go', 10_000).catch(async () => {
      await sh('ip', ['link', 'del', HOST_IF]);
    });
    // each one: a directory still in use (a mount left by a failed test) must not keep the others
    for (const d of dirs) {
      try {
        removeDir(d);
      } catch (e) {
        console.error(`could not remove ${d}: ${(e as Error).message}`);
      }
    }
    console.log(`agent e2e took ${Math.round((Date.now() - started) / 1000)} s`);
  }
});

const agentDir = () => dirs[1]!;

describe('k1s agent', () => {
  it('joins by token discovery and TLS bootstrapping: the Node is Ready at --node-ip, both CSRs approved and issued', async () => {
    const k = kubectl(server!, '1.33');
    assert.match(agent!.log(), /cluster CA verified with the token/);
    assert.match(agent!.log(), /certificate issued for system:node:k1s-agent-e2e/);
    assert.match(agent!.log(), /kubelet serving certificate issued for k1s-agent-e2e \(10\.158\.0\.2\)/);
    const node = await k.ok(['get', 'node', NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.addresses[?(@.type=="InternalIP")].address} {.metadata.labels.e2e\\.k1s\\.dev/machine} {.spec.podCIDR}']);
    assert.match(node, /^True 10\.158\.0\.2 second 10\.158\.\d+\.0\/24$/);
    // not the server's node: no control-plane role
    const roles = await k.ok(['get', 'node', NODE, '-o', 'jsonpath={.metadata.labels}']);
    assert.doesNotMatch(roles, /node-role\.kubernetes\.io\/control-plane/);
    const csrs = await k.ok(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.signerName} {.spec.username} {.status.conditions[0].type} {.status.certificate}{"\\n"}{end}']);
    const lines = csrs.trim().split('\n').map((l) => l.split(' '));
    const id = readFileSync(join(server!.dataDir, 'token'), 'utf8').trim().split('.')[0];
    const client = lines.find((l) => l[0] === 'kubernetes.io/kube-apiserver-client-kubelet');
    const serving = lines.find((l) => l[0] === 'kubernetes.io/kubelet-serving');
    assert.deepEqual(client?.slice(1, 3), [`system:bootstrap:${id}`, 'Approved']);
    assert.ok(client?.[3], 'the client CSR is issued');
    assert.deepEqual(serving?.slice(1, 3), [`system:node:${NODE}`, 'Approved']);
    assert.ok(serving?.[3], 'the serving CSR is issued');
    // the node's key material is its own
    assert.equal(statSync(join(agentDir(), 'kubelet.kubeconfig')).mode & 0o777, 0o600);
    assert.equal(statSync(join(agentDir(), 'pki', 'kubelet-serving.key')).mode & 0o777, 0o600);
    assert.equal(statSync(join(agentDir(), 'addons.kubeconfig')).mode & 0o777, 0o600);
    // the add-ons' identity is its own; the kubelet's stays within the Node authorizer
    const addons = lines.find((l) => l[0] === 'kubernetes.io/kube-apiserver-client');
    assert.deepEqual(addons?.slice(1, 3), [`system:node:${NODE}`, 'Approved']);
    const nodeKubeconfig = join(agentDir(), 'kubelet.kubeconfig');
    const asNode = (args: string[]) => run(kubectlPath('1.33'), ['--kubeconfig', nodeKubeconfig, ...args]);
    assert.equal((await asNode(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout, `system:node:${NODE}`);
    assert.match((await asNode(['get', 'nodes'])).stderr, /cannot read all nodes, only its own Node object/);
  });

  it('cluster-info is readable anonymously and signed for the join token', async () => {
    const anon = await run('curl', ['-sk', `${server!.url}/api/v1/namespaces/kube-public/configmaps/cluster-info`]);
    const cm = JSON.parse(anon.stdout) as { data: Record<string, string> };
    const id = readFileSync(join(server!.dataDir, 'token'), 'utf8').trim().split('.')[0];
    assert.match(cm.data[`jws-kubeconfig-${id}`]!, /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
    assert.match(cm.data.kubeconfig!, new RegExp(`server: ${server!.url.replace(/\./g, '\\.')}`));
  });

  it('runs a busybox pod whose logs, exec and port-forward reach it through the server', async () => {
    const k = kubectl(server!, '1.33');
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'on-agent', labels: { suite: 'agent' } },
      spec: {
        nodeSelector: { 'e2e.k1s.dev/machine': 'second' },
        // httpd as PID 1 ignores SIGTERM: no 30 s wait when the pod is deleted
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'bb', image: 'k1s.local/busybox:1.35', imagePullPolicy: 'Never', command: ['sh', '-c', 'echo hello from the agent; mkdir -p /www; echo forwarded > /www/index.html; exec httpd -f -p 8080 -h /www'] }],
      },
    });
    await k.ok(['apply', '-f', '-'], { input: manifest });
    await k.ok(['wait', '--for=condition=Ready', 'pod/on-agent', '--timeout=60s'], { timeoutMs: 70_000 });
    const where = await k.ok(['get', 'pod', 'on-agent', '-o', 'jsonpath={.spec.nodeName} {.status.hostIP} {.status.podIP}']);
    assert.match(where, /^k1s-agent-e2e 10\.158\.0\.2 10\.158\.\d+\.\d+$/);
    const logs = await until(async () => {
      const r = await k.run(['logs', 'on-agent']);
      return r.code === 0 && r.stdout.includes('hello') && r.stdout;
    }, 'the pod log', 20_000);
    assert.equal(logs, 'hello from the agent\n');
    assert.equal(await k.ok(['exec', 'on-agent', '--', 'sh', '-c', 'echo exec $(hostname)']), 'exec on-agent\n');
    // port-forward: kubectl on 127.0.0.1 → the server → the agent's kubelet → the pod
    const pf = spawn(kubectlPath('1.33'), ['--kubeconfig', server!.kubeconfig, 'port-forward', 'pod/on-agent', ':8080'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      pf.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const port = await until(async () => /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1], 'kubectl port-forward to listen', 20_000);
      const body = await until(async () => {
        const r = await run('curl', ['-s', '--max-time', '5', `http://127.0.0.1:${port}/`]);
        return r.code === 0 && r.stdout;
      }, 'the forwarded answer', 20_000);
      assert.equal(body, 'forwarded\n');
    } finally {
      pf.kill('SIGTERM');
    }
  });

  it('restarts from its credential without the token and adopts its running pod', async () => {
    const k = kubectl(server!, '1.33');
    const before = await k.ok(['get', 'pod', 'on-agent', '-o', 'jsonpath={.status.containerStatuses[0].containerID}']);
    assert.equal(await stopAgent(agent!), 0);
    const again = startAgent(agentDir(), []);
    agent = again;
    await again.ready;
    assert.match(again.log(), /using the node credential in .*kubelet\.kubeconfig \(no bootstrap\)/);
    assert.doesNotMatch(again.log(), /joining/);
    assert.equal(await k.ok(['get', 'pod', 'on-agent', '-o', 'jsonpath={.status.containerStatuses[0].containerID}']), before);
    assert.equal(await k.ok(['exec', 'on-agent', '--', 'echo', 'still here']), 'still here\n');
  });

  it('refuses joins with a wrong secret, a wrong CA hash or a deleted token (made with --print-join-command); the joined node keeps working', async () => {
    const k = kubectl(server!, '1.33');
    const joinToken = readFileSync(join(server!.dataDir, 'token'), 'utf8').trim();
    const [id] = joinToken.split('.');
    const wrong = await refusedJoin(`${id}.${'a'.repeat(16)}`);
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /^k1s agent: refused to join: the cluster-info signature does not match token/m);
    const hash = await refusedJoin(joinToken, ['--ca-cert-hash', `sha256:${'0'.repeat(64)}`]);
    assert.equal(hash.code, 1, hash.stderr);
    assert.match(hash.stderr, /^k1s agent: refused to join: the server's CA has public key hash sha256:[0-9a-f]{64}, not sha256:0{64}: refusing to trust it$/m);
    // a token made and deleted again: its signature goes, and a join with it is refused
    const created = await run(process.execPath, [k1sBin, 'token', 'create', '--print-join-command', '--kubeconfig', server!.kubeconfig]);
    assert.equal(created.code, 0, created.stderr);
    const printed = /^k1s agent --server (\S+) --token ([a-z0-9]{6}\.[a-z0-9]{16}) --ca-cert-hash (sha256:[0-9a-f]{64})$/.exec(created.stdout.trim());
    assert.ok(printed, created.stdout);
    assert.equal(printed[1], server!.url);
    // the hash printed is the one the agent computes from what it discovers
    assert.match(hash.stderr, new RegExp(`public key hash ${printed[3]},`));
    const token = printed[2]!;
    const tid = token.split('.')[0]!;
    const signed = async () => (await k.ok(['-n', 'kube-public', 'get', 'cm', 'cluster-info', '-o', `jsonpath={.data.jws-kubeconfig-${tid}}`])).length > 0;
    await until(signed, 'the new token signed', 10_000);
    assert.equal((await run(process.execPath, [k1sBin, 'token', 'delete', tid, '--kubeconfig', server!.kubeconfig])).code, 0);
    await until(async () => !(await signed()), 'the deleted token unsigned', 10_000);
    const deleted = await refusedJoin(token);
    assert.equal(deleted.code, 1, deleted.stderr);
    assert.match(deleted.stderr, new RegExp(`^k1s agent: refused to join: the server has no signature for token "${tid}": the token is unknown, expired or deleted`, 'm'));
    // nothing was registered by the refused joins, and the joined node still serves
    assert.equal((await k.run(['get', 'node', 'refused'])).code, 1);
    assert.equal(await k.ok(['get', 'node', NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']), 'True');
    assert.equal(await k.ok(['exec', 'on-agent', '--', 'echo', 'after the refusals']), 'after the refusals\n');
  });

  it('carries on across a server restart: watches come back, a new pod starts on the node', async () => {
    const port = Number(new URL(server!.url).port);
    const dataDir = server!.dataDir;
    await server!.stop();
    server = await startServer({ dataDir, port, extraArgs: ['--bind-address', HOST_IP, '--cluster-cidr', '10.158.64.0/18', '--service-cidr', '10.158.32.0/20'] });
    const k = kubectl(server, '1.33');
    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'after-restart', labels: { suite: 'agent' } },
      spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'bb', image: 'k1s.local/busybox:1.35', imagePullPolicy: 'Never', command: ['sleep', '3600'] }] },
    });
    await k.ok(['apply', '-f', '-'], { input: pod });
    await k.ok(['wait', '--for=condition=Ready', 'pod/after-restart', '--timeout=60s'], { timeoutMs: 70_000 });
    assert.equal(await k.ok(['exec', 'on-agent', '--', 'echo', 'after the restart']), 'after the restart\n');
    assert.equal(await k.ok(['get', 'node', NODE, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']), 'True');
  });
});

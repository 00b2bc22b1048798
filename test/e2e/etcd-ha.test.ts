// Several k1s servers on one etcd (docs/ha.md): two `k1s server` processes with the same --token share the CA,
// the keys and the Secrets encryption key through the datastore, both serve the API, the `kubernetes` Endpoints
// list both, one runs the controllers, and when it is killed (SIGKILL) the other takes over within the Lease
// duration and the dead one drops out.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdCluster } from '../etcd-member.js';
import { freePort, k1sBin, kubectl, kubectlPath, removeDir, run, startServer, until, type K1sServer } from './harness.js';

const TOKEN = 'ha-test-token-0123456789';
let etcd: EtcdCluster;
const servers: Record<'a' | 'b', K1sServer | undefined> = { a: undefined, b: undefined };
const ports: Record<'a' | 'b', number> = { a: 0, b: 0 };
const dataDirs: string[] = [];

// the servers listen on an address the test adds to the loopback device, which they advertise: the Endpoints may
// not hold 127.0.0.0/8 addresses, and test traffic stays off the machine's own network (root, as the node tests)
const hostIP = '10.157.0.1';
const ipAddr = (verb: 'add' | 'del') => run('ip', ['addr', verb, `${hostIP}/32`, 'dev', 'lo']);
const haArgs = (token?: string) => [
  '--datastore-endpoint', etcd.endpoints.join(','), ...(token ? ['--token', token] : []), '--bind-address', hostIP!, '--simulated-nodes', '1', '--secrets-encryption',
];
const at = (which: 'a' | 'b') => `${hostIP}:${ports[which]}`;

async function start(which: 'a' | 'b', opts: { dataDir?: string; token?: string } = {}): Promise<K1sServer> {
  const s = await startServer({ dataDir: opts.dataDir, port: ports[which], extraArgs: haArgs(opts.token) });
  if (!dataDirs.includes(s.dataDir)) dataDirs.push(s.dataDir);
  servers[which] = s;
  return s;
}

const k = (s: K1sServer) => kubectl(s, '1.33');

async function json<T>(s: K1sServer, args: string[]): Promise<T> {
  return JSON.parse(await k(s).ok([...args, '-o', 'json'])) as T;
}

interface Subset {
  addresses?: { ip: string }[];
  ports: { port: number }[];
}

/** the `kubernetes` Endpoints as "ip:port", sorted */
async function endpointsOf(s: K1sServer): Promise<string[]> {
  const ep = await json<{ subsets?: Subset[] }>(s, ['get', 'endpoints', 'kubernetes']);
  return (ep.subsets ?? []).flatMap((sub) => (sub.addresses ?? []).flatMap((a) => sub.ports.map((p) => `${a.ip}:${p.port}`))).sort();
}

async function holderOf(s: K1sServer, lease: string): Promise<string> {
  return (await k(s).ok(['-n', 'kube-system', 'get', 'lease', lease, '-o', 'jsonpath={.spec.holderIdentity}'])).trim();
}

/** which server's log says it became leader of the lease with this holder identity */
function leaderOf(holder: string): 'a' | 'b' | undefined {
  const line = `${holder} became leader of kube-system/kube-controller-manager`;
  const who = (['a', 'b'] as const).filter((w) => servers[w]?.log().includes(line));
  return who.length === 1 ? who[0] : undefined;
}

before(async () => {
  await ipAddr('del');
  const added = await ipAddr('add');
  assert.equal(added.code, 0, `ip addr add ${hostIP}/32 dev lo: ${added.stderr}`);
  etcd = await EtcdCluster.start(1);
  ports.a = await freePort();
  ports.b = await freePort();
  await start('a', { token: TOKEN });
  await start('b', { token: TOKEN });
});

after(async () => {
  for (const s of Object.values(servers)) await s?.stop('SIGKILL');
  await etcd?.stop();
  for (const d of dataDirs) removeDir(d);
  await ipAddr('del');
});

describe('two k1s servers on one etcd', () => {
  it('share the CA and keys: one kubeconfig works against both, key files are 0600', async () => {
    const [a, b] = [servers.a!, servers.b!];
    for (const f of ['ca.crt', 'ca.key', 'service-account.key', 'service-account.pub', 'front-proxy-ca.crt']) {
      assert.equal(readFileSync(join(b.dataDir, 'tls', f), 'utf8'), readFileSync(join(a.dataDir, 'tls', f), 'utf8'), `${f} is the same on both`);
    }
    assert.notEqual(readFileSync(join(b.dataDir, 'tls', 'server.crt'), 'utf8'), readFileSync(join(a.dataDir, 'tls', 'server.crt'), 'utf8'), 'each has its own serving certificate');
    for (const f of ['tls/ca.key', 'tls/service-account.key', 'tls/front-proxy-ca.key', 'cred/token']) assert.equal(statSync(join(b.dataDir, f)).mode & 0o777, 0o600, f);
    // A's kubeconfig (A's CA, A's admin certificate) pointed at B: TLS verifies and B accepts the client certificate
    const cross = join(a.dataDir, 'kubeconfig-b');
    writeFileSync(cross, readFileSync(a.kubeconfig, 'utf8').replace(a.url, b.url), { mode: 0o600 });
    const r = await run(kubectlPath('1.33'), ['--kubeconfig', cross, 'get', 'namespace', 'kube-system', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'namespace/kube-system');
    // a service-account token issued through A is accepted by B
    const token = (await k(a).ok(['create', 'token', 'default', '-n', 'default'])).trim();
    const bare = ['--kubeconfig', '/dev/null', '--server', b.url, '--certificate-authority', join(a.dataDir, 'tls', 'ca.crt'), '--token', token];
    const who = await run(kubectlPath('1.33'), [...bare, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout.trim(), 'system:serviceaccount:default:default', who.stderr);
  });

  it('each has an identity Lease with its address, and the kubernetes Endpoints list both', async () => {
    const [a, b] = [servers.a!, servers.b!];
    const leases = await json<{ items: { metadata: { name: string; annotations: Record<string, string> }; spec: { holderIdentity: string } }[] }>(a, [
      '-n', 'kube-system', 'get', 'lease', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver',
    ]);
    assert.deepEqual(leases.items.map((l) => l.metadata.annotations['k1s.dev/advertise-address']).sort(), [at('a'), at('b')].sort());
    for (const l of leases.items) {
      assert.match(l.metadata.name, /^apiserver-[a-z2-7]{26}$/);
      assert.match(l.spec.holderIdentity, new RegExp(`^${l.metadata.name}_[0-9a-f-]{36}$`));
    }
    const want = [at('a'), at('b')].sort();
    await until(async () => JSON.stringify(await endpointsOf(b)) === JSON.stringify(want), 'both servers in the Endpoints', 15_000);
    const slices = (await k(a).ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'jsonpath={range .items[*]}{.ports[0].port}{"\\n"}{end}'])).trim().split('\n').map(Number).sort();
    assert.deepEqual(slices, [ports.a, ports.b].sort((x, y) => x - y));
  });

  it('a Secret encrypted at rest through one server is read through the other (the encryption key is shared)', async () => {
    const [a, b] = [servers.a!, servers.b!];
    await k(a).ok(['create', 'secret', 'generic', 'shared', '--from-literal=pw=hunter2']);
    const stored = await etcd.etcdctl('get', '--print-value-only', '/registry/secrets/default/shared');
    assert.match(stored, /^k8s:enc:aescbc:v1:aescbckey:/);
    assert.doesNotMatch(stored, /hunter2|aHVudGVyMg/);
    assert.equal(Buffer.from((await k(b).ok(['get', 'secret', 'shared', '-o', 'jsonpath={.data.pw}'])).trim(), 'base64').toString(), 'hunter2');
  });

  it('a watch on one server sees a ConfigMap created through the other', async () => {
    const [a, b] = [servers.a!, servers.b!];
    const child = spawn(kubectlPath('1.33'), ['get', 'configmaps', '--watch', '-o', 'name'], { env: { ...process.env, KUBECONFIG: b.kubeconfig, HOME: b.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      await until(async () => out.length > 0, 'the watch on B to list', 15_000);
      await k(a).ok(['create', 'configmap', 'via-a', '--from-literal=x=1']);
      await until(async () => out.includes('configmap/via-a'), 'configmap/via-a in the watch on B', 10_000);
    } finally {
      child.kill();
    }
  });

  it('a list paged on one server continues on the other, and a watch from its resourceVersion resumes there', async () => {
    const [a, b] = [servers.a!, servers.b!];
    for (const n of ['page-1', 'page-2', 'page-3']) {
      await k(a).ok(['-n', 'kube-public', 'create', 'configmap', n]);
      await k(a).ok(['-n', 'kube-public', 'label', 'configmap', n, 'paged=yes']);
    }
    type List = { metadata: { continue?: string; resourceVersion: string }; items: { metadata: { name: string } }[] };
    const first = JSON.parse(await k(a).ok(['get', '--raw', '/api/v1/namespaces/kube-public/configmaps?labelSelector=paged%3Dyes&limit=2'])) as List;
    assert.ok(first.metadata.continue, 'a continue token');
    const rest = JSON.parse(await k(b).ok(['get', '--raw', `/api/v1/namespaces/kube-public/configmaps?labelSelector=paged%3Dyes&limit=2&continue=${encodeURIComponent(first.metadata.continue!)}`])) as List;
    const names = [...first.items, ...rest.items].map((i) => i.metadata.name);
    assert.deepEqual(names, ['page-1', 'page-2', 'page-3']);
    // both pages are of one snapshot: the second answers at the first one's resourceVersion
    assert.equal(rest.metadata.resourceVersion, first.metadata.resourceVersion);
    await k(a).ok(['-n', 'kube-public', 'create', 'configmap', 'page-4']);
    const w = await k(b).ok(['get', '--raw', `/api/v1/namespaces/kube-public/configmaps?watch=1&resourceVersion=${first.metadata.resourceVersion}&timeoutSeconds=1`]);
    // only what came after the list's snapshot
    assert.match(w, /"type":"ADDED","object":\{[^\n]*"name":"page-4"/);
    assert.doesNotMatch(w, /"name":"page-3"/);
  });

  it('one server runs the controllers; a Deployment created through the other gets its ReplicaSet and Pods', async () => {
    const [a, b] = [servers.a!, servers.b!];
    const holder = await holderOf(a, 'kube-controller-manager');
    assert.ok(holder, 'the kube-controller-manager Lease has a holder');
    assert.ok(leaderOf(holder), `exactly one server's log names ${holder} as leader`);
    const schedulerHolders = (['a', 'b'] as const).filter((w) => /became leader of kube-system\/kube-scheduler/.test(servers[w]!.log()));
    assert.equal(schedulerHolders.length, 1, 'one scheduler');
    await k(b).ok(['create', 'deployment', 'web', '--image=registry.k8s.io/pause:3.10', '--replicas=2']);
    await until(async () => (await k(a).ok(['get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running', '-o', 'name'])).trim().split('\n').filter(Boolean).length === 2, '2 running pods of the Deployment', 30_000);
    assert.match(await k(b).ok(['get', 'replicasets', '-l', 'app=web', '-o', 'name']), /^replicaset\.apps\/web-[a-z0-9]+$/m);
  });

  it('a wrong token is refused with the next step, in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-e2e-'));
    dataDirs.push(dir);
    const r = await run(process.execPath, [k1sBin, 'server', '--data-dir', dir, '--https-listen-port', '0', '--disable-agent', '--datastore-endpoint', etcd.endpoints[0]!, '--token', 'not-the-token'], { timeoutMs: 30_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^k1s server: the token does not match the one the cluster was created with: pass the first server's --token/m);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });

  it('killing the leader moves the controllers to the other within the Lease duration; the Endpoints drop it; it rejoins', async (t) => {
    const holder = await holderOf(servers.a!, 'kube-controller-manager');
    const leader = leaderOf(holder)!;
    const other = leader === 'a' ? 'b' : 'a';
    const survivor = servers[other]!;
    const killedDir = servers[leader]!.dataDir;
    const identity = async (s: K1sServer) => {
      const l = await json<{ items: { metadata: { name: string; annotations: Record<string, string> }; spec: { holderIdentity: string } }[] }>(s, [
        '-n', 'kube-system', 'get', 'lease', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver',
      ]);
      return l.items.find((i) => i.metadata.annotations['k1s.dev/advertise-address'] === at(leader))!;
    };
    const before = await identity(survivor);
    const t0 = Date.now();
    await servers[leader]!.stop('SIGKILL');
    servers[leader] = undefined;
    const newHolder = await until(async () => {
      const h = await holderOf(survivor, 'kube-controller-manager');
      return h !== holder && h;
    }, 'the survivor to hold kube-controller-manager', 25_000);
    const takeover = Date.now() - t0;
    assert.equal(leaderOf(newHolder), other);
    assert.ok(takeover < 20_000, `took over after ${takeover} ms`);
    await until(async () => JSON.stringify(await endpointsOf(survivor)) === JSON.stringify([at(other)]), 'the dead server dropped from the Endpoints', 20_000);
    t.diagnostic(`controllers taken over after ${takeover} ms, the dead server out of the Endpoints after ${Date.now() - t0} ms`);
    // the new leader's controllers act: the Deployment scales through the survivor
    await k(survivor).ok(['scale', 'deployment', 'web', '--replicas=3']);
    await until(async () => (await k(survivor).ok(['get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running', '-o', 'name'])).trim().split('\n').filter(Boolean).length === 3, '3 running pods after the takeover', 30_000);

    // a restart picks up where it was: same data dir and port, the token it saved
    const back = await start(leader, { dataDir: killedDir });
    assert.match(back.log(), /joined the cluster in the datastore/);
    const after = await identity(back);
    assert.equal(after.metadata.name, before.metadata.name, 'it takes its identity Lease over');
    assert.notEqual(after.spec.holderIdentity, before.spec.holderIdentity, 'with a new holder identity');
    const both = [at('a'), at('b')].sort();
    await until(async () => JSON.stringify(await endpointsOf(back)) === JSON.stringify(both), 'both servers in the Endpoints again', 15_000);
    assert.equal((await k(back).ok(['get', 'configmap', 'via-a', '-o', 'jsonpath={.data.x}'])).trim(), '1');
  });
});

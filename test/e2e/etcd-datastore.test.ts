// k1s on etcd (--datastore-endpoint): real kubectl (1.33 and 1.27) against a server whose state is in a real etcd
// member; objects are where kube-apiserver would put them, and survive a restart of k1s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStoreReadonly } from '../../src/cli/snapshot.js';
import { EtcdCluster } from '../etcd-member.js';
import { kubectl, kubectlPath, kubectlVersions, removeDir, startServer, until, type K1sServer } from './harness.js';

let etcd: EtcdCluster;
let server: K1sServer;
const args = () => ['--datastore-endpoint', etcd.endpoints.join(','), '--simulated-nodes', '1'];

before(async () => {
  etcd = await EtcdCluster.start(1);
  server = await startServer({ extraArgs: args() });
});

after(async () => {
  const code = await server?.stop();
  await etcd?.stop();
  if (server) removeDir(server.dataDir);
  assert.equal(code, 0, `server exit code, log:\n${server?.log()}`);
});

/** `kubectl get --watch -o name` until `name` shows, while `act` runs */
async function watchSees(server: K1sServer, version: string, resource: string, name: string, act: () => Promise<unknown>): Promise<void> {
  const child = spawn(kubectlPath(version), ['get', resource, '--watch', '-o', 'name'], {
    env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: server.dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  try {
    // the initial list is printed first: then the watch is running
    await until(async () => out.length > 0 || child.exitCode !== null, 'the watch to start', 20_000);
    await act();
    await until(async () => out.includes(name), `${name} in the watch`, 20_000);
  } finally {
    child.kill();
  }
}

describe('k1s on etcd', () => {
  for (const v of kubectlVersions) {
    it(`kubectl ${v}: ConfigMaps created, read, listed, watched and deleted, stored under /registry/configmaps/`, async () => {
      const k = kubectl(server, v);
      const name = `cm-${v.replace('.', '-')}`;
      await watchSees(server, v, 'configmaps', `configmap/${name}`, () => k.ok(['create', 'configmap', name, '--from-literal=a=1']));
      assert.equal((await k.ok(['get', 'configmap', name, '-o', 'jsonpath={.data.a}'])).trim(), '1');
      await k.ok(['create', 'configmap', `${name}-b`, '--from-literal=b=2']);
      const listed = await k.ok(['get', 'configmaps', '-o', 'name', '--chunk-size', '1']);
      assert.match(listed, new RegExp(`configmap/${name}\\n`));
      assert.match(listed, new RegExp(`configmap/${name}-b\\n`));
      const inEtcd = await etcd.etcdctl('get', '--print-value-only', `/registry/configmaps/default/${name}`);
      assert.equal((JSON.parse(inEtcd) as { data: { a: string } }).data.a, '1');
      await k.ok(['delete', 'configmap', `${name}-b`]);
      assert.equal((await etcd.etcdctl('get', '--keys-only', `/registry/configmaps/default/${name}-b`)).trim(), '');
      const gone = await k.run(['get', 'configmap', `${name}-b`]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound|not found/);
    });
  }

  it('a Deployment gets its ReplicaSet and Pods from the controllers, all in etcd', async () => {
    const k = kubectl(server, '1.33');
    await k.ok(['create', 'deployment', 'web', '--image=registry.k8s.io/pause:3.10', '--replicas=2']);
    const pods = await until(async () => {
      const o = await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'name']);
      return o.trim().split('\n').filter(Boolean).length === 2 && o;
    }, '2 pods of the Deployment', 40_000);
    const rs = (await k.ok(['get', 'replicasets', '-l', 'app=web', '-o', 'name'])).trim();
    assert.match(rs, /^replicaset\.apps\/web-[a-z0-9]+$/);
    const keys = await etcd.etcdctl('get', '--prefix', '--keys-only', '/registry/');
    assert.match(keys, /^\/registry\/deployments\/default\/web$/m);
    assert.match(keys, new RegExp(`^/registry/replicasets/default/${rs.split('/')[1]}$`, 'm'));
    for (const p of pods.trim().split('\n')) assert.match(keys, new RegExp(`^/registry/pods/default/${p.split('/')[1]}$`, 'm'));
    assert.match(keys, /^\/registry\/minions\/k1s-sim-0$/m);
    assert.match(keys, /^\/registry\/services\/specs\/default\/kubernetes$/m);
  });

  it('the objects are still there after k1s restarts, and the etcd health check passes', async () => {
    const k = kubectl(server, '1.27');
    const before = (await k.ok(['get', 'configmap', 'cm-1-33', '-o', 'jsonpath={.metadata.resourceVersion}'])).trim();
    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir: server.dataDir, extraArgs: args() });
    const k2 = kubectl(server, '1.27');
    assert.equal((await k2.ok(['get', 'configmap', 'cm-1-33', '-o', 'jsonpath={.metadata.resourceVersion}'])).trim(), before);
    assert.match(await k2.ok(['get', 'deployment', 'web', '-o', 'name']), /deployment\.apps\/web/);
    assert.equal((await k2.ok(['get', '--raw', '/readyz/etcd'])).trim(), 'ok');
    // what reads SQLite directly (secrets-encrypt) says where the state is instead
    assert.throws(() => openStoreReadonly(join(server.dataDir, 'db', 'state.db')), /keeps its state in etcd \(http:\/\/127\.0\.0\.1:\d+\).*k1s snapshot save FILE, then k1s snapshot restore FILE --data-dir/);
  });

  it('while etcd is down requests fail with a Status and /readyz/etcd fails; k1s carries on once it is back', async () => {
    const k = kubectl(server, '1.33');
    await etcd.members[0]!.kill();
    try {
      const t0 = Date.now();
      const r = await k.run(['get', 'configmap', 'cm-1-33', '--request-timeout=30s']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^Error from server \(InternalError\): .*etcd http:\/\/127\.0\.0\.1:\d+: UNAVAILABLE/m, r.stderr);
      assert.ok(Date.now() - t0 < 25_000, `failed after ${Date.now() - t0} ms`);
      const ready = await k.run(['get', '--raw', '/readyz/etcd']);
      assert.notEqual(ready.code, 0);
      assert.equal(server.proc.exitCode, null, 'k1s is still running');
    } finally {
      etcd.members[0]!.start();
    }
    await etcd.members[0]!.healthy();
    await until(async () => (await k.run(['get', 'configmap', 'cm-1-33', '-o', 'name'])).code === 0, 'reads to work again', 30_000);
    await k.ok(['create', 'configmap', 'after-outage']);
    await watchSees(server, '1.33', 'configmaps', 'configmap/after-outage-2', () => k.ok(['create', 'configmap', 'after-outage-2']));
  });
});

describe('k1s on a 3-member etcd cluster', () => {
  let etcd3: EtcdCluster;
  let server3: K1sServer;
  before(async () => {
    etcd3 = await EtcdCluster.start(3);
    server3 = await startServer({ extraArgs: ['--datastore-endpoint', etcd3.endpoints.join(','), '--etcd-prefix', '/k1s-three'] });
  });
  after(async () => {
    const code = await server3?.stop();
    await etcd3?.stop();
    if (server3) removeDir(server3.dataDir);
    assert.equal(code, 0, `server exit code, log:\n${server3?.log()}`);
  });

  it('keeps serving kubectl, watches included, with the member it talked to killed', async () => {
    const k = kubectl(server3, '1.33');
    await k.ok(['create', 'configmap', 'before']);
    assert.match(await etcd3.etcdctl('get', '--keys-only', '--prefix', '/k1s-three/configmaps/default/'), /\/k1s-three\/configmaps\/default\/before/);
    await etcd3.members[0]!.kill();
    await watchSees(server3, '1.33', 'configmaps', 'configmap/after', () =>
      until(async () => (await k.run(['create', 'configmap', 'after'])).code === 0, 'a create with a member down', 20_000),
    );
    assert.equal((await k.ok(['get', 'configmap', 'before', '-o', 'name'])).trim(), 'configmap/before');
    assert.equal((await k.ok(['get', '--raw', '/readyz/etcd'])).trim(), 'ok');
  });

  it('with quorum lost, fails requests within its deadline and reports [-]etcd failed; recovers by itself when quorum returns', async () => {
    const k = kubectl(server3, '1.33');
    // the first test left member 0 down: one more is two of three
    await etcd3.members[1]!.kill();
    try {
      const t0 = Date.now();
      const r = await k.run(['get', 'configmap', 'before', '--request-timeout=60s']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^Error from server \(InternalError\): .*etcd/m, r.stderr);
      assert.ok(Date.now() - t0 < 30_000, `failed after ${Date.now() - t0} ms`);
      const ready = await k.run(['get', '--raw', '/readyz?verbose']);
      assert.notEqual(ready.code, 0);
      assert.match(ready.stdout + ready.stderr, /\[-\]etcd failed/);
      assert.equal(server3.proc.exitCode, null, 'k1s is still running');
    } finally {
      etcd3.members[0]!.start();
      etcd3.members[1]!.start();
    }
    await Promise.all([etcd3.members[0]!.healthy(), etcd3.members[1]!.healthy()]);
    await until(async () => (await k.run(['get', '--raw', '/readyz/etcd'])).stdout.trim() === 'ok', '/readyz/etcd to pass again', 30_000);
    await watchSees(server3, '1.33', 'configmaps', 'configmap/after-quorum', () =>
      until(async () => (await k.run(['create', 'configmap', 'after-quorum'])).code === 0, 'a create once quorum is back', 30_000),
    );
    assert.equal((await k.ok(['get', 'configmap', 'before', '-o', 'name'])).trim(), 'configmap/before');
  });
});

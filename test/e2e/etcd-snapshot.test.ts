// Snapshots and migrations of a cluster on etcd, end to end with the built CLI, real kubectl and a real etcd member
// (TLS with client certificates): save from etcd, restore into etcd (a non-empty prefix refused unless --force) and
// into SQLite, migrate SQLite → etcd → SQLite; after each, a server started on the target serves the same objects,
// the Secret still encrypted at rest; k1s history and secrets-encrypt read the etcd cluster's store.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EtcdCluster } from '../etcd-member.js';
import { k1sBin, kubectl, kubectlPath, removeDir, run, startServer, type K1sServer } from './harness.js';

let etcd: EtcdCluster;
let tmp: string;
const servers: K1sServer[] = [];

before(async () => {
  etcd = await EtcdCluster.start(1, { tls: true });
  tmp = mkdtempSync(join(tmpdir(), 'k1s-etcd-snap-'));
});
after(async () => {
  for (const s of servers) await s.stop();
  await etcd?.stop();
  if (tmp) removeDir(tmp);
});

const tlsFlags = () => {
  const t = etcd.members[0]!.tls!;
  return ['--datastore-cafile', t.ca, '--datastore-certfile', t.clientCert, '--datastore-keyfile', t.clientKey];
};
const onEtcd = (prefix: string) => ['--datastore-endpoint', etcd.endpoints.join(','), '--etcd-prefix', prefix, ...tlsFlags()];

async function start(dataDir: string, args: string[] = []): Promise<ReturnType<typeof kubectl>> {
  const s = await startServer({ dataDir, extraArgs: ['--secrets-encryption', ...args], sqlite: !args.includes('--datastore-endpoint') });
  servers.push(s);
  return kubectl(s, '1.33');
}

async function stopAll(): Promise<void> {
  while (servers.length) assert.equal(await servers.pop()!.stop(), 0);
}

const k1s = async (...args: string[]) => {
  const r = await run(process.execPath, [k1sBin, ...args], { timeoutMs: 30_000 });
  return { ...r, out: r.stdout + r.stderr };
};

/** The objects every store must hold: ConfigMaps, a Secret (readable), a CRD and its custom resource. */
async function assertObjects(k: ReturnType<typeof kubectl>, extra: string[] = []): Promise<void> {
  assert.equal((await k.ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}'])).trim(), 'green');
  assert.equal((await k.ok(['get', 'configmap', 'second', '-o', 'jsonpath={.data.n}'])).trim(), '2');
  const p = (await k.ok(['get', 'secret', 'db', '-o', 'jsonpath={.data.password}'])).trim();
  assert.equal(Buffer.from(p, 'base64').toString(), 'hunter2');
  assert.equal((await k.ok(['get', 'crontabs', 'nightly', '-o', 'jsonpath={.spec.cronSpec}'])).trim(), '0 3 * * *');
  for (const name of extra) assert.equal((await k.ok(['get', 'configmap', name, '-o', 'name'])).trim(), `configmap/${name}`);
}

test('snapshot save/restore on etcd and migrate between SQLite and etcd keep every object', { timeout: 120_000 }, async () => {
  const a = join(tmp, 'a');
  const k = await start(a, onEtcd('/snap-a'));
  await k.ok(['create', 'configmap', 'settings', '--from-literal=color=green']);
  await k.ok(['create', 'configmap', 'second', '--from-literal=n=2']);
  await k.ok(['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2']);
  const crd = join(tmp, 'crd.json');
  writeFileSync(crd, JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
    spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } } }] },
  }));
  await k.ok(['apply', '-f', crd]);
  await k.ok(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=20s']);
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'nightly', namespace: 'default' }, spec: { cronSpec: '0 3 * * *' } }) });
  // k1s history reads an etcd cluster's revisions from etcd (the Secret decrypted with the data dir's key)
  await k.ok(['patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"color":"green","size":"xl"}}']);
  const hist = await k1s('history', 'configmap/settings', '--data-dir', a);
  assert.equal(hist.code, 0, hist.out);
  assert.match(hist.stdout, /^=== revision \d+ ADDED by kubectl-create \(Update\)\n[\s\S]*^=== revision \d+ MODIFIED by kubectl-patch \(Update\)\n[\s\S]*^\+ {3}size: xl$/m);
  const secretHist = await k1s('history', 'secret/db', '--data-dir', a, '-o', 'json');
  assert.equal(secretHist.code, 0, secretHist.out);
  assert.equal((JSON.parse(secretHist.stdout) as { object: { data: { password: string } } }[])[0]!.object.data.password, Buffer.from('hunter2').toString('base64'));
  // secrets-encrypt counts and rewrites the Secrets in etcd: rotate, reencrypt, prune
  const status = await k1s('secrets-encrypt', 'status', '--data-dir', a);
  assert.equal(status.code, 0, status.out);
  // the Secret "db" and the server's join token
  assert.match(status.stdout, /^ \* +AES-CBC +\S+ +2$/m);
  assert.match(status.stdout, /^ +identity +\(not encrypted\) +0$/m);
  assert.equal((await k1s('secrets-encrypt', 'rotate', '--data-dir', a)).code, 0);
  const re = await k1s('secrets-encrypt', 'reencrypt', '--data-dir', a);
  assert.equal(re.code, 0, re.out);
  assert.match(re.stdout, /^2 Secrets stored under \S+$/m);
  const pruned = await k1s('secrets-encrypt', 'prune', '--data-dir', a);
  assert.equal(pruned.code, 0, pruned.out);
  assert.match(pruned.stdout, /^dropped \S+; active key: \S+$/m);
  const oldRv = (await k.ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.metadata.resourceVersion}'])).trim();
  assert.match(await etcd.etcdctl('get', '--print-value-only', '/snap-a/secrets/default/db'), /^k8s:enc:aescbc:v1:/);
  await stopAll();

  // save from etcd: the data dir's db/etcd.json names the endpoints and TLS files
  const snap = join(tmp, 'a.tar');
  const saved = await k1s('snapshot', 'save', snap, '--data-dir', a);
  assert.equal(saved.code, 0, saved.out);
  assert.match(saved.stdout, /^snapshot of cluster "a" saved to .*: \d+ objects at revision \d+ \(from etcd\)/m);

  // restore into the same prefix: refused while it holds keys, replaced with --force
  const b = join(tmp, 'b');
  const refused = await k1s('snapshot', 'restore', snap, '--data-dir', b, ...onEtcd('/snap-a'));
  assert.equal(refused.code, 1, refused.out);
  assert.match(refused.stderr, /^k1s snapshot: etcd https:\/\/127\.0\.0\.1:\d+ holds \d+ keys under \/snap-a\/: pick an empty --etcd-prefix, or pass --force to replace them$/m);
  assert.equal(existsSync(b), false, 'a refused restore leaves no data dir');
  const restored = await k1s('snapshot', 'restore', snap, '--data-dir', b, ...onEtcd('/snap-a'), '--force');
  assert.equal(restored.code, 0, restored.out);
  assert.match(restored.stdout, /restored from .* into etcd https:\/\/127\.0\.0\.1:\d+ under \/snap-a \(snapshot of "a", \d+ objects, \d+ node\/lease objects dropped/);
  assert.match(restored.stdout, /^start it with: k1s server --data-dir .*\/b --datastore-endpoint https:\/\/\S+ --etcd-prefix \/snap-a --datastore-cafile /m);
  const kb = await start(b, onEtcd('/snap-a'));
  await assertObjects(kb);
  // new revisions: the old cluster's resourceVersion is compacted away, so a watch from it is told to relist
  const watch = await kb.run(['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${oldRv}&timeoutSeconds=2`]);
  assert.match(watch.stdout, /"type":"ERROR".*"message":"too old resource version: \d+ \(\d+\)","reason":"Expired","code":410/);
  await stopAll();

  // the etcd snapshot restores into SQLite as well
  const c = join(tmp, 'c');
  const intoSqlite = await k1s('snapshot', 'restore', snap, '--data-dir', c);
  assert.equal(intoSqlite.code, 0, intoSqlite.out);
  const kc = await start(c);
  await assertObjects(kc);
  await kc.ok(['create', 'configmap', 'made-on-sqlite']);
  // a server holds the SQLite file: migrating it now is refused
  const busy = await k1s('datastore', 'migrate', '--from', `sqlite:${c}`, '--to', `etcd:${etcd.endpoints[0]}`, '--etcd-prefix', '/mig', ...tlsFlags());
  assert.equal(busy.code, 1, busy.out);
  assert.match(busy.stderr, /^k1s datastore: a server is running on .*\/c \(.*state\.db is in use\): stop it first$/m);
  await stopAll();

  // SQLite → etcd, and a server on the same data dir serves it from etcd
  const toEtcd = await k1s('datastore', 'migrate', '--from', `sqlite:${c}`, '--to', `etcd:${etcd.endpoints[0]}`, '--etcd-prefix', '/mig', ...tlsFlags());
  assert.equal(toEtcd.code, 0, toEtcd.out);
  assert.match(toEtcd.stdout, /^copied \d+ objects from SQLite in .*\/c to etcd https:\/\/\S+ under \/mig \(source revision \d+; \d+ ms\)$/m);
  assert.match(toEtcd.stdout, /^next: start the server with --datastore-endpoint https:\/\/\S+ --etcd-prefix \/mig --datastore-cafile /m);
  const again = await k1s('datastore', 'migrate', '--from', `sqlite:${c}`, '--to', `etcd:${etcd.endpoints[0]}`, '--etcd-prefix', '/mig', ...tlsFlags());
  assert.equal(again.code, 1, 'the data dir names the etcd now: its SQLite file is not the state');
  assert.match(again.stderr, /the state of .*\/c is in etcd/);
  const kd = await start(c, onEtcd('/mig'));
  await assertObjects(kd, ['made-on-sqlite']);
  assert.match(await etcd.etcdctl('get', '--print-value-only', '/mig/secrets/default/db'), /^k8s:enc:aescbc:v1:/);
  await kd.ok(['create', 'configmap', 'made-on-etcd']);
  await stopAll();

  // etcd → SQLite into the same data dir (its old SQLite file is replaced only with --force)
  const back = ['datastore', 'migrate', '--from', `etcd:${etcd.endpoints[0]}`, '--etcd-prefix', '/mig', ...tlsFlags(), '--to', `sqlite:${c}`];
  const noForce = await k1s(...back);
  assert.equal(noForce.code, 1, noForce.out);
  assert.match(noForce.stderr, /state\.db holds \d+ keys: pass --force to replace them/);
  const toSqlite = await k1s(...back, '--force');
  assert.equal(toSqlite.code, 0, toSqlite.out);
  assert.match(toSqlite.stdout, /^next: start the server without --datastore-endpoint: k1s server --data-dir .*\/c$/m);
  const ke = await start(c);
  await assertObjects(ke, ['made-on-sqlite', 'made-on-etcd']);
  await stopAll();

  // restored into etcd as a named cluster: its stored flags name the etcd, so a plain `k1s start NAME` runs on it
  const home = join(tmp, 'home');
  const env = { HOME: home, K1S_HOME: join(home, '.k1s'), KUBECONFIG: join(home, '.kube', 'config') };
  const named = (...args: string[]) => run(process.execPath, [k1sBin, ...args], { env, timeoutMs: 90_000 });
  const r = await named('snapshot', 'restore', snap, '--name', 'on-etcd', ...onEtcd('/named'));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^start it with: k1s start on-etcd$/m);
  const state = join(home, '.k1s', 'on-etcd', 'k1s-cluster.json');
  try {
    const started = await named('start', 'on-etcd', '--no-kubelet', '--no-switch-context');
    assert.equal(started.code, 0, started.stdout + started.stderr);
    const serverArgs = (JSON.parse(readFileSync(state, 'utf8')) as { serverArgs: string[] }).serverArgs;
    assert.deepEqual(serverArgs.slice(serverArgs.indexOf('--datastore-endpoint'), serverArgs.indexOf('--datastore-endpoint') + 4), ['--datastore-endpoint', etcd.endpoints.join(','), '--etcd-prefix', '/named']);
    const cm = await run(kubectlPath('1.33'), ['--kubeconfig', join(home, '.k1s', 'on-etcd', 'kubeconfig.yaml'), 'get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}']);
    assert.equal(cm.stdout.trim(), 'green', cm.stderr);
    assert.match(await etcd.etcdctl('get', '--keys-only', '/named/configmaps/default/settings'), /\/named\/configmaps\/default\/settings/);
  } finally {
    const stopped = await named('stop', 'on-etcd');
    assert.equal(stopped.code, 0, stopped.stdout + stopped.stderr);
  }

  // k1s start --from-snapshot with the etcd flags restores into that etcd, where its server looks
  try {
    const forked = await named('start', 'fork', '--from-snapshot', snap, '--no-kubelet', '--no-switch-context', ...onEtcd('/forked'));
    assert.equal(forked.code, 0, forked.stdout + forked.stderr);
    const cm = await run(kubectlPath('1.33'), ['--kubeconfig', join(home, '.k1s', 'fork', 'kubeconfig.yaml'), 'get', 'configmap', 'second', '-o', 'jsonpath={.data.n}']);
    assert.equal(cm.stdout.trim(), '2', cm.stderr);
    assert.match(await etcd.etcdctl('get', '--keys-only', '/forked/configmaps/default/second'), /\/forked\/configmaps\/default\/second/);
  } finally {
    const stopped = await named('stop', 'fork');
    assert.equal(stopped.code, 0, stopped.stdout + stopped.stderr);
  }
  // k1s delete removes the data dir but not the etcd it does not own, and says how to clear the prefix
  const deleted = await named('delete', 'fork');
  assert.equal(deleted.code, 0, deleted.stdout + deleted.stderr);
  assert.match(deleted.stdout, /^its objects stay in etcd under \/forked\/; to remove them: ETCDCTL_API=3 etcdctl --endpoints=https:\/\/127\.0\.0\.1:\d+ del --prefix \/forked\/$/m);
  assert.match(await etcd.etcdctl('get', '--keys-only', '/forked/configmaps/default/second'), /\/forked\/configmaps\/default\/second/);
});

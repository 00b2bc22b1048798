// Projected volumes (the kube-api-access token volume) and env resolution against a real in-process k1s: the
// contexts are backed by the client as the lead wires them, tokens come from the TokenRequest API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { resolveContainerEnv } from '../../../../src/kubelet/pods/container-env.js';
import { clientSourceContext } from '../../../../src/kubelet/volumes/sources.js';
import { mountsUnder, PodVolumes } from '../../../../src/kubelet/volumes/pod-volumes.js';
import { createSigningKeyPair } from '../../../../src/pki/certs.js';
import { ServiceAccountTokens } from '../../../../src/pki/service-account-tokens.js';
import { controllerCluster } from '../../controllers/harness.js';

test('projected kube-api-access volume: a bound token, configMap and namespace; tokens are cached until 80% of their TTL', async (t) => {
  const { privateKeyPem, publicKeyPem } = createSigningKeyPair();
  const c = await controllerCluster([], { api: { tokens: await ServiceAccountTokens.load(privateKeyPem, publicKeyPem) } });
  t.after(() => c.close());
  const podsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'k1s-proj-'));
  t.after(() => fs.rm(podsDir, { recursive: true, force: true }));

  await c.client.resource('v1', 'configmaps').create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ca', namespace: 'default' }, data: { 'ca.crt': 'PEM' } } as KObject);
  const created = (await c.client.resource('v1', 'pods').create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'tok', namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }] }] },
  } as KObject)) as Pod;
  const uid = created.metadata!.uid!;
  // admission added the default token volume; give it our CA map and an audience-bound token too
  const pod = structuredClone(created);
  const access = pod.spec!.volumes!.find((v) => v.name!.startsWith('kube-api-access-'))!;
  const sources = (access.projected as { sources: Record<string, unknown>[] }).sources;
  const caSource = sources.find((s) => s.configMap) as { configMap: { name: string } };
  caSource.configMap.name = 'ca';
  sources.push({ serviceAccountToken: { path: 'vault-token', audience: 'vault', expirationSeconds: 7200 } });

  let now = Date.now();
  const ctx = { ...clientSourceContext(c.client, { nodeAllocatable: { cpu: '2', memory: '2Gi' }, hostIPs: ['10.0.0.2'] }), podsDir, now: () => now };
  let tokenRequests = 0;
  const requestToken = ctx.requestToken;
  ctx.requestToken = (...a) => {
    tokenRequests++;
    return requestToken(...a);
  };
  const vols = new PodVolumes(ctx);
  t.after(() => vols.tearDown(uid).catch(() => undefined));

  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  const dir = r.mounts.get(access.name!)!.hostPath;
  assert.equal(dir, path.join(podsDir, uid, 'volumes/kubernetes.io~projected', access.name!));
  assert.deepEqual(await mountsUnder(dir), [dir], 'projected volumes live on tmpfs');
  assert.deepEqual((await fs.readdir(dir)).filter((n) => !n.startsWith('..')).sort(), ['ca.crt', 'namespace', 'token', 'vault-token']);
  assert.equal(await fs.readFile(path.join(dir, 'namespace'), 'utf8'), 'default');
  assert.equal(await fs.readFile(path.join(dir, 'ca.crt'), 'utf8'), 'PEM');
  const token = await fs.readFile(path.join(dir, 'token'), 'utf8');
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  assert.equal((claims['kubernetes.io'] as { pod: { uid: string } }).pod.uid, uid);
  const vault = JSON.parse(Buffer.from((await fs.readFile(path.join(dir, 'vault-token'), 'utf8')).split('.')[1], 'base64url').toString()) as { aud: string[]; exp: number; iat: number };
  assert.deepEqual(vault.aud, ['vault']);
  assert.equal(vault.exp - vault.iat, 7200);
  assert.equal((await fs.stat(path.join(dir, 'token'))).mode & 0o777, 0o644);
  assert.equal(tokenRequests, 2);

  // within the TTL nothing is requested and nothing rewritten
  assert.deepEqual(await vols.refresh(pod), { updated: [], failures: [] });
  assert.equal(tokenRequests, 2);
  // past 80% of the 3607 s default token and of the 7200 s one: both renewed, the files swapped
  now += 6000 * 1000;
  const upd = await vols.refresh(pod);
  assert.deepEqual(upd.updated, [access.name]);
  assert.equal(tokenRequests, 4);
  assert.notEqual(await fs.readFile(path.join(dir, 'token'), 'utf8'), token);

  // env backed by the same client: the kubernetes service variables and a fieldRef
  const env = await resolveContainerEnv(ctx, pod, pod.spec!.containers![0]);
  assert.ok('env' in env, JSON.stringify(env));
  const m = Object.fromEntries(env.env.map((e) => [e.name, e.value]));
  assert.equal(m.NS, 'default');
  assert.match(m.KUBERNETES_SERVICE_HOST, /^10\.43\.0\.1$/);
  assert.equal(m.KUBERNETES_SERVICE_PORT, '443');

  await vols.tearDown(uid);
  assert.deepEqual(await mountsUnder(podsDir), []);
});

// Persistent storage on a real node: `k1s server` with its agent (own containerd, temp data dir), busybox loaded with
// `k1s image load`, kubectl 1.33. The default local-path class binds on first consumer, PVs live under the data dir,
// data outlives pods (and StatefulSet pod re-creation), Delete removes and Retain keeps it, a claim in use waits for
// its pod, expansion reaches the claim's status. Every pod is deleted and torn down by the kubelet before k1s stops.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
// its own pod network, so other real-node tests on this machine are left alone
const BRIDGE = 'k1sstor0';
const NETWORK_ARGS = ['--cluster-cidr', '10.46.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.146.0.0/16'];
const LABEL = { suite: 'storage' };
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;
const started = Date.now();


const apply = (obj: unknown) => k.ok(['apply', '-f', '-'], { input: JSON.stringify(obj) });
const claim = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, labels: LABEL },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra },
});
const volumePod = (name: string, claimName: string, command: string, opts: { readOnly?: boolean } = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: LABEL },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName, ...(opts.readOnly ? { readOnly: true } : {}) } }],
  },
});
async function getJson(...args: string[]): Promise<any> {
  return JSON.parse(await k.ok(['get', ...args, '-o', 'json']));
}
async function exists(...args: string[]): Promise<boolean> {
  const r = await k.run(['get', ...args, '-o', 'name']);
  return r.code === 0;
}
async function deletePodAndWait(name: string): Promise<void> {
  await k.ok(['delete', 'pod', name, '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
}

before(async () => {
  ({ server, dataDir } = await startRealNode('storage', NETWORK_ARGS));
  k = kubectl(server, '1.33');
});

after(() => stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['statefulsets,pods', '-l', 'suite=storage'], ['pvc', '-l', 'suite=storage'], ['pv,storageclass', '-l', 'suite=storage']], label: 'storage', started }));

let pvName = '';
let pvDir = '';

test('a claim of the default class waits for its first consumer, then binds to a new PV on the node; the pod writes into it', async () => {
  await apply(claim('data'));
  const pending = await getJson('pvc', 'data');
  assert.equal(pending.spec.storageClassName, 'local-path', 'the default class is set at admission');
  await until(async () => (await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=data,reason=WaitForFirstConsumer', '-o', 'name'])).trim() !== '', 'the WaitForFirstConsumer event');
  assert.equal((await getJson('pvc', 'data')).status.phase, 'Pending');

  await apply(volumePod('writer', 'data', 'echo persisted > /data/file; sleep 3600'));
  await k.ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/writer', '--timeout=60s'], { timeoutMs: 70_000 });
  const bound = await getJson('pvc', 'data');
  assert.equal(bound.status.phase, 'Bound');
  pvName = bound.spec.volumeName;
  const pv = await getJson('pv', pvName);
  const node = (await getJson('pod', 'writer')).spec.nodeName;
  assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, [node]);
  assert.equal(pv.spec.claimRef.name, 'data');
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
  pvDir = pv.spec.hostPath.path;
  assert.ok(pvDir.startsWith(join(dataDir, 'storage') + '/') || pvDir.startsWith(dataDir + '/'), `${pvDir} under the data dir`);
  assert.match(pvDir, new RegExp(`${pvName}_default_data$`));
  await until(async () => existsSync(join(pvDir, 'file')) && readFileSync(join(pvDir, 'file'), 'utf8') === 'persisted\n', 'the file on the node');

  // kubectl get pv,pvc columns as a real cluster prints them
  const table = await k.ok(['get', 'pv,pvc']);
  assert.match(table, /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/m);
  assert.match(table, new RegExp(`^persistentvolume/${pvName}\\s+1Gi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+local-path\\s+<unset>\\s+\\S+$`, 'm'));
  assert.match(table, /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/m);
  assert.match(table, new RegExp(`^persistentvolumeclaim/data\\s+Bound\\s+${pvName}\\s+1Gi\\s+RWO\\s+local-path\\s+<unset>\\s+\\S+$`, 'm'));
});

test('the data outlives the pod: a new pod mounting the claim (read-only) reads it; expansion updates capacity', async () => {
  await deletePodAndWait('writer');
  assert.equal(readFileSync(join(pvDir, 'file'), 'utf8'), 'persisted\n');
  await apply(volumePod('reader', 'data', 'sleep 3600', { readOnly: true }));
  await k.ok(['wait', '--for=condition=Ready', 'pod/reader', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.equal(await k.ok(['exec', 'reader', '--', 'cat', '/data/file']), 'persisted\n');
  const write = await k.run(['exec', 'reader', '--', 'sh', '-c', 'echo x > /data/other']);
  assert.notEqual(write.code, 0, 'a readOnly claim is mounted read-only');
  assert.match(write.stderr, /Read-only file system/);

  await k.ok(['patch', 'pvc', 'data', '--type=merge', '-p', JSON.stringify({ spec: { resources: { requests: { storage: '2Gi' } } } })]);
  await until(async () => (await getJson('pvc', 'data')).status.capacity?.storage === '2Gi', 'the claim capacity to grow to 2Gi', 30_000);
  assert.equal((await getJson('pv', pvName)).spec.capacity.storage, '2Gi');
});

test('a claim in use stays Terminating until its pod is gone; then the PV and its directory are removed', async () => {
  await k.ok(['delete', 'pvc', 'data', '--wait=false']);
  await new Promise((r) => setTimeout(r, 1500));
  const terminating = await getJson('pvc', 'data');
  assert.ok(terminating.metadata.deletionTimestamp, 'deletion started');
  assert.deepEqual(terminating.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  assert.match(await k.ok(['get', 'pvc', 'data', '--no-headers']), /^data\s+Terminating\s/);
  assert.equal(readFileSync(join(pvDir, 'file'), 'utf8'), 'persisted\n');

  await deletePodAndWait('reader');
  await until(async () => !(await exists('pvc', 'data')), 'the claim to go once its pod is gone', 30_000);
  await until(async () => !(await exists('pv', pvName)), 'the Delete PV to go', 30_000);
  assert.equal(existsSync(pvDir), false, 'the directory is removed');
});

test('a Retain PV becomes Released after its claim is deleted and keeps its data', async () => {
  await apply({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'keep', labels: LABEL },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  await apply(claim('kept', { storageClassName: 'keep' }));
  await apply(volumePod('keeper', 'kept', 'echo retained > /data/file; sleep 3600'));
  await k.ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/keeper', '--timeout=60s'], { timeoutMs: 70_000 });
  const name = (await getJson('pvc', 'kept')).spec.volumeName;
  const dir = (await getJson('pv', name)).spec.hostPath.path;
  await until(async () => existsSync(join(dir, 'file')), 'the file on the node');
  await deletePodAndWait('keeper');
  await k.ok(['delete', 'pvc', 'kept', '--wait=true', '--timeout=30s'], { timeoutMs: 40_000 });
  await until(async () => (await getJson('pv', name)).status.phase === 'Released', 'the PV to be Released', 30_000);
  assert.match(await k.ok(['get', 'pv', name, '--no-headers']), new RegExp(`^${name}\\s+1Gi\\s+RWO\\s+Retain\\s+Released\\s+default/kept\\s+keep\\s`));
  assert.equal(readFileSync(join(dir, 'file'), 'utf8'), 'retained\n');
  // the admin's to clean up: label it so the suite's cleanup removes the object (the data dir goes with dataDir)
  await k.ok(['label', 'pv', name, 'suite=storage']);
});

test('a StatefulSet pod keeps its data across re-creation (kubectl delete pod db-0)', async () => {
  await apply({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', labels: LABEL },
    spec: {
      serviceName: 'db',
      replicas: 1,
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db', ...LABEL } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{
            name: 'db', image: BUSYBOX, imagePullPolicy: 'IfNotPresent',
            command: ['sh', '-c', '[ -f /var/lib/db/id ] || cat /proc/sys/kernel/random/uuid > /var/lib/db/id; sleep 3600'],
            volumeMounts: [{ name: 'www', mountPath: '/var/lib/db' }],
          }],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: 'www', labels: LABEL }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  });
  await until(async () => (await k.run(['get', 'pod', 'db-0'])).code === 0, 'db-0 to exist');
  await k.ok(['wait', '--for=condition=Ready', 'pod/db-0', '--timeout=60s'], { timeoutMs: 70_000 });
  const first = await getJson('pod', 'db-0');
  const id = await until(async () => (await k.run(['exec', 'db-0', '--', 'cat', '/var/lib/db/id'])).stdout.trim() || undefined, 'the id file');
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal((await getJson('pvc', 'www-db-0')).status.phase, 'Bound');

  await k.ok(['delete', 'pod', 'db-0', '--wait=true', '--timeout=60s'], { timeoutMs: 70_000 });
  await until(async () => {
    const r = await k.run(['get', 'pod', 'db-0', '-o', 'jsonpath={.metadata.uid}']);
    return r.code === 0 && r.stdout && r.stdout !== first.metadata.uid;
  }, 'a new db-0');
  await k.ok(['wait', '--for=condition=Ready', 'pod/db-0', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.equal((await k.ok(['exec', 'db-0', '--', 'cat', '/var/lib/db/id'])).trim(), id, 'the new db-0 reads what the old one wrote');
});

test('a generic ephemeral volume gets its claim <pod>-<volume>, bound on the node, and goes with the pod', async () => {
  await apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'scratchy', labels: LABEL },
    spec: {
      terminationGracePeriodSeconds: 1,
      securityContext: { runAsUser: 1000, fsGroup: 2000 },
      containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'echo eph > /scratch/f; sleep 3600'], volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }],
      volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: LABEL }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }],
    },
  });
  await k.ok(['wait', '--for=condition=Ready', 'pod/scratchy', '--timeout=60s'], { timeoutMs: 70_000 }).catch(async (e) => {
    // what the controllers and the kubelet said about it
    console.log((await k.run(['get', 'events', '-o', 'wide'])).stdout, server!.log().split('\n').filter((l) => /ephemeral|scratch/.test(l)).join('\n'));
    throw e;
  });
  const claimObj = await getJson('pvc', 'scratchy-scratch');
  assert.equal(claimObj.status.phase, 'Bound');
  assert.equal(claimObj.metadata.ownerReferences[0].name, 'scratchy');
  assert.equal(await k.ok(['exec', 'scratchy', '--', 'cat', '/scratch/f']), 'eph\n', 'a non-root user writes into the local-path directory');
  const name = claimObj.spec.volumeName;
  await deletePodAndWait('scratchy');
  await until(async () => !(await exists('pvc', 'scratchy-scratch')) && !(await exists('pv', name)), 'the claim and its PV to go with the pod', 30_000);
});

test('a block-mode claim is refused by the kubelet with a Warning event naming the volume mode', async () => {
  const node = (await getJson('nodes')).items[0].metadata.name;
  const dir = join(dataDir, 'block-vol');
  mkdirSync(dir, { recursive: true });
  await apply({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'blk-pv', labels: LABEL },
    spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], volumeMode: 'Block', storageClassName: '',
      persistentVolumeReclaimPolicy: 'Retain', local: { path: dir },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
    },
  });
  await apply(claim('blk', { volumeMode: 'Block', storageClassName: '', volumeName: 'blk-pv' }));
  await until(async () => (await getJson('pvc', 'blk')).status.phase === 'Bound', 'the block claim to bind', 30_000);
  await apply(volumePod('blocky', 'blk', 'sleep 3600'));
  const ev = await until(async () => {
    const list = await getJson('events', '--field-selector', 'involvedObject.name=blocky,type=Warning');
    return list.items.find((e: { message: string }) => e.message.includes('has volumeMode Block, but is specified in volumeMounts'));
  }, 'the Warning event', 30_000);
  assert.match(ev.message, /error processing PVC default\/blk: volume data has volumeMode Block, but is specified in volumeMounts/);
  assert.notEqual((await getJson('pod', 'blocky')).status.phase, 'Running');
});

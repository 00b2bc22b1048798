// The cluster's registry with a real node, offline: an image loaded as docker.io/library/busybox:latest runs in a
// pod with `image: busybox` and imagePullPolicy Always (Docker Hub does not answer k1s' probe here, so containerd
// asks the local registry only; test/unit/registry covers the upstream-first fallback), with the kubelet's
// Pulling/Pulled events and a digest in imageID; an image pushed with ctr runs too; the KEP-1755 ConfigMap names the
// registry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { writeOciImageTar } from '../../src/runtime/oci-layout.js';
import { containerdPaths } from '../../src/runtime/containerd-config.js';
import { tinyImageFiles } from '../unit/runtime/fixtures.js';
import { k1sBin, kubectl, run, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BRIDGE = 'k1sreg0';
const ARGS = ['--cluster-cidr', '10.54.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.154.0.0/16', '--disable-ingress', '--disable-servicelb'];
let server: K1sServer | undefined;
let dataDir: string | undefined;
let k: ReturnType<typeof kubectl>;
let host = '';
const started = Date.now();

before(async () => {
  const node = await startRealNode('registry', ARGS);
  server = node.server;
  dataDir = node.dataDir;
  k = kubectl(server, '1.33');
});

after(() => stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['pods', '-l', 'suite=registry']], label: 'registry', started }));

const pod = (name: string, image: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { suite: 'registry' } },
  spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image, imagePullPolicy: 'Always', command: ['sleep', '3600'] }] },
});

async function running(name: string): Promise<{ imageID: string; image: string }> {
  return until(async () => {
    const p = JSON.parse(await k.ok(['get', 'pod', name, '-o', 'json'])) as { status: { phase?: string; containerStatuses?: { imageID: string; image: string }[] } };
    return p.status.phase === 'Running' ? p.status.containerStatuses![0]! : undefined;
  }, `pod ${name} to run`, 60_000);
}

test('the registry is advertised in kube-public/local-registry-hosting', async () => {
  const cm = JSON.parse(await k.ok(['get', 'configmap', '-n', 'kube-public', 'local-registry-hosting', '-o', 'json'])) as { data: Record<string, string> };
  const m = /host: "(localhost:\d+)"/.exec(cm.data['localRegistryHosting.v1']!);
  assert.ok(m, cm.data['localRegistryHosting.v1']);
  host = m[1]!;
  const ping = await fetch(`http://${host.replace('localhost', '127.0.0.1')}/v2/`);
  assert.equal(ping.status, 200);
});

test('offline: a loaded docker.io/library/busybox:latest runs as image busybox with pull policy Always', async () => {
  const tar = join(dataDir!, 'busybox-latest.tar');
  await writeOciImageTar({ out: tar, name: 'docker.io/library/busybox:latest', files: tinyImageFiles(dataDir!), config: { cmd: ['sh'] } });
  const load = await run(process.execPath, [k1sBin, 'image', 'load', '--data-dir', dataDir!, tar]);
  assert.equal(load.code, 0, load.stderr);
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('latest', 'busybox')) });
  const status = await running('latest');
  assert.match(status.imageID, /^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/);
  const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=latest', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
  assert.match(events, /Pulling: Pulling image "busybox"/);
  assert.match(events, /Pulled: Successfully pulled image "busybox" in [\d.]+m?s \([\d.]+m?s including waiting\)\. Image size: \d+ bytes\./);
  const hosts = readFileSync(join(containerdPaths(dataDir!).dir, 'certs.d', 'docker.io', 'hosts.toml'), 'utf8');
  assert.match(hosts, /^server = "http:\/\/127\.0\.0\.1:\d+"$/m);
});

test('an image pushed with ctr runs from localhost:<port>', async () => {
  const paths = containerdPaths(dataDir!);
  const ctr = (ns: string, ...args: string[]) => run('ctr', ['--address', paths.address, '--namespace', ns, ...args]);
  // another containerd namespace stands for a developer's machine: its blobs are not in k8s.io, so the push uploads
  const tar = join(dataDir!, 'app.tar');
  const files = [...tinyImageFiles(dataDir!), { path: '/app.txt', mode: 0o644, content: Buffer.from('app v1\n') }];
  await writeOciImageTar({ out: tar, name: 'example.com/team/app:1', files, config: { cmd: ['sh'] } });
  const imp = await ctr('dev', 'images', 'import', tar);
  assert.equal(imp.code, 0, imp.stderr);
  const push = await ctr('dev', 'images', 'push', '--plain-http', `${host}/team/app:1`, 'example.com/team/app:1');
  assert.equal(push.code, 0, push.stderr);
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('pushed', `${host}/team/app:1`)) });
  const status = await running('pushed');
  assert.match(status.imageID, new RegExp(`^${host}/team/app@sha256:[0-9a-f]{64}$`));
  // the layer with /app.txt was only in the dev namespace: the pod shows that the push uploaded it
  const cat = await k.ok(['exec', 'pushed', '--', 'cat', '/app.txt']);
  assert.equal(cat.trim(), 'app v1');
  const ls = await run(process.execPath, [k1sBin, 'image', 'ls', '--data-dir', dataDir!]);
  assert.match(ls.stdout, new RegExp(`${host}/team/app\\s+1\\s`));
  assert.match(ls.stdout, /docker\.io\/library\/busybox\s+latest\s/);
  await ctr('dev', 'images', 'rm', 'example.com/team/app:1', `${host}/team/app:1`);
});

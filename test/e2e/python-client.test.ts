// The official Python client (Debian's python3-kubernetes) against a real node: test/python/ is a pytest suite of
// what that client's users do (CRUD, Status errors, pagination, watches with watch=True, logs, exec with stdin and
// exit codes, port-forward over WebSockets), run with the cluster's admin kubeconfig. Pods use `image: busybox`
// with no tag (pull policy Always), served offline by the cluster's registry mirror from the loaded image.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, run, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BRIDGE = 'k1spy0';
const ARGS = ['--cluster-cidr', '10.53.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.153.0.0/16', '--disable-ingress', '--disable-servicelb'];
const PYTHON = '/usr/bin/python3';
let server: K1sServer | undefined;
let dataDir: string | undefined;
const started = Date.now();

before(async () => {
  ({ server, dataDir } = await startRealNode('python', ARGS));
  // the loaded test image under the name manifests use most: docker.io/library/busybox:latest
  const socket = join(dataDir, 'agent', 'containerd', 'containerd.sock');
  const tag = await run('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'tag', '--force', 'k1s.local/busybox:1.35', 'docker.io/library/busybox:latest']);
  assert.equal(tag.code, 0, tag.stderr);
});

after(async () => {
  await stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['namespaces', '-l', 'suite=python']], label: 'python client', started });
});

test('the Python client suite (test/python) passes against k1s', { timeout: 300_000 }, async () => {
  assert.ok(existsSync(`${PYTHON}`), 'python3 is missing: apt-get install python3-kubernetes python3-pytest');
  const r = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(repoRoot, 'test', 'python')], {
    env: { ...process.env, KUBECONFIG: server!.kubeconfig, K1S_TEST_IMAGE: 'busybox', PYTHONDONTWRITEBYTECODE: '1' },
    timeoutMs: 280_000,
  });
  assert.equal(r.code, 0, `pytest failed:\n${r.stdout}\n${r.stderr}`);
  // every test ran: none skipped or deselected
  assert.match(r.stdout, /^\d+ passed in /m, r.stdout);
  assert.doesNotMatch(r.stdout, /skipped|deselected|xfail/, r.stdout);
});

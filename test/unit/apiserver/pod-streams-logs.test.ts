// pods/log through the API server and the kubelet's /containerLogs, driven by real kubectl 1.33 and 1.27.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { run, kubectlPath } from '../../e2e/harness.js';
import { boundPod, running, streamsCluster, type StreamsCluster } from './pod-streams-harness.js';

let c: StreamsCluster;
const files = new Map<string, string>();
const live = new Set<string>();

before(async () => {
  c = await streamsCluster({
    containerLogPath: async (id) => files.get(id),
    isContainerRunning: async (id) => live.has(id),
  });
  const log = (id: string, text: string) => {
    const p = join(c.dir, `${id}.log`);
    writeFileSync(p, text);
    files.set(`containerd://${id}`, p);
    return p;
  };
  log('aaa', '2024-01-01T00:00:01.000000001Z stdout F hello\n2024-01-01T00:00:02Z stderr F oops\n2024-01-01T00:00:03Z stdout F bye\n');
  log('bbb', '2024-01-01T00:00:01Z stdout F from b\n');
  log('old', '2024-01-01T00:00:00Z stdout F previous run\n');
  await c.createPod(boundPod('one'), { phase: 'Running', containerStatuses: [running('app', 'aaa')] });
  await c.createPod(boundPod('two', ['a', 'b']), {
    phase: 'Running',
    containerStatuses: [running('a', 'aaa'), running('b', 'bbb', { restartCount: 1, lastState: { terminated: { exitCode: 1, reason: 'Error', containerID: 'containerd://old', startedAt: '2024-01-01T00:00:00Z', finishedAt: '2024-01-01T00:00:00Z' } } })],
  });
  await c.createPod(boundPod('waiting'), { phase: 'Pending', containerStatuses: [{ name: 'app', image: 'busybox:1', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] });
  await c.createPod({ ...boundPod('unscheduled'), spec: { containers: [{ name: 'app', image: 'busybox:1' }] } });
});
after(() => c?.close());

const kubectl = (v: string, args: string[], timeoutMs = 15_000) => run(kubectlPath(v), args, { env: { KUBECONFIG: c.kubeconfig, HOME: c.dir }, timeoutMs });

for (const v of ['1.33', '1.27']) {
  test(`kubectl ${v} logs: whole log, --tail, --timestamps, -c, --previous, --limit-bytes, --since-time`, async () => {
    assert.deepEqual(await kubectl(v, ['logs', 'one']), { code: 0, stdout: 'hello\noops\nbye\n', stderr: '' });
    assert.equal((await kubectl(v, ['logs', 'one', '--tail=1'])).stdout, 'bye\n');
    assert.equal((await kubectl(v, ['logs', 'one', '--tail=2', '--timestamps'])).stdout, '2024-01-01T00:00:02.000000000Z oops\n2024-01-01T00:00:03.000000000Z bye\n');
    assert.equal((await kubectl(v, ['logs', 'one', '--limit-bytes=8'])).stdout, 'hello\noo');
    assert.equal((await kubectl(v, ['logs', 'one', '--since-time=2024-01-01T00:00:02Z'])).stdout, 'oops\nbye\n');
    assert.equal((await kubectl(v, ['logs', 'two', '-c', 'b'])).stdout, 'from b\n');
    assert.equal((await kubectl(v, ['logs', 'two', '-c', 'b', '--previous'])).stdout, 'previous run\n');
    // kubectl itself picks the first container of a multi-container pod (and says so)
    const r = await kubectl(v, ['logs', 'two']);
    assert.equal(r.stdout, 'hello\noops\nbye\n');
  });

  test(`kubectl ${v} logs: the errors kube words`, async () => {
    const prev = await kubectl(v, ['logs', 'one', '--previous']);
    assert.equal(prev.code, 1);
    assert.equal(prev.stderr.trim(), 'Error from server (BadRequest): previous terminated container "app" in pod "one" not found');
    const missing = await kubectl(v, ['logs', 'nope']);
    // kubectl reads the pod first, so these two are partly worded by kubectl itself (and differ by version)
    assert.match(missing.stderr, /\(NotFound\): pods "nope" not found/);
    const bad = await kubectl(v, ['logs', 'two', '-c', 'zzz']);
    assert.match(bad.stderr, /container zzz is not valid for pod two/);
    const waiting = await kubectl(v, ['logs', 'waiting']);
    assert.equal(waiting.stderr.trim(), 'Error from server (BadRequest): container "app" in pod "waiting" is waiting to start: ContainerCreating');
  });
}

test('API errors: container defaulting, validation, unscheduled pods', async () => {
  const multi = await c.get('/api/v1/namespaces/default/pods/two/log');
  assert.equal(multi.code, 400);
  assert.equal(JSON.parse(multi.body).message, 'a container name must be specified for pod two, choose one of: [a b]');
  const nope = await c.get('/api/v1/namespaces/default/pods/nope/log');
  assert.equal(nope.code, 404);
  assert.equal(JSON.parse(nope.body).message, 'pods "nope" not found');
  const bad = await c.get('/api/v1/namespaces/default/pods/two/log?container=zzz');
  assert.deepEqual([bad.code, JSON.parse(bad.body).message], [400, 'container zzz is not valid for pod two']);
  const neg = await c.get('/api/v1/namespaces/default/pods/one/log?tailLines=-1');
  assert.equal(neg.code, 422);
  assert.equal(JSON.parse(neg.body).reason, 'Invalid');
  assert.match(JSON.parse(neg.body).message, /^PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/);
  const both = await c.get('/api/v1/namespaces/default/pods/one/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
  assert.match(JSON.parse(both.body).message, /at most one of `sinceTime` or `sinceSeconds` may be specified/);
  const unscheduled = await c.get('/api/v1/namespaces/default/pods/unscheduled/log');
  assert.deepEqual(unscheduled, { code: 200, body: '' });
  const ok = await c.get('/api/v1/namespaces/default/pods/two/log?container=a&tailLines=1');
  assert.deepEqual(ok, { code: 200, body: 'bye\n' });
});

test('kubectl logs -f follows new lines and ends when the container stops', async () => {
  live.add('containerd://aaa');
  const child = spawn(kubectlPath('1.33'), ['logs', '-f', 'one', '--tail=1'], { env: { ...process.env, KUBECONFIG: c.kubeconfig, HOME: c.dir } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  try {
    const waitOut = async (s: string) => {
      const end = Date.now() + 5000;
      while (!out.includes(s)) {
        if (Date.now() > end) throw new Error(`no ${JSON.stringify(s)} in ${JSON.stringify(out)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await waitOut('bye\n');
    appendFileSync(files.get('containerd://aaa')!, '2024-01-01T00:00:04Z stdout F later\n');
    await waitOut('later\n');
    live.delete('containerd://aaa');
    assert.equal(await exited, 0);
    assert.equal(out, 'bye\nlater\n');
  } finally {
    child.kill();
  }
});

test('the kubelet refuses anonymous clients with 401', async () => {
  const code = await new Promise<number>((resolve, reject) => {
    const req = request(`https://127.0.0.1:${c.kubeletPort}/containerLogs/default/one/app`, { ca: c.ca.certPem, checkServerIdentity: () => undefined, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(code, 401);
});

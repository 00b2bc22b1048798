import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { choosePort, clusterInfo, clusterPaths, contextName, invalidName, listClusters, portFree, resolveName, writeState } from '../../../src/cli/clusters.js';
import { mountsUnder } from '../../../src/cli/delete.js';
import { splitKubectlArgs } from '../../../src/cli/kubectl.js';
import { Progress } from '../../../src/cli/progress.js';
import { formatTable } from '../../../src/cli/status.js';
import { parseDuration } from '../../../src/cli/stop.js';

test('cluster names, contexts and name resolution', () => {
  assert.equal(invalidName('k1s'), undefined);
  assert.equal(invalidName('ci-1'), undefined);
  assert.match(invalidName('Dev')!, /lower-case/);
  assert.match(invalidName('-x')!, /starting and ending/);
  assert.match(invalidName('tls')!, /reserved/);
  assert.equal(contextName('k1s'), 'k1s');
  assert.equal(contextName('dev'), 'k1s-dev');
  assert.deepEqual(resolveName(undefined, undefined), { name: 'k1s' });
  assert.deepEqual(resolveName('dev', undefined), { name: 'dev' });
  assert.deepEqual(resolveName(undefined, 'dev'), { name: 'dev' });
  assert.match((resolveName('a', 'b') as { error: string }).error, /named twice/);
});

test('state files, liveness by pid and data dir, and port choice', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'k1s-clusters-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const a = clusterPaths('a', base);
  mkdirSync(a.dir, { recursive: true });
  // this test process is alive but is not a server of a's data dir: not running
  writeState(a, { name: 'a', pid: process.pid, port: 6443, startedAt: '', serverArgs: [] });
  assert.equal(clusterInfo('a', base).running, false);
  assert.deepEqual(listClusters(base).map((c) => c.paths.name), ['a']);

  // a claims 6443 (stopped clusters keep their port); an occupied port is skipped too
  const blocker = createServer();
  await new Promise<void>((res, rej) => {
    blocker.once('error', rej);
    blocker.listen({ port: 6444, host: '127.0.0.1' }, () => res());
  }).catch(() => undefined);
  t.after(() => blocker.close());
  const p = await choosePort('b', base);
  assert.notEqual(p, 6443);
  assert.equal(await portFree(6444), false);
  assert.notEqual(p, 6444);
  assert.ok(await portFree(p));
  // a cluster gets its own previous port back when free
  if (await portFree(6443)) assert.equal(await choosePort('a', base), 6443);
});

test('durations, kubectl argument splitting, mount parsing, tables', () => {
  assert.equal(parseDuration('60s'), 60_000);
  assert.equal(parseDuration('2m'), 120_000);
  assert.equal(parseDuration('90'), 90_000);
  assert.equal(parseDuration('1500ms'), 1500);
  assert.equal(parseDuration('soon'), undefined);
  assert.deepEqual(splitKubectlArgs(['get', 'pods']), { rest: ['get', 'pods'] });
  assert.deepEqual(splitKubectlArgs(['--name', 'dev', 'get', 'pods']), { name: 'dev', rest: ['get', 'pods'] });
  assert.deepEqual(splitKubectlArgs(['--name=dev', '--', 'get', '-A']), { name: 'dev', rest: ['get', '-A'] });
  assert.deepEqual(splitKubectlArgs(['dev', '--', 'apply', '-f', 'x']), { name: 'dev', rest: ['apply', '-f', 'x'] });
  const mounts = 'overlay /d/agent/x overlay rw 0 0\ntmpfs /d/agent/x/sh\\040m tmpfs rw 0 0\nproc /proc proc rw 0 0\ntmpfs /dx tmpfs rw 0 0\n';
  assert.deepEqual(mountsUnder('/d', mounts), ['/d/agent/x/sh m', '/d/agent/x']);
  assert.equal(formatTable(['NAME', 'STATUS'], [['k1s', 'Running'], ['ci-10', 'Stopped']]), 'NAME   STATUS\nk1s    Running\nci-10  Stopped');
});

test('progress: plain lines when not a terminal, in-place lines on a terminal', () => {
  const plain = new PassThrough();
  let text = '';
  plain.on('data', (c) => (text += c));
  const p = new Progress({ out: plain, tty: false });
  p.phase('Certificates');
  p.phase('Object store');
  p.done('(3 nodes)');
  p.phase('Nodes');
  p.fail('timed out');
  assert.match(text, /^Certificates \(\d+ ms\)\nObject store \(3 nodes\) \(\d+ ms\)\nfailed: Nodes: timed out\n$/);
  const tty = new PassThrough();
  let ttyText = '';
  tty.on('data', (c) => (ttyText += c));
  const q = new Progress({ out: tty, tty: true });
  q.phase('Certificates');
  q.done();
  assert.match(ttyText, /\r\x1b\[2K .+ Certificates …\r\x1b\[2K ✓ Certificates \(\d+ ms\)\n/);
});

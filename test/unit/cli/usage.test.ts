import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { COMMAND_SPECS } from '../../../src/cli/completion.js';
import { fixture, run } from './cli-fixture.js';

test('every command has --help with Examples, and the completion table matches its flags', async (t) => {
  const { k1s, env } = fixture(t);
  const top = await run(k1s, ['--help'], { env });
  assert.equal(top.code, 0);
  const commands = [...top.stdout.matchAll(/^  ([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!).filter((c) => !c.startsWith('k1s'));
  assert.deepEqual(commands.sort(), Object.keys(COMMAND_SPECS).sort());
  const check = async (c: string) => {
    const r = await run(k1s, [c, '--help'], { env });
    assert.equal(r.code, 0, `${c} --help: ${r.stderr}`);
    assert.match(r.stdout, /^Examples:$/m, `${c} --help has examples`);
    const section = r.stdout.slice(r.stdout.search(/^Flags/m));
    const documented = new Set([...section.matchAll(/^\s+(?:(-[a-z]), )?(--[a-z-]+)/gm)].flatMap((m) => (m[1] ? [m[1], m[2]!] : [m[2]!])));
    const spec = COMMAND_SPECS[c]!;
    if (c === 'kubectl' || c === 'version') return; // no Flags section: their flags are kubectl's / none
    assert.deepEqual([...spec.flags].sort(), [...documented].sort(), `${c}: completion flags = --help flags`);
  };
  // three at a time: a loaded machine starts fifteen node processes at once slowly
  const queue = [...commands];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) await check(c);
  };
  await Promise.all([worker(), worker(), worker()]);
});

test('exit codes: 0 help, 2 usage errors, 1 failures', async (t) => {
  const { k1s, env } = fixture(t);
  const code = async (...args: string[]) => (await run(k1s, args, { env })).code;
  assert.equal(await code('help', 'start'), 0);
  assert.equal(await code('bogus'), 2);
  assert.equal(await code('version', 'x'), 2);
  for (const args of [['start', '--port', 'x'], ['start', '--cluster-cidr', 'nope'], ['start', '--ingress-http-port', '99999'], ['stop', 'a', 'b'], ['stop', '--bogus'], ['delete', 'Bad_Name'], ['status', '--timeout', '1'], ['logs', '--tail', 'x'], ['snapshot', 'copy', 'f'], ['image', 'rm'], ['list', '-o', 'yaml'], ['completion'],
    ['datastore'], ['datastore', 'copy'], ['datastore', 'migrate', '--from', 'sqlite:/a'], ['datastore', 'migrate', '--from', 'sqlite:/a', '--to', 'sqlite:/b'],
    ['datastore', 'migrate', '--from', 'mysql:x', '--to', 'etcd:http://127.0.0.1:1'], ['datastore', 'migrate', '--from', 'sqlite:/a', '--to', 'etcd:ftp://x'],
    ['snapshot', 'save', 'f', '--datastore-endpoint', 'http://127.0.0.1:1'], ['snapshot', 'restore', 'f', '--name', 'x', '--force'],
    ['snapshot', 'restore', 'f', '--name', 'x', '--etcd-prefix', '/p'], ['snapshot', 'save', 'f', 'x', '--data-dir', '/d']]) {
    assert.equal(await code(...args), 2, args.join(' '));
  }
  assert.equal(await code('stop', 'missing'), 1);
  assert.equal(await code('snapshot', 'save', join(env.K1S_HOME!, 'x.tar'), '--name', 'missing'), 1);
  assert.equal(await code('kubeconfig', 'missing'), 1);
  if (process.getuid?.() === 0) {
    // a real node without containerd: the apt command, and what works without it; nothing is created
    const r = await run(k1s, ['start', 'nopods'], { env: { ...env, PATH: '/nonexistent' } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /apt-get install -y containerd/);
    assert.match(r.stderr, /k1s start --no-kubelet/);
    assert.equal((await run(k1s, ['list', '-o', 'json'], { env })).stdout.includes('nopods'), false);
  }
});

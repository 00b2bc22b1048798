// Real containerd: each test starts its own in a temp data dir and stops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Containerd, type ContainerdRestartEvent } from '../../../src/runtime/containerd.js';
import { CriClient } from '../../../src/runtime/cri-client.js';
import { tempDir } from './fixtures.js';

const SANDBOX = 'k1s.test/pause:1';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(what: string, fn: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('containerd starts from the rendered config, answers CRI Version and Status, and stops', async (t) => {
  const tmp = tempDir();
  const lines: string[] = [];
  const c = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX, log: (l) => lines.push(l) });
  t.after(async () => {
    await c.stop();
    tmp.remove();
  });
  const t0 = performance.now();
  await c.start();
  const ms = Math.round(performance.now() - t0);
  console.log(`# containerd ready ${ms} ms after start() (supervisor: ${lines[0]})`);
  assert.equal(c.state, 'running');
  assert.equal(c.endpoint, `unix://${tmp.dir}/agent/containerd/containerd.sock`);
  assert.ok(ms < 5000, `ready in ${ms} ms`);
  const pid = c.pid!;
  assert.ok(alive(pid));
  assert.equal(readFileSync(path.join(c.paths.dir, 'containerd.pid'), 'utf8').trim(), String(pid));
  // its own process group: a terminal's Ctrl-C to k1s' group does not reach it
  const pgid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
  assert.equal(pgid, pid);

  const cri = new CriClient(c.endpoint);
  t.after(() => cri.close());
  const v = await cri.version();
  assert.equal(v.runtime_name, 'containerd');
  assert.equal(v.runtime_api_version, 'v1');
  assert.match(v.runtime_version, /^1\.\d+/);
  const st = await cri.status();
  const cond = Object.fromEntries(st.status!.conditions.map((x) => [x.type, x]));
  assert.equal(cond.RuntimeReady!.status, true);
  // no CNI conflist yet: containerd says the network is not ready (hostNetwork pods still work)
  assert.equal(cond.NetworkReady!.status, false);
  assert.equal(cond.NetworkReady!.reason, 'NetworkPluginNotReady');
  await assert.rejects(cri.waitReady(200, { network: true }), /NetworkReady=false \(NetworkPluginNotReady/);
  for (const d of [c.paths.root, c.paths.state, c.paths.cniConfDir, c.paths.podLogDir]) assert.ok(statSync(d).isDirectory(), d);

  // --container-runtime-endpoint: an external runtime is waited for but never stopped
  const ext = Containerd.external(c.endpoint, { readyTimeoutMs: 2000 });
  assert.equal(ext.endpoint, c.endpoint);
  await ext.start();
  await ext.stop();
  assert.ok(alive(pid), 'stop() of an external runtime leaves it running');
  await assert.rejects(
    Containerd.external(`unix://${tmp.dir}/nothing.sock`, { readyTimeoutMs: 300 }).start(),
    /nothing\.sock not ready after 300 ms: CRI Status: UNAVAILABLE/,
  );

  const s0 = performance.now();
  await c.stop();
  console.log(`# containerd stopped in ${Math.round(performance.now() - s0)} ms`);
  assert.equal(c.state, 'stopped');
  assert.equal(alive(pid), false);
  assert.equal(existsSync(path.join(c.paths.dir, 'containerd.pid')), false);
});

test('containerd killed with SIGKILL is restarted and ready again; the client reconnects', async (t) => {
  const tmp = tempDir();
  const lines: string[] = [];
  const c = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX, log: (l) => lines.push(l) });
  t.after(async () => {
    await c.stop();
    tmp.remove();
  });
  await c.start();
  const cri = new CriClient(c.endpoint);
  t.after(() => cri.close());
  await cri.version();
  for (let round = 1; round <= 2; round++) {
    const old = c.pid!;
    const restarted = new Promise<ContainerdRestartEvent>((resolve) => {
      const off = c.onRestart((ev) => {
        off();
        resolve(ev);
      });
    });
    const t0 = performance.now();
    process.kill(old, 'SIGKILL');
    const ev = await restarted;
    await cri.waitReady(5000);
    console.log(`# round ${round}: restarted after ${ev.downMs} ms down; client answered ${Math.round(performance.now() - t0)} ms after the kill`);
    assert.equal(ev.restarts, round);
    assert.equal(ev.signal, 'SIGKILL');
    assert.equal(c.state, 'running');
    assert.notEqual(c.pid, old);
    assert.ok(alive(c.pid!));
    assert.equal((await cri.version()).runtime_name, 'containerd');
  }
  // back-off doubles between crashes: 100 ms, then 200 ms
  assert.deepEqual(
    lines.filter((l) => l.includes('restarting in')).map((l) => l.replace(/.*restarting in /, '')),
    ['100 ms', '200 ms'],
  );
});

test('a containerd left running by a killed k1s is stopped and replaced; a stale socket does not block start', async (t) => {
  const tmp = tempDir();
  const c2 = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX });
  const pids: number[] = [];
  t.after(async () => {
    await c2.stop();
    for (const p of pids) if (alive(p)) process.kill(p, 'SIGKILL');
    tmp.remove();
  });
  const moduleUrl = new URL('../../../src/runtime/containerd.js', import.meta.url).href;
  // a k1s process that starts containerd and is then SIGKILLed
  const runOrphan = async (): Promise<number> => {
    const script = `const { Containerd } = await import(${JSON.stringify(moduleUrl)});
      const c = new Containerd({ dataDir: ${JSON.stringify(tmp.dir)}, sandboxImage: ${JSON.stringify(SANDBOX)} });
      await c.start(); console.log(c.pid); setInterval(() => {}, 1000);`;
    const k1s = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      k1s.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      k1s.once('exit', (code) => reject(new Error(`orphan maker exited ${code}`)));
    });
    pids.push(pid);
    k1s.kill('SIGKILL');
    await new Promise((r) => k1s.once('exit', r));
    assert.ok(alive(pid), 'containerd outlives the killed k1s');
    return pid;
  };

  const orphan = await runOrphan();
  await c2.start();
  assert.equal(alive(orphan), false, 'the orphan was stopped');
  assert.notEqual(c2.pid, orphan);
  const cri = new CriClient(c2.endpoint);
  t.after(() => cri.close());
  assert.equal((await cri.version()).runtime_name, 'containerd');
  await c2.stop();

  // now kill the orphan hard ourselves: it leaves its socket file and a pid file naming a dead process
  const orphan2 = await runOrphan();
  process.kill(orphan2, 'SIGKILL');
  await until('orphan to die', () => !alive(orphan2));
  assert.ok(statSync(c2.paths.address).isSocket(), 'stale socket left behind');
  await c2.start();
  assert.equal((await cri.version()).runtime_name, 'containerd');
});

test('start fails with the fix when containerd is missing, and with its last log lines when it dies', async (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  const missing = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX, containerdPath: path.join(tmp.dir, 'no-such-containerd') });
  await assert.rejects(missing.start(), /not found on PATH; install it: apt-get install -y containerd runc/);
  assert.equal(missing.state, 'stopped');

  const broken = path.join(tmp.dir, 'broken-containerd');
  writeFileSync(broken, '#!/bin/sh\necho "level=fatal msg=\\"failed to load config: boom\\"" >&2\nexit 1\n');
  chmodSync(broken, 0o755);
  const dies = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX, containerdPath: broken });
  const t0 = Date.now();
  await assert.rejects(dies.start(), (e: Error) => {
    assert.match(e.message, /containerd did not become ready: containerd exited during start-up/);
    assert.match(e.message, /failed to load config: boom/);
    return true;
  });
  assert.ok(Date.now() - t0 < 3000, 'an early exit fails at once, not after the ready timeout');

  const hangs = path.join(tmp.dir, 'hanging-containerd');
  writeFileSync(hangs, '#!/bin/sh\necho "still loading plugins"\nexec sleep 60\n');
  chmodSync(hangs, 0o755);
  const slow = new Containerd({ dataDir: tmp.dir, sandboxImage: SANDBOX, containerdPath: hangs, readyTimeoutMs: 500 });
  await assert.rejects(slow.start(), /not ready after 500 ms[\s\S]*still loading plugins/);
  assert.equal(slow.pid, undefined, 'the hanging process was killed');
});

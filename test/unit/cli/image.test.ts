import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Parser } from 'tar';
import { formatTable, humanSize, imageCommand, shortImageId, splitReference } from '../../../src/cli/image.js';
import { Containerd } from '../../../src/runtime/containerd.js';
import { CriClient } from '../../../src/runtime/cri-client.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

async function tmp(t: { after: (fn: () => Promise<void>) => void }, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Cleanups run last-registered-first (node:test runs t.after hooks in registration order, which would delete the
 * data dir under a running containerd); every one runs even when an earlier one fails.
 */
function cleanupStack(t: { after: (fn: () => Promise<void>) => void }): (fn: () => unknown) => void {
  const stack: Array<() => unknown> = [];
  t.after(async () => {
    const errors: unknown[] = [];
    for (const fn of stack.reverse()) await Promise.resolve().then(fn).catch((e: unknown) => errors.push(e));
    if (errors.length) throw errors[0];
  });
  return (fn) => stack.push(fn);
}

async function cmd(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await imageCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The bytes of one entry of a tar, read with the `tar` package. */
async function tarEntry(buf: Buffer, path: string): Promise<Buffer | undefined> {
  let found: Buffer | undefined;
  await new Promise<void>((resolve, reject) => {
    const p = new Parser({
      onReadEntry: (e) => {
        const chunks: Buffer[] = [];
        e.on('data', (c: Buffer) => chunks.push(c));
        e.on('end', () => {
          if (e.path === path) found = Buffer.concat(chunks);
        });
      },
    });
    p.on('error', reject);
    p.on('end', () => resolve());
    p.end(buf);
  });
  return found;
}

/** Processes whose parent is pid, with their state letter (Z = zombie), from /proc. */
async function childrenOf(pid: number): Promise<Array<{ pid: number; state: string }>> {
  const out: Array<{ pid: number; state: string }> = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid) out.push({ pid: Number(name), state: fields[0]! });
  }
  return out;
}

test('argument errors, help, and a cluster that is not running', async (t) => {
  const dir = await tmp(t, 'k1s-image-cli-');
  let r = await cmd([]);
  assert.equal(r.code, 2);
  assert.match(r.err, /a command is required \(load, ls or rm\)/);
  r = await cmd(['remove', 'x']);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown command "remove"/);
  r = await cmd(['rm']);
  assert.equal(r.code, 2);
  assert.match(r.err, /name at least one IMAGE to remove/);
  r = await cmd(['load', '--data-dir', dir]);
  assert.equal(r.code, 2);
  assert.match(r.err, /name at least one FILE\.tar/);
  r = await cmd(['ls', 'extra']);
  assert.equal(r.code, 2);
  assert.match(r.err, /takes no arguments/);
  r = await cmd(['ls', '--bogus']);
  assert.equal(r.code, 2);
  assert.match(r.err, /Unknown option '--bogus'/);
  r = await cmd(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.out, /^Usage: k1s image <load\|ls\|rm>/);
  assert.match(r.out, /^Examples:$/m);
  assert.match(r.out, /--data-dir DIR/);

  r = await cmd(['load', '--data-dir', dir, join(dir, 'missing.tar')]);
  assert.equal(r.code, 1);
  assert.match(r.err, /missing\.tar: no such file/);

  const file = join(dir, 'x.tar');
  await writeFile(file, 'x');
  for (const args of [['load', '--data-dir', dir, file], ['ls', '--data-dir', dir], ['rm', '--data-dir', dir, 'k1s.local/x:1']]) {
    r = await cmd(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.err, new RegExp(`the containerd of the cluster in ${dir} is not running`));
    assert.match(r.err, new RegExp(`k1s server --data-dir ${dir}`));
  }
  r = await cmd(['ls', '--container-runtime-endpoint', `unix://${join(dir, 'none.sock')}`]);
  assert.equal(r.code, 1);
  assert.match(r.err, /nothing answers at .*none\.sock/);
});

test('table helpers print like crictl images', () => {
  assert.equal(humanSize(688_640), '689kB');
  assert.equal(humanSize(2_135_040), '2.14MB');
  assert.equal(humanSize(999), '999B');
  assert.equal(humanSize(1_500_000_000), '1.5GB');
  assert.deepEqual(splitReference('k1s.local/pause:3.10'), { repo: 'k1s.local/pause', tag: '3.10' });
  assert.deepEqual(splitReference('localhost:5000/app'), { repo: 'localhost:5000/app', tag: '<none>' });
  assert.deepEqual(splitReference('k1s.local/app@sha256:0123'), { repo: 'k1s.local/app', tag: '<none>' });
  assert.deepEqual(splitReference('sha256:0123abcd'), { repo: '<none>', tag: '<none>' });
  assert.equal(shortImageId('sha256:d6ab451661bbfd2c7b9713addfc495ec'), 'd6ab451661bbf');
  assert.deepEqual(formatTable([['IMAGE', 'TAG'], ['a-very-long-repository-name', '1']]), [
    'IMAGE                         TAG',
    'a-very-long-repository-name   1',
  ]);
});

test('built images load into a real containerd, list, skip when loaded again, and run through CRI', { timeout: 60_000 }, async (t) => {
  const defer = cleanupStack(t);
  const dir = await mkdtemp(join(tmpdir(), 'k1s-image-e2e-'));
  defer(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'images');

  // The build script: first run builds, second run sees nothing changed.
  let started = Date.now();
  const first = await run(process.execPath, [join(repoRoot, 'scripts/build-images.mjs'), '--out', out]);
  const buildMs = Date.now() - started;
  assert.match(first.stdout, /k1s\.local\/pause:3\.10: built/);
  assert.match(first.stdout, /k1s\.local\/busybox:1\.35: built/);
  const second = await run(process.execPath, [join(repoRoot, 'scripts/build-images.mjs'), '--out', out]);
  assert.match(second.stdout, /k1s\.local\/pause:3\.10: up to date/);
  assert.match(second.stdout, /k1s\.local\/busybox:1\.35: up to date/);
  // Without gcc on PATH the script names the Debian packages to install.
  const noGcc = await run(process.execPath, [join(repoRoot, 'scripts/build-images.mjs'), '--out', join(dir, 'x'), 'pause'], {
    env: { ...process.env, PATH: '/nonexistent' },
  }).then(() => undefined, (e: { code: number; stderr: string }) => e);
  assert.equal(noGcc?.code, 1);
  assert.match(noGcc?.stderr ?? '', /gcc is not installed; install them with: apt-get install -y gcc libc6-dev busybox-static/);
  const summary = JSON.parse(await readFile(join(out, 'images.json'), 'utf8')) as Array<{ name: string; digest: string }>;
  assert.deepEqual(summary.map((s) => s.name).sort(), ['k1s.local/busybox:1.35', 'k1s.local/pause:3.10']);

  // The pause binary itself: -v, and SIGTERM / SIGINT end it with status 0.
  const pauseTar = await readFile(join(out, 'pause.tar'));
  const index = JSON.parse((await tarEntry(pauseTar, 'index.json'))!.toString());
  const manifest = JSON.parse((await tarEntry(pauseTar, `blobs/sha256/${index.manifests[0].digest.slice(7)}`))!.toString());
  const layer = (await tarEntry(pauseTar, `blobs/sha256/${manifest.layers[0].digest.slice(7)}`))!;
  const pauseBin = join(dir, 'pause');
  await writeFile(pauseBin, (await tarEntry(layer, 'pause'))!);
  await chmod(pauseBin, 0o755);
  assert.match((await run(pauseBin, ['-v'])).stdout, /pause\.c 3\.10/);
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    const p = spawn(pauseBin, [], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 100));
    p.kill(sig);
    assert.equal(await exited, 0, `pause exits 0 on ${sig}`);
  }

  // As PID 1 of a PID namespace it reaps orphans: two background children of an exiting shell leave no zombies.
  const ns = spawn('unshare', ['--pid', '--fork', pauseBin], { stdio: 'ignore' });
  const nsExited = new Promise<number | null>((resolve) => ns.on('exit', (code) => resolve(code)));
  defer(() => ns.kill('SIGKILL'));
  let pausePid = 0;
  for (const deadline = Date.now() + 3000; !pausePid && Date.now() < deadline; await new Promise((res) => setTimeout(res, 20))) {
    pausePid = (await childrenOf(ns.pid!))[0]?.pid ?? 0;
  }
  assert.ok(pausePid, 'pause runs under unshare');
  await run('nsenter', ['-t', String(pausePid), '-p', 'sh', '-c', 'sleep 0.1 & sleep 0.2 & exit 0']);
  await new Promise((res) => setTimeout(res, 600));
  assert.deepEqual(await childrenOf(pausePid), [], 'orphans reparented to pause were reaped');
  process.kill(pausePid, 'SIGTERM');
  assert.equal(await nsExited, 0);

  const dataDir = join(dir, 'data');
  const containerd = new Containerd({ dataDir, sandboxImage: 'k1s.local/pause:3.10' });
  defer(() => containerd.stop());
  await containerd.start();

  started = Date.now();
  let r = await cmd(['load', '--data-dir', dataDir, join(out, 'pause.tar'), join(out, 'busybox.tar')]);
  const loadMs = Date.now() - started;
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /pause\.tar/);
  assert.match(r.out, /busybox\.tar/);
  assert.match(r.out, /loaded 2 image\(s\), skipped 0 already present/);

  r = await cmd(['ls', '--data-dir', dataDir]);
  assert.equal(r.code, 0, r.err);
  console.log(r.out);
  const lines = r.out.split('\n');
  assert.match(lines[0]!, /^IMAGE\s+TAG\s+IMAGE ID\s+SIZE$/);
  const busyboxRow = lines.find((l) => l.startsWith('k1s.local/busybox '));
  const pauseRow = lines.find((l) => l.startsWith('k1s.local/pause '));
  assert.match(busyboxRow ?? '', /^k1s\.local\/busybox\s+1\.35\s+[0-9a-f]{13}\s+\d[\d.]*(kB|MB)$/, r.out);
  assert.match(pauseRow ?? '', /^k1s\.local\/pause\s+3\.10\s+[0-9a-f]{13}\s+\d[\d.]*(kB|MB)$/, r.out);

  started = Date.now();
  r = await cmd(['load', '--data-dir', dataDir, join(out, 'busybox.tar'), join(out, 'pause.tar')]);
  const reloadMs = Date.now() - started;
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /loaded 0 image\(s\), skipped 2 already present/);
  console.log(`build ${buildMs} ms, load of both ${loadMs} ms, load again (skipped) ${reloadMs} ms`);

  // The images are runnable: pause as the sandbox image, busybox running sh.
  const cri = new CriClient(containerd.endpoint);
  defer(() => cri.close());
  const cgroupParent = `/k1s-test-h2-${randomBytes(4).toString('hex')}`;
  defer(async () => {
    for (const h of await readdir('/sys/fs/cgroup')) await rmdir(join('/sys/fs/cgroup', h, cgroupParent)).catch(() => {});
  });
  const logDir = join(dir, 'pod-logs');
  await mkdir(logDir, { recursive: true });
  const node = { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } as const;
  const { pod_sandbox_id: sandboxId } = await cri.runPodSandbox({
    config: {
      metadata: { name: 'image-test', uid: `uid-${randomBytes(4).toString('hex')}`, namespace: 'default', attempt: 0 },
      hostname: '', // hostNetwork: runc refuses a hostname here
      log_directory: logDir,
      linux: { cgroup_parent: cgroupParent, security_context: { namespace_options: node } },
    },
  });
  defer(async () => {
    await cri.stopPodSandbox({ pod_sandbox_id: sandboxId }).catch(() => {});
    await cri.removePodSandbox({ pod_sandbox_id: sandboxId }).catch(() => {});
  });
  const { container_id: containerId } = await cri.createContainer({
    pod_sandbox_id: sandboxId,
    config: {
      metadata: { name: 'sh', attempt: 0 },
      image: { image: 'k1s.local/busybox:1.35' },
      command: ['sh', '-c', 'echo hi from busybox; id -un; ls -ld /tmp'],
      log_path: 'sh.log',
      linux: { security_context: { namespace_options: node } },
    },
    sandbox_config: {
      metadata: { name: 'image-test', uid: 'x', namespace: 'default', attempt: 0 },
      log_directory: logDir,
      linux: { cgroup_parent: cgroupParent, security_context: { namespace_options: node } },
    },
  });
  await cri.startContainer({ container_id: containerId });
  let status;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((res) => setTimeout(res, 50))) {
    status = (await cri.containerStatus({ container_id: containerId })).status;
    if (status?.state === 'CONTAINER_EXITED') break;
  }
  assert.equal(status?.state, 'CONTAINER_EXITED');
  assert.equal(status?.exit_code, 0);
  const log = (await readFile(join(logDir, 'sh.log'), 'utf8')).trim().split('\n');
  assert.deepEqual(log.map((l) => l.split(' ').slice(1, 3).join(' ')), ['stdout F', 'stdout F', 'stdout F']);
  assert.match(log[0]!, / stdout F hi from busybox$/);
  assert.match(log[1]!, / stdout F root$/, '/etc/passwd names uid 0');
  assert.match(log[2]!, / stdout F drwxrwxrwt .* \/tmp$/, '/tmp is 1777');
  // The sandbox (its pause process) is still up after the container ended.
  const sandbox = await cri.podSandboxStatus({ pod_sandbox_id: sandboxId });
  assert.equal(sandbox.status?.state, 'SANDBOX_READY');
  await cri.removeContainer({ container_id: containerId });

  // rm: by reference (every tag of the image goes, as with crictl rmi), an unknown one fails but the rest proceed
  r = await cmd(['rm', '--data-dir', dataDir, 'k1s.local/nothing:1', 'k1s.local/busybox:1.35']);
  assert.equal(r.code, 1);
  assert.match(r.err, /no such image k1s\.local\/nothing:1 \(see k1s image ls\)/);
  assert.equal(r.out, 'Deleted: k1s.local/busybox:1.35');
  r = await cmd(['ls', '--data-dir', dataDir]);
  assert.doesNotMatch(r.out, /busybox/);
  assert.match(r.out, /k1s\.local\/pause/);
  r = await cmd(['rm', '--data-dir', dataDir, 'k1s.local/busybox:1.35']);
  assert.equal(r.code, 1);
});

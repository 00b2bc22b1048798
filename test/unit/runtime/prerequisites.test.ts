import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkNodePrerequisites, CNI_PLUGINS, findExecutable, INSTALL_COMMAND } from '../../../src/runtime/prerequisites.js';
import { tempDir } from './fixtures.js';

function fakeBin(dir: string, names: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  for (const n of names) {
    writeFileSync(path.join(dir, n), '#!/bin/sh\n');
    chmodSync(path.join(dir, n), 0o755);
  }
}

const PROGRAMS = ['containerd', 'containerd-shim-runc-v2', 'ctr', 'runc', 'iptables'];

test('everything present: ok', (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  fakeBin(path.join(tmp.dir, 'bin'), PROGRAMS);
  fakeBin(path.join(tmp.dir, 'cni'), CNI_PLUGINS);
  assert.deepEqual(checkNodePrerequisites({ path: path.join(tmp.dir, 'bin'), cniBinDir: path.join(tmp.dir, 'cni') }), { ok: true });
});

test('an empty PATH and an empty CNI dir name every missing piece and the Debian packages', (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  mkdirSync(path.join(tmp.dir, 'cni'));
  const r = checkNodePrerequisites({ path: path.join(tmp.dir, 'nothing'), cniBinDir: path.join(tmp.dir, 'cni') });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.deepEqual(r.missing.slice(0, 5), PROGRAMS);
  assert.deepEqual(
    r.missing.slice(5).map((m) => m.split(' ')[2]),
    ['bridge', 'host-local', 'portmap', 'loopback'],
  );
  assert.match(r.message, /apt-get install -y containerd runc containernetworking-plugins iptables\n/);
  assert.ok(r.message.includes(INSTALL_COMMAND));
});

test('only runc and the portmap plugin missing: the message asks for exactly their packages', (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  fakeBin(path.join(tmp.dir, 'bin'), PROGRAMS.filter((p) => p !== 'runc'));
  fakeBin(path.join(tmp.dir, 'cni'), CNI_PLUGINS.filter((p) => p !== 'portmap'));
  const r = checkNodePrerequisites({ path: path.join(tmp.dir, 'bin'), cniBinDir: path.join(tmp.dir, 'cni') });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.missing.length, 2);
  assert.equal(r.missing[0], 'runc');
  assert.match(r.missing[1]!, /^CNI plugin portmap/);
  assert.match(r.message, /Install them \(Debian\/Ubuntu, as root\): apt-get install -y runc containernetworking-plugins\n/);
});

test('a file without the execute bit does not count', (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  fakeBin(tmp.dir, ['runc']);
  chmodSync(path.join(tmp.dir, 'runc'), 0o644);
  assert.equal(findExecutable('runc', tmp.dir), undefined);
  chmodSync(path.join(tmp.dir, 'runc'), 0o755);
  assert.equal(findExecutable('runc', tmp.dir), path.join(tmp.dir, 'runc'));
});

test('this machine has what the runtime tests need', () => {
  const r = checkNodePrerequisites();
  assert.deepEqual(r, { ok: true }, r.ok ? '' : r.message);
});

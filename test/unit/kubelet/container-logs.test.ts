import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { formatTimestamp, logOptions, parseCriLine, readLogs, type LogQuery } from '../../../src/kubelet/logs/container-logs.js';
import { ContainerLogRotator, rotationSuffix } from '../../../src/kubelet/logs/rotation.js';

function tmp(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-logs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const lines = [
  '2024-01-01T00:00:01.000000001Z stdout F one',
  '2024-01-01T00:00:02.5Z stderr F two',
  '2024-01-01T00:00:03.123456789Z stdout P thr',
  '2024-01-01T00:00:03.123456790Z stdout F ee',
  '2024-01-01T00:00:04Z stdout F four',
];
const content = lines.join('\n') + '\n';

async function read(path: string, q: LogQuery, now?: number, extra: Parameters<typeof readLogs>[3] = {}): Promise<string> {
  let out = '';
  await readLogs(path, logOptions(q, now), { write: (_s, d) => ((out += d.toString()), true) }, extra);
  return out;
}

test('CRI lines: stream, partial tag, nanosecond timestamps', () => {
  const m = parseCriLine(Buffer.from('2024-01-01T00:00:03.123456789Z stdout P thr\n'))!;
  assert.equal(m.stream, 'stdout');
  assert.equal(m.log.toString(), 'thr');
  assert.equal(formatTimestamp(m.ms, m.nanos), '2024-01-01T00:00:03.123456789Z');
  const f = parseCriLine(Buffer.from('2024-01-01T01:00:00+01:00 stderr F x\n'))!;
  assert.equal(f.log.toString(), 'x\n');
  assert.equal(formatTimestamp(f.ms, f.nanos), '2024-01-01T00:00:00.000000000Z');
  assert.equal(parseCriLine(Buffer.from('garbage\n')), undefined);
});

test('reads all, tails, limits, filters by time and prints fixed timestamps like the kubelet', async (t) => {
  const path = join(tmp(t), '0.log');
  writeFileSync(path, content);
  assert.equal(await read(path, {}), 'one\ntwo\nthree\nfour\n');
  // tail counts lines of the file (a partial fragment is a line of its own)
  assert.equal(await read(path, { tailLines: 2 }), 'ee\nfour\n');
  assert.equal(await read(path, { tailLines: 3 }), 'three\nfour\n');
  assert.equal(await read(path, { tailLines: 0 }), '');
  assert.equal(await read(path, { tailLines: 100 }), 'one\ntwo\nthree\nfour\n');
  // limitBytes cuts the last write
  assert.equal(await read(path, { limitBytes: 6 }), 'one\ntw');
  assert.equal(await read(path, { sinceTime: '2024-01-01T00:00:03Z' }), 'three\nfour\n');
  const now = Date.parse('2024-01-01T00:00:05Z');
  assert.equal(await read(path, { sinceSeconds: 2 }, now), 'three\nfour\n');
  // the later of sinceSeconds and sinceTime wins
  assert.equal(await read(path, { sinceSeconds: 10, sinceTime: '2024-01-01T00:00:04Z' }, now), 'four\n');
  assert.equal(
    await read(path, { timestamps: true, tailLines: 3 }),
    '2024-01-01T00:00:03.123456789Z thr2024-01-01T00:00:03.123456790Z ee\n2024-01-01T00:00:04.000000000Z four\n',
  );
  assert.equal(await read(path, { timestamps: true, limitBytes: 35 }), '2024-01-01T00:00:01.000000001Z one\n');
});

test('stdout and stderr reach their own streams; docker JSON files are read too', async (t) => {
  const dir = tmp(t);
  const path = join(dir, '0.log');
  writeFileSync(path, content);
  const got: string[] = [];
  await readLogs(path, logOptions({ tailLines: 4 }), { write: (s, d) => (got.push(`${s}:${d}`), true) });
  assert.deepEqual(got, ['stderr:two\n', 'stdout:thr', 'stdout:ee\n', 'stdout:four\n']);
  const json = join(dir, 'j.log');
  writeFileSync(json, '{"log":"hello\\n","stream":"stdout","time":"2024-01-01T00:00:00.5Z"}\n');
  assert.equal(await read(json, { timestamps: true }), '2024-01-01T00:00:00.500000000Z hello\n');
});

test('follow: new lines arrive, an incomplete line waits, rotation is followed, a stopped container ends it', async (t) => {
  const dir = tmp(t);
  const path = join(dir, '0.log');
  writeFileSync(path, lines[0] + '\n');
  let running = true;
  const chunks: string[] = [];
  let wake: (() => void) | undefined;
  const seen = (s: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${JSON.stringify(s)}; have ${JSON.stringify(chunks.join(''))}`)), 5000);
      const check = () => {
        if (chunks.join('').includes(s)) {
          clearTimeout(timer);
          resolve();
        } else wake = check;
      };
      check();
    });
  const done = readLogs(path, logOptions({ follow: true, tailLines: 1 }), {
    write: (_s, d) => {
      chunks.push(d.toString());
      wake?.();
      return true;
    },
  }, { isRunning: async () => running, pollMs: 100 });
  await seen('one\n');
  appendFileSync(path, '2024-01-01T00:00:05Z stdout F fi');
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(chunks.join(''), 'one\n', 'an incomplete line is not printed while following');
  appendFileSync(path, 've\n');
  await seen('five\n');
  // rotation: the runtime keeps writing the old file until it reopens, then writes a new one at the same path
  renameSync(path, path + '.20240101-000006');
  appendFileSync(path + '.20240101-000006', '2024-01-01T00:00:06Z stdout F six\n');
  writeFileSync(path, '2024-01-01T00:00:07Z stdout F seven\n');
  await seen('seven\n');
  assert.equal(chunks.join(''), 'one\nfive\nsix\nseven\n');
  appendFileSync(path, '2024-01-01T00:00:08Z stdout F eight\n');
  running = false;
  await done;
  assert.equal(chunks.join(''), 'one\nfive\nsix\nseven\neight\n', 'drained to EOF after the container stopped');
});

test('follow with limitBytes stops once the limit is reached; abort ends a follow', async (t) => {
  const path = join(tmp(t), '0.log');
  writeFileSync(path, content);
  assert.equal(await read(path, { follow: true, limitBytes: 5 }, undefined, { isRunning: async () => true }), 'one\nt');
  const ac = new AbortController();
  const p = read(path, { follow: true, tailLines: 1 }, undefined, { isRunning: async () => true, signal: ac.signal, pollMs: 50 });
  setTimeout(() => ac.abort(), 100);
  assert.equal(await p, 'four\n');
});

test('log rotation: renames at maxSize, reopens, gzips older files and keeps maxFiles', async (t) => {
  const dir = tmp(t);
  const logPath = join(dir, '0.log');
  let clock = Date.parse('2024-03-04T05:06:07Z');
  const reopened: string[] = [];
  const rotator = new ContainerLogRotator({
    maxSize: 100,
    maxFiles: 3,
    now: () => new Date(clock),
    containers: async () => [{ id: 'c1', logPath, running: true }],
    reopen: async (id) => {
      reopened.push(id);
      writeFileSync(logPath, '');
    },
  });
  const fill = (tag: string) => writeFileSync(logPath, `2024-01-01T00:00:00Z stdout F ${tag.repeat(100)}\n`);
  writeFileSync(logPath, 'small\n');
  await rotator.rotateAll();
  assert.deepEqual(readdirSync(dir), ['0.log'], 'below maxSize nothing happens');
  const names: string[] = [];
  for (const tag of ['a', 'b', 'c', 'd']) {
    fill(tag);
    await rotator.rotateAll();
    names.push(`0.log.${rotationSuffix(new Date(clock))}`);
    clock += 1000;
  }
  assert.deepEqual(reopened, ['c1', 'c1', 'c1', 'c1']);
  // live file + (maxFiles-2) older rotated files (compressed) + the newest rotated one (plain)
  assert.deepEqual(readdirSync(dir).sort(), ['0.log', `${names[2]}.gz`, names[3]].sort());
  assert.match(gunzipSync(readFileSync(join(dir, `${names[2]}.gz`))).toString(), / c{100}\n$/);
  assert.match(readFileSync(join(dir, names[3]), 'utf8'), / d{100}\n$/);
  assert.equal(readFileSync(logPath, 'utf8'), '');
});

test('log rotation: a failed reopen puts the file back', async (t) => {
  const dir = tmp(t);
  const logPath = join(dir, '0.log');
  writeFileSync(logPath, 'x'.repeat(200));
  const rotator = new ContainerLogRotator({
    maxSize: 100,
    containers: async () => [{ id: 'c1', logPath, running: true }],
    reopen: async () => {
      throw new Error('container is not running');
    },
  });
  await rotator.rotateAll();
  assert.deepEqual(readdirSync(dir), ['0.log']);
  assert.equal(readFileSync(logPath, 'utf8').length, 200);
});

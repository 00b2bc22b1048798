// The audit log writer: lumberjack's rotation and naming, pruning by count and age, compression, and dropped
// (counted, logged) events when writing fails.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { AuditLogWriter, backupName } from '../../../../src/apiserver/audit/log-writer.js';

const line = (i: number) => `{"n":${String(i).padStart(4, '0')},"pad":"${'x'.repeat(80)}"}\n`; // 100 bytes

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'k1s-audit-log-'));
}

describe('audit log writer', () => {
  it('names backups <name>-<UTC time>.<ext>', () => {
    assert.equal(backupName('/var/log/audit.log', new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 67))), '/var/log/audit-2025-01-02T03-04-05.067.log');
    assert.equal(backupName('/x/audit', new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 67))), '/x/audit-2025-01-02T03-04-05.067');
  });

  it('creates the file 0600 at start and rotates before a line that would pass the limit', async () => {
    const dir = tmp();
    try {
      const path = join(dir, 'sub', 'audit.log');
      let clock = Date.UTC(2025, 0, 1);
      const w = new AuditLogWriter({ path, maxSizeBytes: 350, now: () => new Date((clock += 1000)) });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      for (let i = 0; i < 10; i++) w.write(line(i));
      await w.close();
      const files = readdirSync(join(dir, 'sub')).sort();
      assert.deepEqual(files, ['audit-2025-01-01T00-00-01.000.log', 'audit-2025-01-01T00-00-02.000.log', 'audit-2025-01-01T00-00-03.000.log', 'audit.log']);
      // three lines (300 bytes) per file, in order, nothing lost
      const all = files.map((f) => readFileSync(join(dir, 'sub', f), 'utf8'));
      assert.deepEqual(all.map((t) => t.length), [300, 300, 300, 100]);
      assert.equal(all.join(''), Array.from({ length: 10 }, (_, i) => line(i)).join(''));
      for (const f of files) assert.equal(statSync(join(dir, 'sub', f)).mode & 0o777, 0o600, f);
      assert.equal(w.dropped, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rotates a file that is already full at the first write', async () => {
    const dir = tmp();
    try {
      const path = join(dir, 'audit.log');
      writeFileSync(path, 'y'.repeat(300));
      const w = new AuditLogWriter({ path, maxSizeBytes: 350, now: () => new Date(Date.UTC(2025, 5, 1)) });
      w.write(line(1));
      await w.close();
      assert.equal(readFileSync(path, 'utf8'), line(1));
      assert.equal(readFileSync(join(dir, 'audit-2025-06-01T00-00-00.000.log'), 'utf8'), 'y'.repeat(300));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps maxBackups files, removes those past maxAge and gzips with compress', async () => {
    const dir = tmp();
    try {
      const path = join(dir, 'audit.log');
      // an old backup (40 days) and an unrelated file that must stay
      writeFileSync(join(dir, 'audit-2024-11-20T00-00-00.000.log'), 'old');
      writeFileSync(join(dir, 'other.log'), 'keep');
      let clock = Date.UTC(2025, 0, 1);
      const w = new AuditLogWriter({ path, maxSizeBytes: 150, maxBackups: 2, maxAgeDays: 30, compress: true, now: () => new Date((clock += 1000)) });
      for (let i = 0; i < 5; i++) {
        w.write(line(i));
        await w.flush();
      }
      await w.close();
      // one line a file: lines 0-3 rotated, the newest two kept (gzipped), the 40-day-old one gone
      const files = readdirSync(dir).sort();
      assert.equal(files.length, 4, files.join(' '));
      assert.match(files[0], /^audit-2025-01-01T00-00-\d\d\.000\.log\.gz$/);
      assert.match(files[1], /^audit-2025-01-01T00-00-\d\d\.000\.log\.gz$/);
      assert.deepEqual(files.slice(2), ['audit.log', 'other.log']);
      assert.equal(gunzipSync(readFileSync(join(dir, files[0]))).toString(), line(2));
      assert.equal(gunzipSync(readFileSync(join(dir, files[1]))).toString(), line(3));
      assert.equal(readFileSync(path, 'utf8'), line(4));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('drops and counts events it cannot write, and goes on', async () => {
    const logs: string[] = [];
    const w = new AuditLogWriter({ path: '/dev/full', log: (l) => logs.push(l) });
    for (let i = 0; i < 5; i++) w.write(line(i));
    await w.flush();
    assert.equal(w.dropped, 5);
    assert.equal(logs.length, 1);
    assert.match(logs[0], /^k1s: Error in audit plugin 'log' affecting 5 audit events: .*ENOSPC/);
    w.write(line(9));
    await w.close();
    assert.equal(w.dropped, 6);
    assert.ok(existsSync('/dev/full'), 'a device is never rotated');
  });

  it('drops a line larger than the limit and lines beyond the queue', async () => {
    const dir = tmp();
    try {
      const path = join(dir, 'audit.log');
      const w = new AuditLogWriter({ path, maxSizeBytes: 150, queueLimit: 3, log: () => {} });
      w.write('z'.repeat(200) + '\n');
      for (let i = 0; i < 5; i++) w.write(line(i)); // the queue holds 3 (the big line is one of them)
      await w.close();
      assert.equal(w.dropped, 4);
      assert.equal(readdirSync(dir).length, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a path it cannot create at start', () => {
    const dir = tmp();
    try {
      writeFileSync(join(dir, 'file'), '');
      assert.throws(() => new AuditLogWriter({ path: join(dir, 'file', 'audit.log') }), /^Error: ensureLogFile: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

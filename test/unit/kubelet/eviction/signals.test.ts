import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, statfs } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  defaultEvictionHard,
  EVICTION_PRESSURE_TRANSITION_PERIOD_MS,
  observeSignals,
  parseMemoryStat,
  parseThreshold,
  pressureConditions,
  thresholdsMet,
  type Observations,
} from '../../../../src/kubelet/eviction/signals.js';

const Mi = 1024 * 1024;
const Gi = 1024 * Mi;

function healthy(): Observations {
  return {
    'memory.available': { available: 8 * Gi, capacity: 16 * Gi },
    'nodefs.available': { available: 50 * Gi, capacity: 100 * Gi },
    'nodefs.inodesFree': { available: 5_000_000, capacity: 6_000_000 },
    'imagefs.available': { available: 50 * Gi, capacity: 100 * Gi },
    'imagefs.inodesFree': { available: 5_000_000, capacity: 6_000_000 },
    'pid.available': { available: 32_000, capacity: 32_768 },
  };
}

test('kubelet 1.33 default hard thresholds', () => {
  const d = defaultEvictionHard();
  assert.deepEqual(
    d.map((t) => [t.signal, 'quantity' in t.value ? t.value.quantity : `${Math.round(t.value.percentage * 100)}%`]),
    [
      ['memory.available', '100Mi'],
      ['nodefs.available', '10%'],
      ['nodefs.inodesFree', '5%'],
      ['imagefs.available', '15%'],
    ],
  );
  assert.throws(() => parseThreshold('cpu.available<1'), /invalid eviction threshold/);
});

test('thresholds are met when available drops below the quantity or percentage of capacity', () => {
  const o = healthy();
  assert.deepEqual(thresholdsMet(defaultEvictionHard(), o), []);
  o['memory.available'] = { available: 99 * Mi, capacity: 16 * Gi };
  o['imagefs.available'] = { available: 14 * Gi, capacity: 100 * Gi };
  o['nodefs.available'] = { available: 10 * Gi + 1, capacity: 100 * Gi }; // 10% of 100Gi (float32) is just above 10Gi
  o['nodefs.inodesFree'] = { available: 300_000, capacity: 6_000_000 }; // exactly 5%: not below it
  assert.deepEqual(
    thresholdsMet(defaultEvictionHard(), o).map((t) => t.signal),
    ['memory.available', 'nodefs.available', 'imagefs.available'],
  );
  o['memory.available'] = { available: 100 * Mi, capacity: 16 * Gi };
  assert.ok(!thresholdsMet(defaultEvictionHard(), o).some((t) => t.signal === 'memory.available'), '100Mi available is not < 100Mi');
});

test('pressure conditions go True at once and back to False only after evictionPressureTransitionPeriod', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const thresholds = [...defaultEvictionHard(), parseThreshold('pid.available<1000')];
  const low = healthy();
  low['memory.available'] = { available: 50 * Mi, capacity: 16 * Gi };
  low['pid.available'] = { available: 10, capacity: 32_768 };

  const r1 = pressureConditions(healthy(), thresholds, undefined, t0);
  assert.deepEqual([r1.memoryPressure, r1.diskPressure, r1.pidPressure], [false, false, false]);

  const r2 = pressureConditions(low, thresholds, r1.state, t0 + 10_000);
  assert.deepEqual([r2.memoryPressure, r2.diskPressure, r2.pidPressure], [true, false, true]);
  assert.deepEqual(r2.toReclaim.map((t) => t.signal), ['memory.available', 'pid.available'], 'memory is reclaimed first');

  // recovered, but within 5 minutes of the last observation: still True
  const r3 = pressureConditions(healthy(), thresholds, r2.state, t0 + 10_000 + EVICTION_PRESSURE_TRANSITION_PERIOD_MS - 1);
  assert.equal(r3.memoryPressure, true);
  assert.deepEqual(r3.toReclaim, [], 'nothing to evict for once the threshold is no longer met');
  const r4 = pressureConditions(healthy(), thresholds, r3.state, t0 + 10_000 + EVICTION_PRESSURE_TRANSITION_PERIOD_MS);
  assert.deepEqual([r4.memoryPressure, r4.pidPressure], [false, false]);
});

test('soft thresholds raise the condition at once but are reclaimed only after their grace period', () => {
  const t0 = 1_000_000;
  const soft = parseThreshold('memory.available<1Gi', 90);
  const o = healthy();
  o['memory.available'] = { available: 512 * Mi, capacity: 16 * Gi };
  const r1 = pressureConditions(o, [soft], undefined, t0);
  assert.equal(r1.memoryPressure, true);
  assert.deepEqual(r1.toReclaim, []);
  const r2 = pressureConditions(o, [soft], r1.state, t0 + 89_999);
  assert.deepEqual(r2.toReclaim, []);
  const r3 = pressureConditions(o, [soft], r2.state, t0 + 90_000);
  assert.deepEqual(r3.toReclaim, [soft]);
});

test('observeSignals reads this machine', async () => {
  const o = await observeSignals({ dataDir: tmpdir() });
  const mem = o['memory.available']!;
  const memTotal = Number(/MemTotal:\s+(\d+)/.exec(await readFile('/proc/meminfo', 'utf8'))![1]) * 1024;
  assert.equal(mem.capacity, memTotal);
  assert.ok(mem.available > 0 && mem.available <= mem.capacity, JSON.stringify(mem));
  if (existsSync('/sys/fs/cgroup/memory/memory.usage_in_bytes')) {
    const usage = Number((await readFile('/sys/fs/cgroup/memory/memory.usage_in_bytes', 'utf8')).trim());
    const inactive = parseMemoryStat(await readFile('/sys/fs/cgroup/memory/memory.stat', 'utf8')).total_inactive_file;
    // the working set moves while we read; allow 64Mi of drift
    assert.ok(Math.abs(mem.available - (memTotal - (usage - inactive))) < 64 * Mi, `${mem.available} vs ${memTotal - (usage - inactive)}`);
  }
  const fs = await statfs(tmpdir());
  assert.equal(o['nodefs.available']!.capacity, fs.blocks * fs.bsize);
  assert.ok(Math.abs(o['nodefs.available']!.available - fs.bavail * fs.bsize) < 256 * Mi);
  assert.equal(o['nodefs.inodesFree']!.capacity, fs.files);
  assert.deepEqual(o['imagefs.available']!.capacity, o['nodefs.available']!.capacity, 'one disk: imagefs = nodefs');
  const pid = o['pid.available']!;
  const pidMax = Number((await readFile('/proc/sys/kernel/pid_max', 'utf8')).trim());
  assert.ok(pid.capacity <= pidMax && pid.capacity > 0);
  assert.ok(pid.available > 0 && pid.available < pid.capacity);
  assert.deepEqual(thresholdsMet(defaultEvictionHard(), { 'pid.available': pid }), []);
});

test('memory.stat parsing', () => {
  assert.deepEqual(parseMemoryStat('cache 10\ntotal_inactive_file 648830976\n'), { cache: 10, total_inactive_file: 648830976 });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Container, Pod } from '../../../../src/api/core/pod/types.js';
import {
  computeQOS,
  containerLinuxResources,
  ensurePodCgroup,
  milliCPUToQuota,
  milliCPUToShares,
  oomScoreAdj,
  podCgroupParent,
  podResourceConfig,
  removePodCgroup,
  sandboxLinuxResources,
} from '../../../../src/kubelet/cri/qos-cgroups.js';

const GiB = 2 ** 30;
const pod = (containers: Container[], extra: Record<string, unknown> = {}, uid = 'uid-1'): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid }, spec: { containers, ...extra } }) as Pod;
const guaranteed = (): Pod => pod([{ name: 'a', resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '500m', memory: '256Mi' } } }]);
const burstable = (): Pod => pod([{ name: 'a', resources: { requests: { cpu: '250m', memory: `${0.1 * GiB}` }, limits: { cpu: '1' } } }]);
const bestEffort = (): Pod => pod([{ name: 'a' }]);

test('QoS classes and their cgroupfs parents', () => {
  assert.deepEqual([computeQOS(guaranteed()), computeQOS(burstable()), computeQOS(bestEffort())], ['Guaranteed', 'Burstable', 'BestEffort']);
  assert.equal(podCgroupParent('u', 'Guaranteed'), '/kubepods/podu');
  assert.equal(podCgroupParent('u', 'Burstable'), '/kubepods/burstable/podu');
  assert.equal(podCgroupParent('u', 'BestEffort'), '/kubepods/besteffort/podu');
});

test('cpu shares and CFS quota conversions', () => {
  assert.deepEqual([0, 1, 2, 100, 250, 1000, 300000].map(milliCPUToShares), [2, 2, 2, 102, 256, 1024, 262144]);
  assert.deepEqual([0, 1, 5, 250, 1500].map((m) => milliCPUToQuota(m)), [0, 1000, 1000, 25000, 150000]);
});

test('oom_score_adj: -997 guaranteed and node-critical, 1000 best effort, burstable by request share within [3, 999]', () => {
  const cap = 10 * GiB;
  assert.equal(oomScoreAdj(guaranteed(), guaranteed().spec!.containers![0], cap), -997);
  assert.equal(oomScoreAdj(bestEffort(), bestEffort().spec!.containers![0], cap), 1000);
  const b = burstable();
  assert.equal(oomScoreAdj(b, b.spec!.containers![0], cap), 990);
  const tiny = pod([{ name: 'a', resources: { requests: { memory: '1' } } }]);
  assert.equal(oomScoreAdj(tiny, tiny.spec!.containers![0], cap), 999);
  const huge = pod([{ name: 'a', resources: { requests: { memory: '20Gi' } } }]);
  assert.equal(oomScoreAdj(huge, huge.spec!.containers![0], cap), 3);
  const critical = pod([{ name: 'a', resources: { requests: { memory: '1Gi' } } }], { priorityClassName: 'system-node-critical', priority: 2000001000 });
  assert.equal(oomScoreAdj(critical, critical.spec!.containers![0], cap), -997);
  // a sidecar never scores above the regular container with the smallest request
  const side: Container = { name: 's', restartPolicy: 'Always', resources: { requests: { memory: '100Mi' } } };
  const withSidecar = pod([{ name: 'a', resources: { requests: { memory: '5Gi' } } }], { initContainers: [side] });
  assert.equal(oomScoreAdj(withSidecar, side, cap), 500);
});

test('container resources: shares from the request (or the limit alone), quota from the limit, memory limit', () => {
  const b = burstable();
  assert.deepEqual(containerLinuxResources(b, b.spec!.containers![0], 10 * GiB), { cpu_shares: '256', cpu_period: '100000', cpu_quota: '100000', oom_score_adj: '990' });
  const limitOnly = pod([{ name: 'a', resources: { limits: { cpu: '2', memory: '64Mi' } } }]);
  assert.deepEqual(containerLinuxResources(limitOnly, limitOnly.spec!.containers![0], 10 * GiB), {
    cpu_shares: '2048', cpu_period: '100000', cpu_quota: '200000', memory_limit_in_bytes: String(64 * 2 ** 20), oom_score_adj: '999',
  });
  const be = bestEffort();
  assert.deepEqual(containerLinuxResources(be, be.spec!.containers![0], 10 * GiB), { cpu_shares: '2', cpu_period: '100000', cpu_quota: '0', oom_score_adj: '1000' });
});

test('pod resource config by QoS class; init containers take a max, sidecars add up', () => {
  assert.deepEqual(podResourceConfig(guaranteed()), { cpuShares: 512, cpuQuota: 50000, cpuPeriod: 100000, memoryLimit: 256 * 2 ** 20 });
  assert.deepEqual(podResourceConfig(burstable()), { cpuShares: 256, cpuQuota: 100000, cpuPeriod: 100000 });
  assert.deepEqual(podResourceConfig(bestEffort()), { cpuShares: 2 });
  const p = pod([{ name: 'a', resources: { requests: { cpu: '100m' }, limits: { cpu: '200m', memory: '100Mi' } } }], {
    initContainers: [
      { name: 'init', resources: { requests: { cpu: '1' }, limits: { cpu: '1', memory: '50Mi' } } },
      { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '50m' }, limits: { cpu: '50m', memory: '10Mi' } } },
    ],
  });
  assert.deepEqual(podResourceConfig(p), { cpuShares: 1024, cpuQuota: 100000, cpuPeriod: 100000, memoryLimit: 110 * 2 ** 20 });
  assert.deepEqual(sandboxLinuxResources(p), { cpu_shares: '1024', cpu_period: '100000', cpu_quota: '100000', memory_limit_in_bytes: String(110 * 2 ** 20) });
});

test('the pod cgroup is created with its limits in every v1 hierarchy and removed from all of them', async (t) => {
  const uid = `k1s-test-${randomUUID()}`;
  const p = guaranteed();
  p.metadata!.uid = uid;
  const root = '/sys/fs/cgroup';
  const hadKubepods = await fs.stat(path.join(root, 'memory/kubepods')).then(() => true, () => false);
  t.after(async () => {
    await removePodCgroup(uid, 'Guaranteed');
    // leave the machine as found: the /kubepods parents only if this test made them (rmdir fails when in use)
    if (hadKubepods) return;
    for (const h of await fs.readdir(root)) await fs.rmdir(path.join(root, h, 'kubepods')).catch(() => undefined);
  });
  const parent = await ensurePodCgroup(p);
  assert.equal(parent, `/kubepods/pod${uid}`);
  const read = (sub: string, file: string) => fs.readFile(path.join(root, sub, parent, file), 'utf8').then((s) => s.trim());
  assert.equal(await read('cpu', 'cpu.shares'), '512');
  assert.equal(await read('cpu', 'cpu.cfs_quota_us'), '50000');
  assert.equal(await read('cpu', 'cpu.cfs_period_us'), '100000');
  assert.equal(await read('memory', 'memory.limit_in_bytes'), String(256 * 2 ** 20));
  // runc leaves per-container cgroups below the pod's: removal walks them
  await fs.mkdir(path.join(root, 'memory', parent, 'container-1'));
  const hierarchies = (await fs.readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  for (const h of hierarchies) assert.ok(await fs.stat(path.join(root, h, parent)).catch(() => false), `${h} has the pod cgroup`);
  await removePodCgroup(uid, 'Guaranteed');
  for (const h of hierarchies) assert.equal(await fs.stat(path.join(root, h, parent)).catch(() => 'gone'), 'gone', h);
});

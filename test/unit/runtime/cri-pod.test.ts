// Real containerd: import images built by the fixture, then a hostNetwork pod through the CRI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Containerd } from '../../../src/runtime/containerd.js';
import { CriClient } from '../../../src/runtime/cri-client.js';
import type { PodSandboxConfig } from '../../../src/runtime/cri-types.js';
import { importImageArchives, listImages } from '../../../src/runtime/images.js';
import { cgroupLeftovers, removeCgroup, tempDir, writeTinyDockerArchive, writeTinyOciImage } from './fixtures.js';

const IMAGE = 'k1s.test/h1-tiny:1';

test('image import (OCI layout + docker-archive), skip on re-import, then sandbox, container, exec and removal', async (t) => {
  const tmp = tempDir();
  const oci = await writeTinyOciImage(tmp.dir, IMAGE);
  const docker = await writeTinyDockerArchive(tmp.dir, 'h1-docker-tiny:2');
  const lines: string[] = [];
  // the sandbox image comes in with start(), the way k1s imports its pause image
  const c = new Containerd({ dataDir: tmp.dir, sandboxImage: IMAGE, importOnStart: [oci.file], log: (l) => lines.push(l) });
  const cri = new CriClient(c.endpoint);
  const cgroup = `k1s-test-${randomBytes(4).toString('hex')}`;
  const sandboxes: string[] = [];
  t.after(async () => {
    // remove what the test made even when it failed half-way, then containerd, then the host leftovers
    for (const id of sandboxes) {
      await cri.stopPodSandbox({ pod_sandbox_id: id }).catch(() => {});
      await cri.removePodSandbox({ pod_sandbox_id: id }).catch(() => {});
    }
    cri.close();
    await c.stop();
    removeCgroup(cgroup);
    // overlay mounts of this containerd (the shims are gone after RemovePodSandbox)
    const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').filter((l) => l.includes(tmp.dir));
    assert.deepEqual(mounts, [], 'no mounts left under the data dir');
    tmp.remove();
  });
  await c.start();
  assert.match(lines[1]!, /\.oci\.tar: imported k1s\.test\/h1-tiny:1 in \d+ ms$/);

  const progress: string[] = [];
  const t0 = performance.now();
  const first = await importImageArchives({ address: c.paths.address, files: [oci.file, docker.file], onProgress: (l) => progress.push(l) });
  console.log(`# import: ${progress.join(' | ')} (${Math.round(performance.now() - t0)} ms)`);
  assert.deepEqual(first, { imported: ['docker.io/library/h1-docker-tiny:2'], skipped: [IMAGE] });
  assert.match(progress[0]!, /\.oci\.tar: k1s\.test\/h1-tiny:1 already present, skipped$/);
  assert.match(progress[1]!, /\.docker\.tar: imported docker\.io\/library\/h1-docker-tiny:2 in \d+ ms$/);

  const again = await importImageArchives({ address: `unix://${c.paths.address}`, files: [docker.file] });
  assert.deepEqual(again, { imported: [], skipped: ['docker.io/library/h1-docker-tiny:2'] });

  const images = await listImages(cri);
  assert.deepEqual(images.map((i) => i.name), ['docker.io/library/h1-docker-tiny:2', IMAGE]);
  assert.equal(images[0]!.id, docker.id);
  assert.ok(images.every((i) => i.size > 500_000), 'sizes are the unpacked busybox + pause');
  const st = await cri.imageStatus({ image: { image: IMAGE } });
  assert.equal(st.image!.repo_tags[0], IMAGE);

  // hostNetwork sandbox: no CNI config is needed (and the hostname must be empty)
  const logDir = path.join(c.paths.podLogDir, 'default_h1_uid1');
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name: 'h1', uid: 'uid1', namespace: 'default', attempt: 0 },
    hostname: '',
    log_directory: logDir,
    labels: { 'io.kubernetes.pod.name': 'h1' },
    linux: {
      cgroup_parent: `/${cgroup}`,
      security_context: { namespace_options: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
    },
  };
  const r0 = performance.now();
  const { pod_sandbox_id: sandbox } = await cri.runPodSandbox({ config: sandboxConfig });
  sandboxes.push(sandbox);
  const r1 = performance.now();
  const { container_id: container } = await cri.createContainer({
    pod_sandbox_id: sandbox,
    sandbox_config: sandboxConfig,
    config: {
      metadata: { name: 'main', attempt: 0 },
      image: { image: docker.id },
      command: ['/bin/sh', '-c', 'echo started; exec sleep 3600'],
      envs: [{ key: 'GREETING', value: 'hi' }],
      log_path: 'main/0.log',
      linux: { resources: { cpu_shares: 256, memory_limit_in_bytes: 64 * 1024 * 1024 } },
    },
  });
  const r2 = performance.now();
  await cri.startContainer({ container_id: container });
  const r3 = performance.now();
  console.log(
    `# RunPodSandbox ${Math.round(r1 - r0)} ms, CreateContainer ${Math.round(r2 - r1)} ms, StartContainer ${Math.round(r3 - r2)} ms`,
  );

  const ps = await cri.podSandboxStatus({ pod_sandbox_id: sandbox });
  assert.equal(ps.status!.state, 'SANDBOX_READY');
  assert.equal(ps.status!.linux!.namespaces!.options!.network, 'NODE');
  assert.equal(ps.status!.metadata!.name, 'h1');
  const cs = (await cri.containerStatus({ container_id: container })).status!;
  assert.equal(cs.state, 'CONTAINER_RUNNING');
  assert.equal(cs.metadata!.name, 'main');
  assert.equal(cs.image_ref, docker.id);
  assert.ok(BigInt(cs.started_at) > 0n);
  assert.equal(cs.log_path, path.join(logDir, 'main/0.log'));
  const listed = await cri.listContainers({ filter: { pod_sandbox_id: sandbox } });
  assert.deepEqual(listed.containers.map((x) => x.id), [container]);

  const e0 = performance.now();
  const ex = await cri.execSync({ container_id: container, cmd: ['/bin/sh', '-c', 'echo $GREETING; echo oops >&2; exit 3'], timeout: 10 });
  console.log(`# ExecSync ${Math.round(performance.now() - e0)} ms`);
  assert.equal(ex.stdout.toString(), 'hi\n');
  assert.equal(ex.stderr.toString(), 'oops\n');
  assert.equal(ex.exit_code, 3);
  // the memory limit reached the container's cgroup (v1, under our parent)
  const limit = (await cri.execSync({ container_id: container, cmd: ['/bin/cat', '/sys/fs/cgroup/memory/memory.limit_in_bytes'] })).stdout;
  assert.equal(limit.toString().trim(), String(64 * 1024 * 1024));
  assert.ok(existsSync(`/sys/fs/cgroup/memory/${cgroup}`));
  // the log file is in CRI format
  const log = readFileSync(cs.log_path, 'utf8');
  assert.match(log, /^\d{4}-\d\d-\d\dT[\d:.]+Z stdout F started\n$/);

  // containerd dies and comes back: the container keeps running (its shim is a separate process)
  const restarted = new Promise((resolve) => c.onRestart(resolve));
  process.kill(c.pid!, 'SIGKILL');
  await restarted;
  await cri.waitReady(5000);
  const after = (await cri.containerStatus({ container_id: container })).status!;
  assert.equal(after.state, 'CONTAINER_RUNNING');
  assert.equal(after.started_at, cs.started_at, 'same process, not restarted');
  assert.equal((await cri.execSync({ container_id: container, cmd: ['/bin/echo', 'still here'] })).stdout.toString(), 'still here\n');

  await cri.stopContainer({ container_id: container, timeout: 1 });
  const stopped = (await cri.containerStatus({ container_id: container })).status!;
  assert.equal(stopped.state, 'CONTAINER_EXITED');
  assert.equal(stopped.exit_code, 143, 'stopped by SIGTERM within the timeout');
  const s0 = performance.now();
  await cri.stopPodSandbox({ pod_sandbox_id: sandbox });
  const s1 = performance.now();
  await cri.removePodSandbox({ pod_sandbox_id: sandbox });
  console.log(`# StopPodSandbox ${Math.round(s1 - s0)} ms, RemovePodSandbox ${Math.round(performance.now() - s1)} ms`);
  assert.deepEqual((await cri.listPodSandbox({})).items, []);
  assert.deepEqual((await cri.listContainers({})).containers, []);
  await assert.rejects(cri.containerStatus({ container_id: container }), (e: Error & { code?: number }) => e.code === 5);

  // runc leaves the parent cgroup behind (the kubelet removes pod cgroups); clean it and check nothing remains
  assert.deepEqual(removeCgroup(cgroup), []);
  assert.deepEqual(cgroupLeftovers(cgroup), []);
  assert.ok(!readdirSync('/run/netns').some((n) => n.includes(sandbox.slice(0, 12))), 'no netns for a hostNetwork pod');
});

// The kubelet's view of CRI pods: a relist racing the read that follows StartContainer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CriClient } from '../../../../src/runtime/cri-client.js';
import { CriPodState } from '../../../../src/kubelet/cri/pod-state.js';

const UID = 'uid-1';
const labels = { 'io.kubernetes.pod.uid': UID };
const status = (state: string) => ({
  status: { id: 'c1', metadata: { name: 'main', attempt: 0 }, labels, state, created_at: '1000000000', started_at: state === 'CONTAINER_RUNNING' ? '2000000000' : '0', image: { image: 'busybox' }, image_ref: 'sha256:x', log_path: '' },
});

describe('CriPodState', () => {
  it('a relist that read a container before it started keeps the running state a later refresh read', async () => {
    let releaseRelistRead!: (v: unknown) => void;
    let statusCalls = 0;
    const cri = {
      listPodSandbox: async () => ({ items: [{ id: 's1', labels, metadata: { uid: UID, attempt: 0 }, state: 'SANDBOX_READY', created_at: '1' }] }),
      listContainers: async () => ({ containers: [{ id: 'c1', labels, pod_sandbox_id: 's1', state: 'CONTAINER_CREATED' }] }),
      podSandboxStatus: async () => ({ status: { id: 's1', labels, metadata: { uid: UID }, state: 'SANDBOX_READY', network: { ip: '10.0.0.2', additional_ips: [] } } }),
      // the relist's read is answered late (created); the refresh after StartContainer at once (running)
      containerStatus: () => (++statusCalls === 1 ? new Promise((r) => (releaseRelistRead = r)) : Promise.resolve(status('CONTAINER_RUNNING'))),
    } as unknown as CriClient;
    const state = new CriPodState(cri);
    const relist = state.relist();
    while (statusCalls < 1) await new Promise((r) => setImmediate(r));
    await state.refreshContainer('c1', 's1');
    assert.equal(state.get(UID)!.containers[0]!.state, 'running');
    releaseRelistRead(status('CONTAINER_CREATED'));
    await relist;
    assert.equal(state.get(UID)!.containers.length, 1);
    assert.equal(state.get(UID)!.containers[0]!.state, 'running', 'the older read must not win');
  });
});

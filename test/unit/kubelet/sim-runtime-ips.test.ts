// Simulated sandboxes take addresses from the node's pod CIDR as host-local IPAM does: .0, .1 (the bridge) and the
// broadcast address are never given, addresses are handed out round-robin, a removed sandbox's address is free again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { SimRuntime } from '../../../src/kubelet/simulated/runtime.js';

const pod = (uid: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [] } }) as Pod;

describe('SimRuntime pod addresses', () => {
  it('hands out every usable address of the range once, round-robin, and reuses freed ones', async () => {
    const rt = new SimRuntime({ podCIDR: () => '10.9.0.0/29' });
    const ips: string[] = [];
    for (const uid of ['a', 'b', 'c', 'd', 'e']) {
      const r = await rt.ensureSandbox(pod(uid));
      assert.ok('ips' in r, JSON.stringify(r));
      ips.push(r.ips[0]!);
    }
    assert.deepEqual(ips, ['10.9.0.2', '10.9.0.3', '10.9.0.4', '10.9.0.5', '10.9.0.6']);
    const full = await rt.ensureSandbox(pod('f'));
    assert.deepEqual(full, { reason: 'FailedCreatePodSandBox', message: 'failed to allocate an IP address: range 10.9.0.0/29 is full' });
    rt.removePod('c');
    await rt.killPod(pod('a'), { gracePeriodSeconds: 0 });
    const g = await rt.ensureSandbox(pod('g'));
    assert.deepEqual(g, { ips: ['10.9.0.2'] }, 'the search goes on from the last address given, wrapping around');
    const h = await rt.ensureSandbox(pod('h'));
    assert.deepEqual(h, { ips: ['10.9.0.4'] });
    assert.equal(rt.podStatus('b')?.ips[0], '10.9.0.3', 'a sandbox keeps its address');
    rt.close();
  });
});

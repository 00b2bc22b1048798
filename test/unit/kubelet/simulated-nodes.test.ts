import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from '../../../src/api/core/node/resource.js';
import type { Lease } from '../../../src/api/coordination/index.js';
import type { KObject } from '../../../src/api/types.js';
import { goArch } from '../../../src/kubelet/node/status.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { simCluster } from './helpers.js';

const getNode = async (c: { client: { resource(a: string, p: string): { get(ns: string, n: string): Promise<KObject> } } }, name: string) =>
  (await c.client.resource('v1', 'nodes').get('', name)) as Node;

describe('simulated nodes', () => {
  it('registers Ready nodes with labels, addresses, capacity, nodeInfo, pod CIDRs and node events', async () => {
    const c = await simCluster({ count: 3 });
    try {
      const nodes = await c.waitFor('three nodes with pod CIDRs', async () => {
        const ns = await Promise.all(['k1s-sim-0', 'k1s-sim-1', 'k1s-sim-2'].map((n) => getNode(c, n)));
        return ns.every((n) => n.spec?.podCIDR) ? ns : undefined;
      });
      assert.deepEqual(nodes.map((n) => n.spec?.podCIDR).sort(), ['10.42.0.0/24', '10.42.1.0/24', '10.42.2.0/24']);
      assert.deepEqual(nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']), ['zone-a', 'zone-b', 'zone-c']);
      const n = nodes[0];
      assert.deepEqual(n.spec?.podCIDRs, [n.spec?.podCIDR]);
      assert.deepEqual(n.metadata.labels, {
        'beta.kubernetes.io/arch': goArch(),
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': goArch(),
        'kubernetes.io/hostname': 'k1s-sim-0',
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'k1s-sim',
        'topology.kubernetes.io/zone': 'zone-a',
      });
      assert.equal(n.metadata.annotations?.['k1s.dev/simulated'], 'true');
      const conds = (n.status?.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message]);
      assert.deepEqual(conds, [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ]);
      assert.deepEqual(n.status?.addresses, [{ type: 'InternalIP', address: '172.30.0.2' }, { type: 'Hostname', address: 'k1s-sim-0' }]);
      assert.equal(n.status?.capacity?.cpu, '32');
      assert.equal(n.status?.capacity?.memory, '256Gi');
      assert.equal(n.status?.capacity?.pods, '110');
      assert.equal(n.status?.allocatable?.memory, '262044Mi', 'allocatable memory keeps the 100Mi eviction threshold back');
      assert.equal(n.status?.nodeInfo?.kubeletVersion, 'v1.33.0');
      assert.equal(n.status?.nodeInfo?.operatingSystem, 'linux');
      assert.equal(n.status?.nodeInfo?.containerRuntimeVersion, 'k1s-sim://0.1.0');
      assert.deepEqual(n.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
      const events = await c.waitFor('node events', async () => {
        const list = await c.client.resource('v1', 'events').list('default');
        const mine = list.items.filter((e) => (e as unknown as { involvedObject: { name: string } }).involvedObject.name === 'k1s-sim-0') as unknown as { reason: string; message: string }[];
        return mine.length >= 5 ? mine : undefined;
      });
      assert.ok(events.some((e) => e.reason === 'NodeReady' && e.message === 'Node k1s-sim-0 status is now: NodeReady'));
      assert.ok(events.some((e) => e.reason === 'Starting' && e.message === 'Starting kubelet.'));
    } finally {
      await c.close();
    }
  });

  it('keeps a Lease in kube-node-lease owned by the Node and renews it', async () => {
    const c = await simCluster({ kubelet: { leaseRenewIntervalMs: 100 } });
    try {
      const rc = c.client.resource('coordination.k8s.io/v1', 'leases');
      const first = await c.waitFor('lease', async () => (await rc.get('kube-node-lease', 'k1s-sim-0')) as Lease);
      const node = await getNode(c, 'k1s-sim-0');
      assert.equal(first.spec?.holderIdentity, 'k1s-sim-0');
      assert.equal(first.spec?.leaseDurationSeconds, 40);
      await c.waitFor('lease owned by the node', async () => {
        const l = (await rc.get('kube-node-lease', 'k1s-sim-0')) as Lease;
        return (l.metadata as { ownerReferences?: { kind: string; name: string; uid: string }[] }).ownerReferences?.[0]?.uid === node.metadata.uid;
      });
      await c.waitFor('lease renewed', async () => {
        const l = (await rc.get('kube-node-lease', 'k1s-sim-0')) as Lease;
        return l.spec?.renewTime !== first.spec?.renewTime && l.metadata.resourceVersion !== first.metadata.resourceVersion;
      });
    } finally {
      await c.close();
    }
  });

  it('adopts Nodes created with k1s.dev/simulated: "true", stops them when the Node is deleted, and frees the pod CIDR', async () => {
    const c = await simCluster({ count: 1 });
    const nodes = c.client.resource('v1', 'nodes');
    try {
      await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'extra', annotations: { 'k1s.dev/simulated': 'true' } } } as KObject);
      const n = await c.waitFor('extra Ready with a CIDR', async () => {
        const n = await getNode(c, 'extra');
        return n.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' && n.spec?.podCIDR ? n : undefined;
      });
      assert.equal(n.spec?.podCIDR, '10.42.1.0/24');
      assert.equal(n.metadata.labels?.['kubernetes.io/hostname'], 'extra');
      assert.ok(c.nodes.kubelet('extra'));
      await nodes.delete('', 'extra');
      await c.waitFor('kubelet stopped', () => !c.nodes.kubelet('extra'));
      await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'plain' } } as KObject);
      const plain = await c.waitFor('plain CIDR', async () => (await getNode(c, 'plain')).spec?.podCIDR);
      assert.equal(plain, '10.42.1.0/24', 'the deleted node range is free again');
      assert.equal(c.nodes.kubelet('plain'), undefined, 'a Node without the annotation is not simulated');
      await c.nodes.remove('k1s-sim-0');
      await assert.rejects(getNode(c, 'k1s-sim-0'), (e) => e instanceof StatusError && e.code === 404);
    } finally {
      await c.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultNode, nodeResource, type Node } from '../../../../src/api/core/node/resource.js';
import { validateNode, validateNodeStatusUpdate, validateNodeUpdate } from '../../../../src/api/core/node/validation.js';
import { cluster, NOW, status, strings, ts, type Cluster } from './more-helpers.js';

const node = (extra: Partial<Node> = {}, labels?: Record<string, string>): Node => ({ metadata: { name: 'n1', labels }, ...extra });

describe('Node', () => {
  it('defaults allocatable to capacity and fills the always-present status fields', () => {
    const n = node({ status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' } } });
    defaultNode(n);
    assert.deepEqual(n.spec, {});
    assert.deepEqual(n.status?.allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
    assert.deepEqual(n.status?.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
    assert.deepEqual(Object.keys(n.status?.nodeInfo ?? {}), [
      'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture',
    ]);
  });

  it('validates taints under metadata.taints, resources and pod CIDRs', () => {
    const n = node({
      spec: {
        taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Sometimes' }, { key: 'c' }],
        podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'],
      },
      status: { capacity: { pods: '1.5', cpu: '-1' } },
    });
    assert.deepEqual(strings(validateNode(n)), [
      'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[3].effect: Required value',
      'status.capacity.pods: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer',
      'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family',
    ]);
  });

  it('keeps pod CIDRs, provider ID and external ID once set', () => {
    const old = node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'aws://i-1', externalID: 'x' } });
    const next = node({ spec: { podCIDRs: ['10.0.1.0/24'], providerID: 'aws://i-2' } });
    assert.deepEqual(strings(validateNodeUpdate(next, old)), [
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      'spec.externalID: Forbidden: may not be updated',
    ]);
    const st = node({ spec: {}, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] } });
    assert.deepEqual(strings(validateNodeStatusUpdate(st, node({ spec: {} }))), [
      'status.addresses[1]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}',
    ]);
  });

  it('prints status, roles and the wide columns', () => {
    const cells = (n: Node) => nodeResource.columns.map((c) => c.cell(ts(n) as Node, { now: NOW }));
    const ready = node(
      {
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }],
          nodeInfo: { kubeletVersion: 'v1.33.1', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.2' },
        },
      },
      { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': '', 'kubernetes.io/role': 'edge' },
    );
    assert.deepEqual(cells(ready), [
      'n1', 'Ready,SchedulingDisabled', 'control-plane,edge,master', '5m', 'v1.33.1', '10.0.0.5', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'containerd://1.7.2',
    ]);
    assert.deepEqual(cells(node({ status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } })).slice(1, 3), ['NotReady', '<none>']);
    assert.deepEqual(cells(node({ status: {} })).slice(1, 10), ['Unknown', '<none>', '5m', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    assert.deepEqual(nodeResource.shortNames, ['no']);
    assert.equal(nodeResource.namespaced, false);
  });

  describe('through the registry', () => {
    let c: Cluster;
    before(async () => {
      c = await cluster();
    });
    after(() => c.store.close());

    it('accepts status on create, keeps it on spec updates and selects by spec.unschedulable', async () => {
      const r = c.client.resource('v1', 'nodes');
      const created = await r.create('', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'k1s' },
        status: { capacity: { cpu: '2' }, conditions: [{ type: 'Ready', status: 'True' }] },
      });
      assert.deepEqual((created.status as Record<string, unknown>).allocatable, { cpu: '2' });
      const cordoned = await r.update('', { ...created, spec: { unschedulable: true }, status: {} });
      assert.deepEqual((cordoned.status as Record<string, unknown>).conditions, [{ type: 'Ready', status: 'True' }]);
      const st = await r.update('', { ...cordoned, status: { ...(cordoned.status as object), conditions: [{ type: 'Ready', status: 'False' }] } }, { subresource: 'status' });
      assert.deepEqual((st.status as Record<string, unknown>).conditions, [{ type: 'Ready', status: 'False' }]);
      assert.deepEqual((await r.list('', { fieldSelector: 'spec.unschedulable=true' })).items.map((i) => i.metadata.name), ['k1s']);
      assert.deepEqual((await r.list('', { fieldSelector: 'spec.unschedulable=false' })).items, []);
      await assert.rejects(
        r.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bad' }, spec: { taints: [{ key: 'k', effect: 'Never' }] } }),
        status(422, 'Node "bad" is invalid: metadata.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
      );
    });
  });
});

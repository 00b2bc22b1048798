import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstFreeSubnet, nodeIpamController, subnetAt } from '../../../src/controllers/node-ipam.js';
import type { Node } from '../../../src/api/core/node/resource.js';
import type { KObject } from '../../../src/api/types.js';
import { controllerCluster } from '../controllers/harness.js';

describe('node IPAM', () => {
  it('picks the first free subnet of the cluster CIDR', () => {
    assert.equal(subnetAt('10.42.0.0/16', 24, 0), '10.42.0.0/24');
    assert.equal(subnetAt('10.42.0.0/16', 24, 255), '10.42.255.0/24');
    assert.equal(firstFreeSubnet('10.42.0.0/16', 24, new Set(['10.42.0.0/24', '10.42.2.0/24'])), '10.42.1.0/24');
    assert.equal(firstFreeSubnet('10.0.0.0/23', 24, new Set(['10.0.0.0/24', '10.0.1.0/24'])), undefined);
    assert.equal(firstFreeSubnet('10.0.0.0/16', 26, new Set(['10.0.0.0/26'])), '10.0.0.64/26');
  });

  it('gives every Node a distinct range and reports when none is left', async () => {
    const c = await controllerCluster([nodeIpamController({ clusterCIDR: '10.9.0.0/23', nodeMaskSize: 24 })]);
    const rc = c.client.resource('v1', 'nodes');
    try {
      for (const n of ['a', 'b', 'c']) await rc.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: n } } as KObject);
      const cidrs = await c.waitFor('two ranges', async () => {
        const l = (await rc.list('')).items as Node[];
        const got = l.map((n) => n.spec?.podCIDR).filter(Boolean);
        return got.length === 2 ? got.sort() : undefined;
      });
      assert.deepEqual(cidrs, ['10.9.0.0/24', '10.9.1.0/24']);
      const event = await c.waitFor('CIDRNotAvailable', async () =>
        (await c.client.resource('v1', 'events').list('default')).items.find((e) => (e as unknown as { reason: string }).reason === 'CIDRNotAvailable'),
      );
      const waiting = ((await rc.list('')).items as Node[]).find((n) => !n.spec?.podCIDR)!;
      assert.equal((event as unknown as { message: string }).message, `Node ${waiting.metadata.name} status is now: CIDRNotAvailable`);
      const holder = ((await rc.list('')).items as Node[]).find((n) => n.spec?.podCIDR === '10.9.0.0/24')!;
      await rc.delete('', holder.metadata.name!);
      const got = await c.waitFor('freed range reused', async () => (await rc.get('', waiting.metadata.name!) as Node).spec?.podCIDR, 5000);
      assert.equal(got, '10.9.0.0/24');
    } finally {
      await c.close();
    }
  });
});

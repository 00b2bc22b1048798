import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { InformerFactory } from '../../../src/client/informer.js';
import { informerLookups } from '../../../src/scheduler/cluster-lookups.js';
import { Scheduler } from '../../../src/scheduler/scheduler.js';
import type { ControllerFactory } from '../../../src/client/controller.js';
import { controllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod } from './fixtures.js';

const ZONE = 'topology.kubernetes.io/zone';
const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } } as unknown as KObject;

/** The scheduler with the informer-backed lookups wired the way the lead is asked to in setup(). */
const wiredScheduler: ControllerFactory = (ctx) => {
  const s = new Scheduler(ctx);
  const setup = s.setup.bind(s);
  s.setup = () => {
    setup();
    s.cache.lookups = informerLookups(ctx.informers);
  };
  return s;
};

describe('cluster lookups for PodTopologySpread / InterPodAffinity', () => {
  it('reads namespace labels and the default spread selector from informers', async () => {
    const c = await controllerCluster([]);
    const informers = new InformerFactory(c.client);
    try {
      await c.client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } } as KObject);
      await c.client.resource('v1', 'services').create('default', service);
      const lookups = informerLookups(informers);
      await informers.start();
      await c.waitFor('informers synced', () => lookups.namespaceLabels!('team-a')?.team === 'a');
      assert.equal(lookups.namespaceLabels!('team-a')?.['kubernetes.io/metadata.name'], 'team-a');
      const p = pod('w');
      p.metadata.labels = { app: 'web', extra: 'x' };
      const sel = lookups.defaultSpreadSelector!(p)!;
      assert.ok(sel.matches({ app: 'web' }));
      assert.ok(!sel.matches({ app: 'api' }));
      const other = pod('o');
      other.metadata.labels = { app: 'api' };
      assert.equal(lookups.defaultSpreadSelector!(other), undefined);
    } finally {
      informers.stop();
      await c.close();
    }
  });

  it('spreads a Service\'s pods over zones by the system default constraints', async () => {
    const c = await controllerCluster([wiredScheduler]);
    try {
      await c.client.resource('v1', 'services').create('default', service);
      for (const [n, z] of [['a1', 'zoneA'], ['a2', 'zoneA'], ['b1', 'zoneB']]) await c.client.resource('v1', 'nodes').create('', node(n, { labels: { [ZONE]: z } }));
      // one at a time, so each decision sees the previous ones
      for (let i = 0; i < 4; i++) {
        const p = pod(`web-${i}`);
        p.metadata.labels = { app: 'web' };
        await c.client.resource('v1', 'pods').create('default', p);
        await c.waitFor(`web-${i} bound`, async () => nodeNameOf(await c.client.resource('v1', 'pods').get('default', `web-${i}`)));
      }
      const items = (await c.client.resource('v1', 'pods').list('default')).items;
      const on = (n: string) => items.filter((p) => nodeNameOf(p) === n).length;
      // hostname spreading puts one on each node, zone spreading sends the fourth to the lone zoneB node
      assert.deepEqual([on('a1'), on('a2'), on('b1')], [1, 1, 2]);
    } finally {
      await c.close();
    }
  });
});

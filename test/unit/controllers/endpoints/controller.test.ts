import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Endpoints } from '../../../../src/api/core/endpoints.js';
import type { KObject } from '../../../../src/api/types.js';
import { endpointsController, truncateSubsets } from '../../../../src/controllers/endpoints/controller.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { createNode, createPod, NS, readyPod, releasePod, runPod, service, setReady, terminatingPod } from './fixtures.js';

describe('endpoints controller', () => {
  let c: ControllerCluster;
  const eps = () => c.client.resource('v1', 'endpoints');
  const getEp = async (name: string) => (await eps().get(NS, name).catch(() => undefined)) as Endpoints | undefined;
  const ips = (l?: { ip?: string }[] | null) => (l ?? []).map((a) => a.ip).sort();

  before(async () => {
    c = await controllerCluster([endpointsController()]);
    await createNode(c.client, 'node-a');
  });
  after(async () => c.close());

  it('lists ready and not-ready addresses with named ports resolved per pod', async () => {
    await c.client.resource('v1', 'services').create(NS, service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] }, { team: 'a' }));
    await readyPod(c.client, 'web-1', '10.1.0.1', { ports: [{ name: 'http', containerPort: 8080 }] });
    await readyPod(c.client, 'web-2', '10.1.0.2', { ports: [{ name: 'http', containerPort: 9090 }] });
    await readyPod(c.client, 'web-3', '10.1.0.3', { ports: [{ name: 'http', containerPort: 8080 }], ready: false });
    // no container port named http: left out
    await readyPod(c.client, 'web-4', '10.1.0.4', { ports: [{ name: 'other', containerPort: 8080 }] });
    // not running yet (no IP): left out
    await createPod(c.client, 'web-5');

    const ep = await c.waitFor('three addresses', async () => {
      const e = await getEp('web');
      const n = (e?.subsets ?? []).reduce((k, s) => k + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
      return n === 3 && e;
    });
    assert.equal(ep.metadata.labels?.team, 'a');
    assert.equal(ep.metadata.labels?.['service.kubernetes.io/headless'], undefined);
    const s8080 = ep.subsets!.find((s) => s.ports?.[0]?.port === 8080)!;
    const s9090 = ep.subsets!.find((s) => s.ports?.[0]?.port === 9090)!;
    assert.deepEqual(ips(s8080.addresses), ['10.1.0.1']);
    assert.deepEqual(ips(s8080.notReadyAddresses), ['10.1.0.3']);
    assert.deepEqual(ips(s9090.addresses), ['10.1.0.2']);
    assert.deepEqual(s8080.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const a = s8080.addresses![0];
    assert.equal(a.nodeName, 'node-a');
    assert.deepEqual({ ...a.targetRef, uid: undefined, resourceVersion: undefined }, { kind: 'Pod', namespace: NS, name: 'web-1', uid: undefined, resourceVersion: undefined });

    // a new Service's first sync is triggered by its creation (or an earlier pod Ready transition)
    const svc2 = await c.client.resource('v1', 'services').create(NS, service('web-again', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }));
    const ep2 = await c.waitFor('web-again endpoints', () => getEp('web-again'));
    const readyTimes = await Promise.all(['web-1', 'web-2', 'web-3', 'web-4'].map(async (n) => {
      const p = await c.client.resource('v1', 'pods').get(NS, n);
      return (p.status as { conditions: { type: string; lastTransitionTime: string }[] }).conditions.find((x) => x.type === 'Ready')!.lastTransitionTime;
    }));
    const earliest = [svc2.metadata.creationTimestamp!, ...readyTimes].sort()[0];
    assert.equal(ep2.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], earliest);

    // readiness moves the address
    await setReady(c.client, 'web-3', true);
    await c.waitFor('web-3 ready', async () => {
      const e = await getEp('web');
      return ips(e?.subsets?.find((s) => s.ports?.[0]?.port === 8080)?.addresses).join() === '10.1.0.1,10.1.0.3';
    });
  });

  it('drops terminating pods unless publishNotReadyAddresses, which also lists unready pods as ready', async () => {
    await c.client.resource('v1', 'services').create(NS, service('term', { selector: { app: 'term' }, ports: [{ port: 80, targetPort: 8080 }] }));
    await c.client.resource('v1', 'services').create(NS, service('term-all', { selector: { app: 'term' }, publishNotReadyAddresses: true, ports: [{ port: 80, targetPort: 8080 }] }));
    await readyPod(c.client, 'term-1', '10.2.0.1', { labels: { app: 'term' } });
    await readyPod(c.client, 'term-2', '10.2.0.2', { labels: { app: 'term' }, ready: false });
    await terminatingPod(c.client, 'term-3', '10.2.0.3', { labels: { app: 'term' } });
    try {
      const ep = await c.waitFor('term endpoints', async () => {
        const e = await getEp('term');
        return ips(e?.subsets?.[0]?.addresses).join() === '10.2.0.1' && ips(e?.subsets?.[0]?.notReadyAddresses).join() === '10.2.0.2' && e;
      });
      assert.equal(ep.subsets!.length, 1);
      assert.deepEqual(ep.subsets![0].ports, [{ name: '', port: 8080, protocol: 'TCP' }]);
      await c.waitFor('term-all lists every pod as ready', async () => {
        const e = await getEp('term-all');
        return ips(e?.subsets?.[0]?.addresses).join() === '10.2.0.1,10.2.0.2,10.2.0.3' && !e?.subsets?.[0]?.notReadyAddresses?.length;
      });
    } finally {
      await releasePod(c.client, 'term-3');
    }
  });

  it('headless Services get the label and hostnames of pods in their subdomain; no ports are needed', async () => {
    await c.client.resource('v1', 'services').create(NS, service('db', { clusterIP: 'None', selector: { app: 'db' } }));
    await readyPod(c.client, 'db-0', '10.3.0.1', { labels: { app: 'db' }, hostname: 'db-0', subdomain: 'db' });
    await readyPod(c.client, 'db-1', '10.3.0.2', { labels: { app: 'db' }, hostname: 'db-1', subdomain: 'other' });
    const ep = await c.waitFor('db endpoints', async () => {
      const e = await getEp('db');
      return ips(e?.subsets?.[0]?.addresses).join() === '10.3.0.1,10.3.0.2' && e;
    });
    assert.equal(ep.metadata.labels?.['service.kubernetes.io/headless'], '');
    assert.equal(ep.subsets![0].ports, undefined);
    const byIp = new Map(ep.subsets![0].addresses!.map((a) => [a.ip, a]));
    assert.equal(byIp.get('10.3.0.1')!.hostname, 'db-0');
    assert.equal(byIp.get('10.3.0.2')!.hostname, undefined);
  });

  it('leaves Services without a selector alone and deletes Endpoints with their Service', async () => {
    await c.client.resource('v1', 'services').create(NS, service('manual', { ports: [{ port: 80 }] }));
    await eps().create(NS, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual', namespace: NS }, subsets: [{ addresses: [{ ip: '192.168.1.1' }], ports: [{ port: 80 }] }] } as KObject);
    await c.client.resource('v1', 'services').create(NS, service('gone', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }));
    await c.waitFor('gone endpoints', () => getEp('gone'));
    await c.client.resource('v1', 'services').delete(NS, 'gone');
    await c.waitFor('gone endpoints deleted', async () => !(await getEp('gone')));
    const manual = await getEp('manual');
    assert.deepEqual(ips(manual?.subsets?.[0]?.addresses), ['192.168.1.1']);
  });

  it('truncates past 1000 addresses, ready ones first, proportionally per subset', () => {
    const addrs = (n: number, base: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.9.${Math.floor((base + i) / 250)}.${(base + i) % 250}` }));
    const subsets = [
      { addresses: addrs(600, 0), notReadyAddresses: addrs(50, 600), ports: [{ port: 80 }] },
      { addresses: addrs(300, 700), notReadyAddresses: addrs(100, 1000), ports: [{ port: 81 }] },
    ];
    assert.equal(truncateSubsets(subsets), true);
    assert.deepEqual(subsets.map((s) => [s.addresses.length, s.notReadyAddresses.length]), [[600, 34], [300, 66]]);
    assert.equal(truncateSubsets([{ addresses: addrs(10, 0) }]), false);
  });

  it('annotates over-capacity Endpoints as truncated', async () => {
    await c.client.resource('v1', 'services').create(NS, service('big', { selector: { app: 'big' }, ports: [{ port: 80, targetPort: 8080 }] }));
    // a pod with many IPs is impossible; make 1001 by running pods fast in parallel batches
    const total = 1001;
    for (let i = 0; i < total; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, total - i) }, async (_, j) => {
          const n = i + j;
          const pod = await createPod(c.client, `big-${n}`, { labels: { app: 'big' } });
          await runPod(c.client, pod, { ip: `10.8.${Math.floor(n / 250)}.${(n % 250) + 1}` });
        }),
      );
    }
    const ep = await c.waitFor(
      'truncated',
      async () => {
        const e = await getEp('big');
        return e?.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'] === 'truncated' && e;
      },
      20_000,
    );
    assert.equal(ep.subsets![0].addresses!.length, 1000);
  });
});

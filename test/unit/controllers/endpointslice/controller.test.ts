import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EndpointSlice } from '../../../../src/api/discovery/endpointslice/validation.js';
import type { KObject } from '../../../../src/api/types.js';
import { endpointSliceController } from '../../../../src/controllers/endpointslice/controller.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { createNode, createPod, NS, readyPod, releasePod, runPod, service, setReady, terminatingPod } from '../endpoints/fixtures.js';

describe('endpointslice controller', () => {
  let c: ControllerCluster;
  const slicesOf = async (svc: string) =>
    (await c.client.resource('discovery.k8s.io/v1', 'endpointslices').list(NS, { labelSelector: `kubernetes.io/service-name=${svc}` })).items as EndpointSlice[];
  const count = (slices: EndpointSlice[]) => slices.reduce((n, s) => n + (s.endpoints?.length ?? 0), 0);
  const byPod = (slices: EndpointSlice[]) => new Map(slices.flatMap((s) => (s.endpoints ?? []).map((e) => [String(e.targetRef?.name), { ...e, ports: s.ports }])));

  before(async () => {
    c = await controllerCluster([endpointSliceController()]);
    await createNode(c.client, 'node-a', 'zone-a');
    await createNode(c.client, 'node-b', 'zone-b');
  });
  after(async () => c.close());

  it('writes endpoints with 1.33 conditions, node, zone, hostname and target; pods grouped by resolved ports', async () => {
    const svc = await c.client.resource('v1', 'services').create(NS, service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] }, { team: 'a' }));
    await readyPod(c.client, 'web-1', '10.1.0.1', { ports: [{ name: 'http', containerPort: 8080 }], hostname: 'web-1', subdomain: 'web' });
    await readyPod(c.client, 'web-2', '10.1.0.2', { ports: [{ name: 'http', containerPort: 8080 }], nodeName: 'node-b', ready: false });
    await readyPod(c.client, 'web-3', '10.1.0.3', { ports: [{ name: 'http', containerPort: 9090 }] });
    await terminatingPod(c.client, 'web-4', '10.1.0.4', { ports: [{ name: 'http', containerPort: 8080 }] });
    try {
      const slices = await c.waitFor('four endpoints', async () => {
        const s = await slicesOf('web');
        const eps = byPod(s);
        return eps.size === 4 && eps.get('web-4')?.conditions?.terminating === true && eps.get('web-1')?.addresses?.[0] === '10.1.0.1' && s;
      });
      assert.equal(slices.length, 2, 'one slice per resolved port set');
      for (const s of slices) {
        assert.ok(s.metadata.name!.startsWith('web-'));
        assert.equal(s.metadata.generateName, 'web-');
        assert.equal(s.addressType, 'IPv4');
        assert.deepEqual(s.metadata.labels, { team: 'a', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
        assert.deepEqual(s.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      }
      const eps = byPod(slices);
      const w1 = eps.get('web-1')!;
      assert.deepEqual(w1.conditions, { ready: true, serving: true, terminating: false });
      assert.equal(w1.nodeName, 'node-a');
      assert.equal(w1.zone, 'zone-a');
      assert.equal(w1.hostname, 'web-1');
      assert.deepEqual(w1.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
      assert.deepEqual({ ...w1.targetRef, uid: undefined }, { kind: 'Pod', namespace: NS, name: 'web-1', uid: undefined });
      assert.deepEqual(eps.get('web-2')!.conditions, { ready: false, serving: false, terminating: false });
      assert.equal(eps.get('web-2')!.zone, 'zone-b');
      assert.deepEqual(eps.get('web-3')!.ports, [{ name: 'http', port: 9090, protocol: 'TCP' }]);
      // terminating: kept, never ready, serving as its readiness says
      assert.deepEqual(eps.get('web-4')!.conditions, { ready: false, serving: true, terminating: true });

      await setReady(c.client, 'web-2', true);
      await c.waitFor('web-2 ready', async () => byPod(await slicesOf('web')).get('web-2')?.conditions?.ready === true);
    } finally {
      await releasePod(c.client, 'web-4');
    }
    await c.waitFor('web-4 gone', async () => !byPod(await slicesOf('web')).has('web-4'));
  });

  it('a Service without pods has one empty placeholder slice, reused when pods come', async () => {
    await c.client.resource('v1', 'services').create(NS, service('empty', { selector: { app: 'empty' }, ports: [{ port: 80, targetPort: 8080 }] }));
    const [placeholder] = await c.waitFor('placeholder', async () => {
      const s = await slicesOf('empty');
      return s.length === 1 && s;
    });
    assert.deepEqual(placeholder.endpoints ?? [], []);
    assert.deepEqual(placeholder.ports ?? [], []);
    await readyPod(c.client, 'empty-1', '10.4.0.1', { labels: { app: 'empty' } });
    const [filled] = await c.waitFor('filled', async () => {
      const s = await slicesOf('empty');
      return s.length === 1 && s[0].endpoints?.[0]?.addresses?.[0] === '10.4.0.1' && s;
    });
    assert.equal(filled.metadata.name, placeholder.metadata.name, 'the placeholder is updated, not replaced');
    assert.deepEqual(filled.ports, [{ name: '', port: 8080, protocol: 'TCP' }]);
  });

  it('packs 250 pods into 3 slices of at most 100 and changes as few slices as it can', async () => {
    const ip = (n: number) => `10.5.${Math.floor(n / 200)}.${(n % 200) + 1}`;
    for (let i = 0; i < 250; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => readyPod(c.client, `many-${i + j}`, ip(i + j), { labels: { app: 'many' } })));
    }
    await c.client.resource('v1', 'services').create(NS, service('many', { selector: { app: 'many' }, ports: [{ port: 80, targetPort: 8080 }] }));
    const slices = await c.waitFor('250 endpoints', async () => {
      const s = await slicesOf('many');
      return count(s) === 250 && s;
    });
    assert.deepEqual(slices.map((s) => s.endpoints!.length).sort((a, b) => a - b), [50, 100, 100]);

    // one pod goes: only its slice changes
    const victim = slices.find((s) => s.endpoints!.length === 100)!;
    const victimPod = String(victim.endpoints![0].targetRef!.name);
    await c.client.resource('v1', 'pods').delete(NS, victimPod, { gracePeriodSeconds: 0 });
    const after1 = await c.waitFor('249 endpoints', async () => {
      const s = await slicesOf('many');
      return count(s) === 249 && s;
    });
    const rv = new Map(slices.map((s) => [s.metadata.name, s.metadata.resourceVersion]));
    const changed = after1.filter((s) => rv.get(s.metadata.name) !== s.metadata.resourceVersion).map((s) => s.metadata.name);
    assert.deepEqual(changed, [victim.metadata.name]);

    // a new pod goes to the slice it fills best (the one with 99), no new slice
    await readyPod(c.client, 'many-new', '10.5.9.9', { labels: { app: 'many' } });
    const after2 = await c.waitFor('250 endpoints again', async () => {
      const s = await slicesOf('many');
      return count(s) === 250 && s;
    });
    assert.equal(after2.length, 3);
    assert.equal(byPod([after2.find((s) => s.metadata.name === victim.metadata.name)!]).has('many-new'), true);
  });

  it('honours maxEndpointsPerSlice and publishNotReadyAddresses', async () => {
    const c2 = await controllerCluster([endpointSliceController({ maxEndpointsPerSlice: 2 })]);
    try {
      await createNode(c2.client, 'node-a');
      await c2.client.resource('v1', 'services').create(NS, service('pub', { selector: { app: 'pub' }, publishNotReadyAddresses: true, ports: [{ port: 80 }] }));
      for (let i = 0; i < 3; i++) {
        const pod = await createPod(c2.client, `pub-${i}`, { labels: { app: 'pub' } });
        await runPod(c2.client, pod, { ip: `10.6.0.${i + 1}`, ready: false });
      }
      const slices = await c2.waitFor('3 endpoints in 2 slices', async () => {
        const s = (await c2.client.resource('discovery.k8s.io/v1', 'endpointslices').list(NS)).items as EndpointSlice[];
        return count(s) === 3 && s.length === 2 && s;
      });
      for (const e of slices.flatMap((s) => s.endpoints ?? [])) assert.deepEqual(e.conditions, { ready: true, serving: false, terminating: false });
    } finally {
      await c2.close();
    }
  });

  it('leaves out pods on unknown nodes until the node appears, then takes its zone', async () => {
    await c.client.resource('v1', 'services').create(NS, service('late', { selector: { app: 'late' }, ports: [{ port: 80 }] }));
    await readyPod(c.client, 'late-1', '10.6.1.1', { labels: { app: 'late' } });
    await readyPod(c.client, 'late-2', '10.6.1.2', { labels: { app: 'late' }, nodeName: 'node-late' });
    await c.waitFor('late-1 only', async () => [...byPod(await slicesOf('late')).keys()].join() === 'late-1');
    await c.waitFor('FailedToUpdateEndpointSlices', async () => {
      const evs = (await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; message: string })[];
      return evs.some((e) => e.reason === 'FailedToUpdateEndpointSlices' && e.message.includes('skipping Pod late-2 for Service default/late: Node node-late Not Found'));
    });
    await createNode(c.client, 'node-late', 'zone-late');
    await c.waitFor('late-2 with its zone', async () => byPod(await slicesOf('late')).get('late-2')?.zone === 'zone-late');
    // a zone change follows
    await c.client.resource('v1', 'nodes').patch('', 'node-late', 'merge', { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-moved' } } });
    await c.waitFor('late-2 moved', async () => byPod(await slicesOf('late')).get('late-2')?.zone === 'zone-moved');
  });

  it('replaces slices of a Service created again under the same name', async () => {
    await c.client.resource('v1', 'services').create(NS, service('again', { selector: { app: 'again' }, ports: [{ port: 80 }] }));
    await c.waitFor('placeholder', async () => (await slicesOf('again')).length === 1);
    await c.client.resource('v1', 'services').delete(NS, 'again');
    const svc2 = await c.client.resource('v1', 'services').create(NS, service('again', { selector: { app: 'again' }, ports: [{ port: 80 }] }));
    // without a garbage collector the old slice stays until this controller, not owning it, removes it
    await c.waitFor('only the new Service owns slices', async () => {
      const s = await slicesOf('again');
      return s.length === 1 && (s[0].metadata.ownerReferences as { uid: string }[])[0].uid === svc2.metadata.uid;
    });
  });
});

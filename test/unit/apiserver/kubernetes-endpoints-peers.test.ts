// The `kubernetes` Endpoints with several API servers (kube's "lease" endpoint reconciler): every server whose
// identity Lease is live is listed, sorted; one whose Lease runs out is dropped at that moment; one that stops takes
// itself out. Real in-process k1s, real Leases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../src/api/types.js';
import { ApiServerIdentity, identityLeaseName, liveApiServers, parseAddress, formatAddress } from '../../../src/controllers/apiserver-identity.js';
import { KubernetesEndpoints, desiredEndpoints, desiredEndpointSlices } from '../../../src/controllers/kubernetes-endpoints.js';
import { rfc3339Micro } from '../../../src/machinery/object.js';
import { controllerCluster } from '../controllers/harness.js';

type Ep = KObject & { subsets?: { addresses?: { ip: string }[]; ports: { name: string; port: number }[] }[] };

test('Endpoints and EndpointSlices of several servers: sorted, packed by port, one slice per port and family', () => {
  const addrs = [{ ip: '10.0.0.10', port: 6443 }, { ip: '10.0.0.9', port: 6443 }, { ip: '10.0.0.9', port: 6443 }];
  // duplicates dropped, addresses in the order the Endpoints API keeps them (as strings)
  assert.deepEqual(desiredEndpoints(addrs).subsets, [{ addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.9' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
  // one machine, three ports: one address serving all three (as the Endpoints API packs it), port names unique
  const oneHost = [6445, 6443, 6444].map((port) => ({ ip: '192.0.2.2', port }));
  assert.deepEqual(desiredEndpoints(oneHost).subsets, [{
    addresses: [{ ip: '192.0.2.2' }],
    ports: [{ name: 'https', port: 6443, protocol: 'TCP' }, { name: 'https-6444', port: 6444, protocol: 'TCP' }, { name: 'https-6445', port: 6445, protocol: 'TCP' }],
  }]);
  const slices = desiredEndpointSlices(oneHost);
  assert.deepEqual(slices.map((s) => [s.metadata.name, (s.ports as { port: number }[])[0]!.port]), [['kubernetes', 6443], ['kubernetes-6444', 6444], ['kubernetes-6445', 6445]]);
  assert.deepEqual(desiredEndpointSlices([{ ip: 'fd00::2', port: 6443 }, { ip: '10.0.0.1', port: 6443 }]).map((s) => [s.metadata.name, s.addressType]), [['kubernetes', 'IPv4'], ['kubernetes-6443-ipv6', 'IPv6']]);
  assert.deepEqual(parseAddress(formatAddress({ ip: 'fd00::2', port: 6443 })), { ip: 'fd00::2', port: 6443 });
  assert.equal(identityLeaseName('host', { ip: '10.0.0.1', port: 6443 }), identityLeaseName('host', { ip: '10.0.0.1', port: 6443 }));
  assert.notEqual(identityLeaseName('host', { ip: '10.0.0.1', port: 6443 }), identityLeaseName('host', { ip: '10.0.0.1', port: 6444 }));
  assert.match(identityLeaseName('host', { ip: '10.0.0.1', port: 6443 }), /^apiserver-[a-z2-7]{26}$/);
});

test('every live server is listed; a killed one drops out when its Lease runs out; a stopped one takes itself out', async (t) => {
  const c = await controllerCluster([]);
  const a = { ip: '10.0.0.1', port: 6443 };
  const b = { ip: '10.0.0.2', port: 6443 };
  const idA = new ApiServerIdentity({ client: c.client, hostname: 'a', address: a });
  const idB = new ApiServerIdentity({ client: c.client, hostname: 'b', address: b });
  // the reconciler's interval is long: the drop below comes from the pass scheduled at the Lease's expiry
  const recA = new KubernetesEndpoints({ client: c.client, address: a, peers: () => liveApiServers(c.client), intervalMs: 60_000 });
  t.after(async () => {
    await recA.stop();
    await idA.stop();
    await c.close();
  });
  // a server advertising a loopback address has a Lease but stays out of the Endpoints (kube's validation)
  const idL = new ApiServerIdentity({ client: c.client, hostname: 'l', address: { ip: '127.0.0.1', port: 6443 } });
  await Promise.all([idA.start(), idB.start(), idL.start()]);
  t.after(() => idL.stop());
  assert.equal((await liveApiServers(c.client)).length, 3);
  const leases = c.client.resource('coordination.k8s.io/v1', 'leases');
  const lease = (await leases.get('kube-system', idB.name)) as KObject & { spec: { holderIdentity: string; leaseDurationSeconds: number } };
  assert.equal(lease.metadata.labels?.['apiserver.kubernetes.io/identity'], 'kube-apiserver');
  assert.equal(lease.metadata.labels?.['kubernetes.io/hostname'], 'b');
  assert.equal(lease.metadata.annotations?.['k1s.dev/advertise-address'], '10.0.0.2:6443');
  assert.equal(lease.spec.holderIdentity, idB.holderIdentity);
  assert.equal(lease.spec.leaseDurationSeconds, 15);

  await recA.start();
  const eps = c.client.resource('v1', 'endpoints');
  const ips = async () => ((await eps.get('default', 'kubernetes')) as Ep).subsets!.flatMap((s) => s.addresses!.map((x) => x.ip));
  assert.deepEqual(await ips(), ['10.0.0.1', '10.0.0.2']);

  // B is "killed": it stops renewing, and its Lease is made to run out in a second
  await idB.stopRenewing();
  const cur = (await leases.get('kube-system', idB.name)) as KObject & { spec: Record<string, unknown> };
  await leases.update('kube-system', { ...cur, spec: { ...cur.spec, leaseDurationSeconds: 1, renewTime: rfc3339Micro(Date.now()) } });
  await recA.reconcile(); // sees B's Lease run out in 1 s
  const t0 = Date.now();
  await c.waitFor('B dropped', async () => JSON.stringify(await ips()) === JSON.stringify(['10.0.0.1']), 5000);
  assert.ok(Date.now() - t0 < 3000, `dropped after ${Date.now() - t0} ms`);

  // a stopping server: its Lease is deleted, and it takes itself out while another is live
  const idC = new ApiServerIdentity({ client: c.client, hostname: 'c', address: { ip: '10.0.0.3', port: 6443 } });
  await idC.start();
  const recC = new KubernetesEndpoints({ client: c.client, address: { ip: '10.0.0.3', port: 6443 }, peers: () => liveApiServers(c.client), intervalMs: 60_000 });
  await recC.start();
  assert.deepEqual(await ips(), ['10.0.0.1', '10.0.0.3']);
  await recC.stop();
  await idC.stop();
  await assert.rejects(leases.get('kube-system', idC.name), /not found/);
  await recC.removeSelf();
  assert.deepEqual(await ips(), ['10.0.0.1']);
  const rv = ((await eps.get('default', 'kubernetes')) as KObject).metadata.resourceVersion;
  await recA.reconcile();
  assert.equal(((await eps.get('default', 'kubernetes')) as KObject).metadata.resourceVersion, rv, 'an unchanged pass writes nothing');
});

// Cluster names answered by the DNS server from a real in-process API, over real UDP on 127.0.0.1: what CoreDNS'
// kubernetes plugin answers for Services, headless Services, endpoints, SRV, ExternalName, pods and PTR, and its
// NXDOMAIN vs NODATA split.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dataOf, dnsCluster, namespace, query, service, slice, until, type DnsCluster } from './fixtures.js';

let c: DnsCluster;
let webIP = '';
const Z = 'cluster.local';

before(async () => {
  c = await dnsCluster();
  await c.apply(namespace('app'));
  const web = await c.apply(service('app', 'web', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] }));
  webIP = (web.spec as { clusterIP: string }).clusterIP;
  await c.apply(slice('app', 'web', 'web-1', [
    { addresses: ['10.42.0.5'], conditions: { ready: true } },
    { addresses: ['10.42.0.6'], conditions: { ready: false } },
  ], [{ name: 'http', port: 8080, protocol: 'TCP' }]));
  await c.apply(service('app', 'db', { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] }));
  await c.apply(slice('app', 'db', 'db-1', [
    { addresses: ['10.42.1.1'], hostname: 'db-0', conditions: { ready: true } },
    { addresses: ['10.42.1.2'], hostname: 'db-1', conditions: { ready: true } },
    { addresses: ['10.42.1.3'], hostname: 'db-2', conditions: { ready: false } },
  ], [{ name: 'pg', port: 5432, protocol: 'TCP' }]));
  await c.apply(service('app', 'pnr', { clusterIP: 'None', selector: { app: 'pnr' }, publishNotReadyAddresses: true, ports: [{ port: 80 }] }));
  await c.apply(slice('app', 'pnr', 'pnr-1', [{ addresses: ['10.42.2.1'], conditions: { ready: false } }], [{ name: '', port: 80, protocol: 'TCP' }]));
  await c.apply(service('app', 'empty', { clusterIP: 'None', selector: { app: 'none' }, ports: [{ port: 80 }] }));
  await c.apply(service('app', 'ext', { type: 'ExternalName', externalName: 'web.app.svc.cluster.local' }));
  await c.apply(service('app', 'v6', { clusterIP: 'None', selector: { app: 'v6' }, ports: [{ port: 80 }] }));
  await c.apply(slice('app', 'v6', 'v6-1', [{ addresses: ['fd00:42::5'], hostname: 'six', conditions: { ready: true } }], [], 'IPv6'));
  await until(c.port, `six.v6.app.svc.${Z}`, 'AAAA', (r) => r.rcode === 'NOERROR');
});

after(() => c?.close());

test('a ClusterIP Service has an A record with TTL 5 in an authoritative answer', async () => {
  const r = await query(c.port, `web.app.svc.${Z}`, 'A');
  assert.equal(r.rcode, 'NOERROR');
  assert.equal(r.flag_aa, true);
  assert.equal(r.flag_ra, false, 'CoreDNS answers cluster names without RA');
  assert.deepEqual(dataOf(r, 'A'), [webIP]);
  assert.equal(r.answers![0].type === 'A' && r.answers![0].ttl, 5);
  assert.equal(r.answers![0].name, `web.app.svc.${Z}`);
});

test('names are case-insensitive and answered in the spelling asked', async () => {
  const r = await query(c.port, `WEB.App.svc.${Z}`, 'A');
  assert.deepEqual(dataOf(r, 'A'), [webIP]);
  assert.equal(r.answers![0].name, `WEB.App.svc.${Z}`);
});

test('NODATA (NOERROR + SOA) for an existing name without records of the type, NXDOMAIN for a missing name', async () => {
  const nodata = await query(c.port, `web.app.svc.${Z}`, 'AAAA');
  assert.equal(nodata.rcode, 'NOERROR');
  assert.equal(nodata.answers!.length, 0);
  const soa = nodata.authorities![0];
  assert.equal(soa.type, 'SOA');
  assert.equal(soa.name, Z);
  assert.equal(soa.type === 'SOA' && soa.ttl, 5);
  const d = (soa as { data: { mname: string; rname: string; refresh: number; retry: number; expire: number; minimum: number } }).data;
  assert.deepEqual([d.mname, d.rname, d.refresh, d.retry, d.expire, d.minimum], [`ns.dns.${Z}`, `hostmaster.${Z}`, 7200, 1800, 86400, 5]);

  for (const [name, type, rcode] of [
    [`nope.app.svc.${Z}`, 'A', 'NXDOMAIN'], // no such Service in an existing namespace
    [`web.nosuchns.svc.${Z}`, 'A', 'NXDOMAIN'], // namespace does not exist
    [`app.svc.${Z}`, 'A', 'NOERROR'], // namespace exists: NODATA
    [`nosuchns.svc.${Z}`, 'A', 'NXDOMAIN'],
    [`svc.${Z}`, 'A', 'NOERROR'],
    [`pod.${Z}`, 'A', 'NOERROR'],
    [Z, 'A', 'NOERROR'],
    [`foo.${Z}`, 'A', 'NXDOMAIN'], // neither svc nor pod
    [`a.b.c.web.app.svc.${Z}`, 'A', 'NXDOMAIN'], // too many labels
    [`web.app.svc.${Z}`, 'TXT', 'NOERROR'],
    [`nope.app.svc.${Z}`, 'TXT', 'NXDOMAIN'],
    [`web.app.svc.${Z}`, 'MX', 'NOERROR'],
    [`nope.app.svc.${Z}`, 'MX', 'NXDOMAIN'],
    [`empty.app.svc.${Z}`, 'A', 'NXDOMAIN'], // headless without endpoints
    [`db-2.db.app.svc.${Z}`, 'A', 'NXDOMAIN'], // endpoint not ready
    [`10-42-0-6.web.app.svc.${Z}`, 'A', 'NXDOMAIN'],
  ] as const) {
    const r = await query(c.port, name, type);
    assert.equal(r.rcode, rcode, `${name} ${type}`);
    assert.equal(r.answers!.length, 0, `${name} ${type}`);
    assert.equal(r.authorities![0]?.type, 'SOA', `${name} ${type} carries the SOA`);
  }
});

test('SRV for named ports: ClusterIP target with its A record in the additional section', async () => {
  const r = await query(c.port, `_http._tcp.web.app.svc.${Z}`, 'SRV');
  assert.deepEqual(dataOf(r, 'SRV'), [{ priority: 0, weight: 100, port: 80, target: `web.app.svc.${Z}` }]);
  assert.deepEqual(r.additionals!.filter((a) => a.type === 'A').map((a) => [a.name, (a as { data: string }).data]), [[`web.app.svc.${Z}`, webIP]]);
  const udp = await query(c.port, `_dns._udp.web.app.svc.${Z}`, 'SRV');
  assert.deepEqual(dataOf(udp, 'SRV'), [{ priority: 0, weight: 100, port: 53, target: `web.app.svc.${Z}` }]);
  assert.equal((await query(c.port, `_http._udp.web.app.svc.${Z}`, 'SRV')).rcode, 'NXDOMAIN');
  assert.equal((await query(c.port, `_nope._tcp.web.app.svc.${Z}`, 'SRV')).rcode, 'NXDOMAIN');
  // the A record of a port-qualified name is the Service's
  assert.deepEqual(dataOf(await query(c.port, `_http._tcp.web.app.svc.${Z}`, 'A'), 'A'), [webIP]);
  // no port given: one SRV per port, weights sharing 100
  const all = await query(c.port, `web.app.svc.${Z}`, 'SRV');
  assert.deepEqual(dataOf(all, 'SRV').map((d) => (d as { port: number; weight: number }).port), [53, 80]);
  assert.ok(dataOf(all, 'SRV').every((d) => (d as { weight: number }).weight === 50));
});

test('headless Services: A records of ready endpoints, per-hostname records, SRV per endpoint', async () => {
  assert.deepEqual(dataOf(await query(c.port, `db.app.svc.${Z}`, 'A'), 'A'), ['10.42.1.1', '10.42.1.2']);
  assert.deepEqual(dataOf(await query(c.port, `db-0.db.app.svc.${Z}`, 'A'), 'A'), ['10.42.1.1']);
  assert.deepEqual(dataOf(await query(c.port, `db-1.db.app.svc.${Z}`, 'A'), 'A'), ['10.42.1.2']);
  const srv = await query(c.port, `_pg._tcp.db.app.svc.${Z}`, 'SRV');
  assert.deepEqual(dataOf(srv, 'SRV'), [
    { priority: 0, weight: 50, port: 5432, target: `db-0.db.app.svc.${Z}` },
    { priority: 0, weight: 50, port: 5432, target: `db-1.db.app.svc.${Z}` },
  ]);
  assert.deepEqual(srv.additionals!.filter((a) => a.type === 'A').map((a) => a.name).sort(), [`db-0.db.app.svc.${Z}`, `db-1.db.app.svc.${Z}`]);
  // publishNotReadyAddresses publishes endpoints that are not ready
  assert.deepEqual(dataOf(await query(c.port, `pnr.app.svc.${Z}`, 'A'), 'A'), ['10.42.2.1']);
  // an endpoint of a ClusterIP Service by its dashed address
  assert.deepEqual(dataOf(await query(c.port, `10-42-0-5.web.app.svc.${Z}`, 'A'), 'A'), ['10.42.0.5']);
  // IPv6 endpoints answer AAAA, and A is NODATA
  assert.deepEqual(dataOf(await query(c.port, `six.v6.app.svc.${Z}`, 'AAAA'), 'AAAA'), ['fd00:42::5']);
  const a = await query(c.port, `six.v6.app.svc.${Z}`, 'A');
  assert.equal(a.rcode, 'NOERROR');
  assert.equal(a.answers!.length, 0);
});

test('ExternalName is a CNAME, followed inside the cluster zone; no SRV', async () => {
  const r = await query(c.port, `ext.app.svc.${Z}`, 'A');
  assert.equal(r.rcode, 'NOERROR');
  assert.deepEqual(r.answers!.map((a) => [a.type, (a as { data: string }).data]), [['CNAME', `web.app.svc.${Z}`], ['A', webIP]]);
  assert.deepEqual(dataOf(await query(c.port, `ext.app.svc.${Z}`, 'CNAME'), 'CNAME'), [`web.app.svc.${Z}`]);
  const srv = await query(c.port, `ext.app.svc.${Z}`, 'SRV');
  assert.equal(srv.rcode, 'NOERROR');
  assert.equal(srv.answers!.length, 0);
});

test('pod records (pods insecure): a-b-c-d.<ns>.pod; unknown namespace or non-address NXDOMAIN', async () => {
  assert.deepEqual(dataOf(await query(c.port, `10-42-0-9.app.pod.${Z}`, 'A'), 'A'), ['10.42.0.9']);
  assert.deepEqual(dataOf(await query(c.port, `fd00--9.app.pod.${Z}`, 'AAAA'), 'AAAA'), ['fd00::9']);
  assert.equal((await query(c.port, `10-42-0-9.nope.pod.${Z}`, 'A')).rcode, 'NXDOMAIN');
  assert.equal((await query(c.port, `not-an-ip.app.pod.${Z}`, 'A')).rcode, 'NXDOMAIN');
});

test('PTR for ClusterIPs and endpoint addresses (IPv4 and IPv6)', async () => {
  const rev = webIP.split('.').reverse().join('.') + '.in-addr.arpa';
  assert.deepEqual(dataOf(await query(c.port, rev, 'PTR'), 'PTR'), [`web.app.svc.${Z}`]);
  assert.deepEqual(dataOf(await query(c.port, '5.0.42.10.in-addr.arpa', 'PTR'), 'PTR'), [`10-42-0-5.web.app.svc.${Z}`]);
  assert.deepEqual(dataOf(await query(c.port, '1.1.42.10.in-addr.arpa', 'PTR'), 'PTR'), [`db-0.db.app.svc.${Z}`]);
  const v6 = [...'fd000042000000000000000000000005'].reverse().join('.') + '.ip6.arpa';
  assert.deepEqual(dataOf(await query(c.port, v6, 'PTR'), 'PTR'), [`six.v6.app.svc.${Z}`]);
  // unknown addresses fall through to the upstreams: none here, so SERVFAIL
  assert.equal((await query(c.port, '9.9.9.10.in-addr.arpa', 'PTR')).rcode, 'SERVFAIL');
});

test('zone apex: SOA, NS with glue, ns.dns, dns-version TXT, zone transfer refused', async () => {
  const soa = await query(c.port, Z, 'SOA');
  assert.equal(soa.answers![0].type, 'SOA');
  assert.equal((await query(c.port, `web.app.svc.${Z}`, 'SOA')).answers!.length, 0);
  const ns = await query(c.port, Z, 'NS');
  assert.deepEqual(dataOf(ns, 'NS'), [`ns.dns.${Z}`]);
  assert.deepEqual(ns.additionals!.filter((a) => a.type === 'A').map((a) => (a as { data: string }).data), ['127.0.0.1']);
  assert.deepEqual(dataOf(await query(c.port, `ns.dns.${Z}`, 'A'), 'A'), ['127.0.0.1']);
  const txt = await query(c.port, `dns-version.${Z}`, 'TXT');
  assert.deepEqual(txt.answers!.map((a) => String((a as { data: Buffer[] }).data[0])), ['1.1.0']);
  assert.equal((await query(c.port, Z, 'AXFR', { transport: 'tcp' })).rcode, 'REFUSED');
});

test('answers follow the API: endpoint changes and Service deletion', async () => {
  const rc = c.cc.client.resource('discovery.k8s.io/v1', 'endpointslices');
  const cur = await rc.get('app', 'db-1');
  await rc.update('app', { ...cur, endpoints: [{ addresses: ['10.42.1.9'], hostname: 'db-0', conditions: { ready: true } }] } as typeof cur);
  const r = await until(c.port, `db.app.svc.${Z}`, 'A', (x) => dataOf(x, 'A').length === 1);
  assert.deepEqual(dataOf(r, 'A'), ['10.42.1.9']);
  await c.cc.client.resource('v1', 'services').delete('app', 'pnr');
  await until(c.port, `pnr.app.svc.${Z}`, 'A', (x) => x.rcode === 'NXDOMAIN');
});

test('pods verified: only addresses of existing pods in that namespace resolve', async () => {
  const v = await dnsCluster({ podMode: 'verified' });
  try {
    const pod = await v.cc.client.resource('v1', 'pods').create('default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await v.cc.client.resource('v1', 'pods').update('default', { ...pod, status: { phase: 'Running', podIP: '10.42.3.3', podIPs: [{ ip: '10.42.3.3' }] } }, { subresource: 'status' });
    await until(v.port, `10-42-3-3.default.pod.${Z}`, 'A', (x) => x.rcode === 'NOERROR');
    assert.equal((await query(v.port, `10-42-3-4.default.pod.${Z}`, 'A')).rcode, 'NXDOMAIN');
    assert.equal((await query(v.port, `10-42-3-3.kube-system.pod.${Z}`, 'A')).rcode, 'NXDOMAIN');
  } finally {
    await v.close();
  }
});

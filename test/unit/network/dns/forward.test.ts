// Names outside the cluster zone go to the host's resolvers: a fake upstream on 127.0.0.1 stands for them (there is
// no internet here). Caching (positive and negative), in-flight sharing, SERVFAIL when no upstream answers, TCP
// retry on truncation, ExternalName targets outside the zone, reverse-lookup fallthrough, and the resolv.conf rules
// (loopback stub → systemd-resolved's real servers; never forward to ourselves).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsForwarder, readUpstreams } from '../../../../src/network/dns/forward.js';
import { startClusterDNS } from '../../../../src/network/dns/server.js';
import { dataOf, dnsCluster, fakeUpstream, namespace, query, service, until, type DnsCluster, type FakeUpstream } from './fixtures.js';

let up: FakeUpstream;
let c: DnsCluster;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'k1s-dns-'));
  up = await fakeUpstream({
    'example.com|A': [{ name: 'example.com', type: 'A', ttl: 300, class: 'IN', data: '192.0.2.10' }],
    'www.example.com|A': [{ name: 'www.example.com', type: 'A', ttl: 300, class: 'IN', data: '192.0.2.11' }],
    'shared.example.com|A': [{ name: 'shared.example.com', type: 'A', ttl: 300, class: 'IN', data: '192.0.2.12' }],
    '9.2.0.192.in-addr.arpa|PTR': [{ name: '9.2.0.192.in-addr.arpa', type: 'PTR', ttl: 300, class: 'IN', data: 'host.example.com' }],
  });
  c = await dnsCluster({ upstreams: [{ address: '127.0.0.1', port: up.port }] });
  await c.apply(namespace('app'));
  await c.apply(service('app', 'ext', { type: 'ExternalName', externalName: 'www.example.com' }));
  await until(c.port, 'ext.app.svc.cluster.local', 'CNAME', (r) => r.rcode === 'NOERROR' && r.answers!.length > 0);
});

after(async () => {
  await c?.close();
  await up?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const count = (name: string, type = 'A') => up.received.filter((r) => r === `${name}|${type}`).length;

test('other names are forwarded upstream and cached; the answer is not authoritative', async () => {
  const r = await query(c.port, 'example.com', 'A');
  assert.equal(r.rcode, 'NOERROR');
  assert.deepEqual(dataOf(r, 'A'), ['192.0.2.10']);
  assert.equal(r.flag_aa, false);
  assert.equal(r.flag_ra, true, "the upstream's RA is passed on");
  const cap = r.answers![0].type === 'A' ? r.answers![0].ttl : -1;
  assert.ok(cap! <= 30, `cached TTL capped at 30 s, got ${cap}`);
  const again = await query(c.port, 'EXAMPLE.com', 'A');
  assert.deepEqual(dataOf(again, 'A'), ['192.0.2.10']);
  assert.equal(again.answers![0].name, 'EXAMPLE.com');
  assert.equal(count('example.com'), 1, 'second query served from the cache');
});

test('negative answers are cached too (SOA minimum, capped)', async () => {
  const r = await query(c.port, 'missing.example.com', 'A');
  assert.equal(r.rcode, 'NXDOMAIN');
  assert.equal(r.authorities![0].type, 'SOA');
  assert.equal((await query(c.port, 'missing.example.com', 'A')).rcode, 'NXDOMAIN');
  assert.equal(count('missing.example.com'), 1);
});

test('cached TTLs count down and the entry expires after the capped TTL', async () => {
  let now = 1_000_000;
  const f = new DnsForwarder({ upstreams: [{ address: '127.0.0.1', port: up.port }], now: () => now });
  await f.start();
  try {
    const ttl = (r: { answers: unknown[] }) => (r.answers[0] as { ttl?: number }).ttl;
    assert.equal(ttl(await f.query({ name: 'www.example.com', type: 'A' })), 30);
    const before = count('www.example.com');
    now += 12_000;
    assert.equal(ttl(await f.query({ name: 'www.example.com', type: 'A' })), 18);
    assert.equal(count('www.example.com'), before);
    now += 18_000;
    assert.equal(ttl(await f.query({ name: 'www.example.com', type: 'A' })), 30);
    assert.equal(count('www.example.com'), before + 1, 'expired: asked again');
  } finally {
    f.close();
  }
});

test('identical questions in flight share one upstream query', async () => {
  const rs = await Promise.all(Array.from({ length: 20 }, () => query(c.port, 'shared.example.com', 'A')));
  assert.ok(rs.every((r) => dataOf(r, 'A')[0] === '192.0.2.12'));
  assert.equal(count('shared.example.com'), 1);
});

test('an ExternalName pointing outside the cluster: CNAME plus the upstream address', async () => {
  const r = await query(c.port, 'ext.app.svc.cluster.local', 'A');
  assert.deepEqual(r.answers!.map((a) => [a.type, (a as { data: string }).data]), [['CNAME', 'www.example.com'], ['A', '192.0.2.11']]);
  assert.equal(r.flag_aa, true);
});

test('reverse names the cluster does not know fall through to the upstream', async () => {
  const r = await query(c.port, '9.2.0.192.in-addr.arpa', 'PTR');
  assert.deepEqual(dataOf(r, 'PTR'), ['host.example.com']);
});

test('SERVFAIL when the upstream does not answer; TCP retry when it truncates', async () => {
  const dead = dgram.createSocket('udp4'); // bound but silent: queries time out
  await new Promise<void>((r) => dead.bind(0, '127.0.0.1', r));
  const silent = await dnsCluster({ upstreams: [{ address: '127.0.0.1', port: dead.address().port }], forwardTimeoutMs: 300 });
  const tc = await fakeUpstream({ 'big.example.com|A': [{ name: 'big.example.com', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.99' }] }, { truncateUdp: true });
  const viaTcp = await dnsCluster({ upstreams: [{ address: '127.0.0.1', port: tc.port }] });
  try {
    const t0 = Date.now();
    const r = await query(silent.port, 'example.com', 'A');
    assert.equal(r.rcode, 'SERVFAIL');
    assert.ok(Date.now() - t0 < 1500);
    // cluster names still answer while the upstream is down
    assert.equal((await query(silent.port, 'kubernetes.default.svc.cluster.local', 'A')).rcode, 'NOERROR');
    const big = await query(viaTcp.port, 'big.example.com', 'A');
    assert.deepEqual(dataOf(big, 'A'), ['192.0.2.99']);
    assert.deepEqual(tc.received, ['big.example.com|A|udp', 'big.example.com|A']);
  } finally {
    dead.close();
    await silent.close();
    await viaTcp.close();
    await tc.close();
  }
});

test('never forwards to itself: an upstream that is this server is dropped', async () => {
  const probe = dgram.createSocket('udp4');
  await new Promise<void>((r) => probe.bind(0, '127.0.0.1', r));
  const port = probe.address().port;
  probe.close();
  const self = startClusterDNS({ client: c.cc.client, listen: [{ address: '127.0.0.1', port }], upstreams: [{ address: '127.0.0.1', port }], forwardTimeoutMs: 300 });
  try {
    await self.ready;
    const t0 = Date.now();
    assert.equal((await query(port, 'example.com', 'A')).rcode, 'SERVFAIL');
    assert.ok(Date.now() - t0 < 250, 'answered at once: nothing was forwarded');
  } finally {
    await self.stop();
  }
});

test('resolv.conf: a loopback stub is replaced by systemd-resolved servers; self and wildcard self are excluded', async () => {
  const main = join(dir, 'resolv.conf');
  const sysd = join(dir, 'systemd-resolv.conf');
  await writeFile(main, '# stub\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch example.org\n');
  await writeFile(sysd, 'nameserver 10.1.2.3\nnameserver fe80::1%eth0\nnameserver not-an-ip\n');
  assert.deepEqual(await readUpstreams({ resolvConf: main, systemdResolvConf: sysd }), [
    { address: '10.1.2.3', port: 53 },
    { address: 'fe80::1%eth0', port: 53 },
  ]);
  // no systemd file: the stub is kept (it is reachable from the host process)
  assert.deepEqual(await readUpstreams({ resolvConf: main, systemdResolvConf: join(dir, 'missing') }), [{ address: '127.0.0.53', port: 53 }]);
  await writeFile(main, 'nameserver 10.43.0.10\nnameserver 192.168.1.1\nnameserver 127.0.0.1\n');
  assert.deepEqual(await readUpstreams({ resolvConf: main, systemdResolvConf: sysd, self: [{ address: '10.43.0.10', port: 53 }, { address: '0.0.0.0', port: 53 }] }), [
    { address: '192.168.1.1', port: 53 },
  ]);
});

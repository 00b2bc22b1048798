// The DNS server's transport: UDP truncation (TC) at 512 bytes unless EDNS0 allows more, TCP framing with several
// queries per connection, garbage packets, many queries at once, and a small load generator measuring queries/s and
// latency for a cluster name. Also a real resolver (busybox nslookup) against the server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { InformerFactory } from '../../../../src/client/informer.js';
import { startClusterDNS } from '../../../../src/network/dns/server.js';
import { dataOf, dnsCluster, namespace, query, rawTcp, rawUdp, service, slice, until, type DnsCluster } from './fixtures.js';

const run = promisify(execFile);
let c: DnsCluster;
let webIP = '';
const BIG = 60;

before(async () => {
  c = await dnsCluster();
  await c.apply(namespace('app'));
  webIP = ((await c.apply(service('app', 'web', { ports: [{ name: 'http', port: 80 }] }))).spec as { clusterIP: string }).clusterIP;
  await c.apply(service('app', 'big', { clusterIP: 'None', selector: { app: 'big' }, ports: [{ port: 80 }] }));
  const eps = Array.from({ length: BIG }, (_, i) => ({ addresses: [`10.42.9.${i + 1}`], conditions: { ready: true } }));
  await c.apply(slice('app', 'big', 'big-1', eps, [{ name: 'http', port: 80, protocol: 'TCP' }]));
  await until(c.port, 'big.app.svc.cluster.local', 'A', (r) => r.rcode === 'NOERROR');
});

after(() => c?.close());

test('UDP answers over 512 bytes are truncated with TC unless EDNS0 allows more; TCP carries everything', async () => {
  const plain = await query(c.port, 'big.app.svc.cluster.local', 'A');
  assert.equal(plain.flag_tc, true);
  assert.ok(plain.size! <= 512, `${plain.size} bytes`);
  assert.ok(plain.answers!.length > 0 && plain.answers!.length < BIG);
  const edns = await query(c.port, 'big.app.svc.cluster.local', 'A', { edns: 4096 });
  assert.equal(edns.flag_tc, false);
  assert.equal(edns.answers!.length, BIG);
  assert.ok(edns.additionals!.some((a) => a.type === 'OPT'), 'an EDNS query gets an OPT record back');
  const small = await query(c.port, 'big.app.svc.cluster.local', 'A', { edns: 600 });
  assert.equal(small.flag_tc, true);
  assert.ok(small.size! <= 600);
  const tcp = await query(c.port, 'big.app.svc.cluster.local', 'A', { transport: 'tcp' });
  assert.equal(tcp.flag_tc, false);
  assert.equal(tcp.answers!.length, BIG);
});

test('TCP: several framed queries on one connection, split across writes', async () => {
  const names = ['web.app.svc.cluster.local', 'big.app.svc.cluster.local', 'nope.app.svc.cluster.local'];
  const frames = names.map((name, i) => {
    const m = dnsPacket.encode({ type: 'query', id: 100 + i, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: 'A' }] });
    const len = Buffer.alloc(2);
    len.writeUInt16BE(m.length);
    return Buffer.concat([len, m]);
  });
  const all = Buffer.concat(frames);
  const replies = new Map<number, string>();
  await new Promise<void>((resolve, reject) => {
    const s = net.connect({ port: c.port, host: '127.0.0.1' });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => reject(new Error(`only ${replies.size} replies`)), 3000);
    s.on('error', reject);
    s.on('connect', () => {
      // one byte, then the rest in two uneven chunks: framing must not depend on write boundaries
      s.write(all.subarray(0, 1));
      setTimeout(() => {
        s.write(all.subarray(1, 40));
        s.write(all.subarray(40));
      }, 20);
    });
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const r = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))) as unknown as { id: number; rcode: string };
        buf = buf.subarray(2 + buf.readUInt16BE(0));
        replies.set(r.id, r.rcode);
      }
      if (replies.size === 3) {
        clearTimeout(timer);
        s.destroy();
        resolve();
      }
    });
  });
  assert.deepEqual([...replies].sort(), [[100, 'NOERROR'], [101, 'NOERROR'], [102, 'NXDOMAIN']]);
});

test('garbage never crashes the server: FORMERR when the header is readable, silence otherwise', async () => {
  const header = (id: number, flags: number, qd: number) => {
    const b = Buffer.alloc(12);
    b.writeUInt16BE(id, 0);
    b.writeUInt16BE(flags, 2);
    b.writeUInt16BE(qd, 4);
    return b;
  };
  // claims 5 questions, carries none: FORMERR with the same id
  const fe = await rawUdp(c.port, Buffer.concat([header(4242, 0x0100, 5), Buffer.from([3, 0x61])]));
  assert.equal(fe.id, 4242);
  assert.equal(fe.rcode, 'FORMERR');
  // two questions: FORMERR (one question per message)
  const two = dnsPacket.encode({ type: 'query', id: 7, questions: [{ name: 'a.cluster.local', type: 'A' }, { name: 'b.cluster.local', type: 'A' }] });
  assert.equal((await rawUdp(c.port, two)).rcode, 'FORMERR');
  // an opcode other than QUERY: NOTIMP
  const status = dnsPacket.encode({ type: 'query', id: 8, flags: 2 << 11, questions: [{ name: 'cluster.local', type: 'SOA' }] });
  assert.equal((await rawUdp(c.port, status)).rcode, 'NOTIMP');
  // short packets and responses get no answer
  await assert.rejects(rawUdp(c.port, Buffer.from([1, 2, 3]), 300));
  await assert.rejects(rawUdp(c.port, header(9, 0x8000, 0), 300));
  // a burst of random bytes of every length, over UDP and TCP
  const s = dgram.createSocket('udp4');
  for (let n = 0; n < 300; n++) s.send(Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256))), c.port, '127.0.0.1');
  await new Promise((r) => setTimeout(r, 100));
  s.close();
  const t = net.connect({ port: c.port, host: '127.0.0.1' });
  t.on('error', () => undefined);
  t.write(Buffer.from([0, 40, ...Array.from({ length: 40 }, () => 0xff)]));
  t.write(Buffer.from([0xff, 0xff, 1, 2, 3]));
  await new Promise((r) => setTimeout(r, 50));
  t.destroy();
  // still answering on both transports; over UDP a query is resent as stub resolvers do (attempts:3), since the
  // kernel may drop datagrams while the burst's leftovers are read on a loaded machine
  const again = async (tries: number): Promise<Awaited<ReturnType<typeof query>>> => {
    try {
      return await query(c.port, 'web.app.svc.cluster.local', 'A');
    } catch (e) {
      if (tries <= 1) throw e;
      return again(tries - 1);
    }
  };
  assert.deepEqual(dataOf(await again(3), 'A'), [webIP]);
  assert.deepEqual(dataOf(await rawTcp(c.port, dnsPacket.encode({ type: 'query', id: 1, questions: [{ name: 'web.app.svc.cluster.local', type: 'A' }] })), 'A'), [webIP]);
});

/** Sends `total` queries for `name` from one socket keeping `window` outstanding; latencies in ms. */
async function load(port: number, name: string, total: number, window: number): Promise<{ qps: number; lat: number[] }> {
  const s = dgram.createSocket('udp4');
  const sentAt = new Map<number, bigint>();
  const lat: number[] = [];
  const msgs = Array.from({ length: 1024 }, (_, id) => dnsPacket.encode({ type: 'query', id, flags: 256, questions: [{ name, type: 'A' }] }));
  let sent = 0;
  const start = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`load: ${lat.length}/${total} answered`)), 30_000);
    const send = () => {
      const id = sent++ % 1024;
      sentAt.set(id, process.hrtime.bigint());
      s.send(msgs[id], port, '127.0.0.1');
    };
    s.on('message', (m) => {
      const id = m.readUInt16BE(0);
      const t0 = sentAt.get(id);
      if (t0 === undefined || (m.readUInt16BE(2) & 0xf) !== 0) return reject(new Error('bad reply'));
      sentAt.delete(id);
      lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (lat.length === total) {
        clearTimeout(timer);
        resolve();
      } else if (sent < total) send();
    });
    for (let i = 0; i < window; i++) send();
  });
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  s.close();
  return { qps: Math.round(total / secs), lat: lat.sort((a, b) => a - b) };
}

const pct = (l: number[], p: number) => l[Math.min(l.length - 1, Math.floor((l.length * p) / 100))];

test('load: queries/s and latency for a cluster name (goal: answers within 1 ms)', async (t) => {
  const name = 'web.app.svc.cluster.local';
  await load(c.port, name, 500, 1); // warm up
  const seq = await load(c.port, name, 3000, 1);
  const par = await load(c.port, name, 20000, 32);
  const line = (l: number[]) => `p50 ${pct(l, 50).toFixed(3)} ms, p99 ${pct(l, 99).toFixed(3)} ms`;
  t.diagnostic(`sequential: ${seq.qps} q/s, ${line(seq.lat)}`);
  t.diagnostic(`32 in flight: ${par.qps} q/s, ${line(par.lat)}`);
  console.log(`# DNS load: sequential ${seq.qps} q/s ${line(seq.lat)}; 32 in flight ${par.qps} q/s ${line(par.lat)}`);
  assert.equal(par.lat.length, 20000, 'every query answered');
  // the median is the server's own time; the tail is CPU contention on a shared machine, so its bound only
  // catches a pathological regression (the figures above are what to compare)
  assert.ok(pct(seq.lat, 50) < 1, `sequential p50 ${pct(seq.lat, 50)} ms`);
  assert.ok(pct(seq.lat, 99) < 50, `sequential p99 ${pct(seq.lat, 99)} ms`);
});

test('a real resolver: busybox nslookup against the server', async () => {
  // busybox 1.35's nslookup takes the server as HOST:PORT
  const server = `127.0.0.1:${c.port}`;
  const a = await run('busybox', ['nslookup', 'web.app.svc.cluster.local', server], { timeout: 5000 });
  assert.match(a.stdout, new RegExp(`Address:\\s+${webIP.replace(/\./g, '\\.')}`));
  const srv = await run('busybox', ['nslookup', '-type=SRV', '_http._tcp.web.app.svc.cluster.local', server], { timeout: 5000 });
  assert.match(srv.stdout, /0 100 80 web\.app\.svc\.cluster\.local/);
  const nx = await run('busybox', ['nslookup', 'nope.app.svc.cluster.local', server], { timeout: 5000 }).catch((e) => e as { stdout: string; stderr: string });
  assert.match(`${nx.stdout}${nx.stderr}`, /NXDOMAIN/);
});

test("shared informers: the server starts a cluster's InformerFactory informers and leaves them running on stop", async () => {
  const factory = new InformerFactory(c.cc.client);
  const dns = startClusterDNS({ informers: factory, listen: [{ address: '127.0.0.1', port: 0 }], upstreams: [] });
  try {
    await dns.ready;
    const port = dns.addresses()[0].port;
    assert.deepEqual(dataOf(await query(port, 'web.app.svc.cluster.local', 'A'), 'A'), [webIP]);
    await dns.stop();
    await assert.rejects(query(port, 'web.app.svc.cluster.local', 'A', { timeoutMs: 200 }), 'stopped: no listener');
    assert.ok(factory.informer('v1', 'services').get('app', 'web'), 'the shared cache is still there');
  } finally {
    await dns.stop();
    factory.stop();
  }
});

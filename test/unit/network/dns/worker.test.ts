// The cluster DNS worker thread (src/network/dns/worker.ts, fed by network/dns/mirror.ts): it answers from its copy of the
// records, follows changes, keeps answering while the main thread's event loop is blocked, and is replaced (with
// the records) when it dies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import type { KObject } from '../../../../src/api/types.js';
import type { InformerHandler } from '../../../../src/client/informer.js';
import { DnsFeed, DnsMirror, type FeedMessage } from '../../../../src/network/dns/mirror.js';
import { dnsWorkerURL } from '../../../../src/network/dns/server.js';
import { waitFor } from '../../controllers/harness.js';
import { dataOf, dnsCluster, namespace, query, service, slice, until, type DnsCluster } from './fixtures.js';

let c: DnsCluster;
const logs: string[] = [];

before(async () => {
  c = await dnsCluster({ log: (l) => logs.push(l) });
  await c.apply(namespace('wk'));
});

after(() => c?.close());

test('the worker file is found beside the module, the bundle and the executable', () => {
  assert.match(dnsWorkerURL().pathname, /\/dist\/src\/network\/dns\/worker\.js$/);
  assert.equal(dnsWorkerURL('file:///opt/k1s/dist/k1s.cjs').href, 'file:///opt/k1s/dist/dns-worker.cjs');
  assert.equal(dnsWorkerURL('file:///home/u/.cache/k1s/sea-1/dist/sqlite-writer.cjs').href, 'file:///home/u/.cache/k1s/sea-1/dist/dns-worker.cjs');
});

test('a worker thread answers, and picks up a record change', async () => {
  const w = c.dns.worker();
  assert.ok(w instanceof Worker && w.threadId > 0, 'served by a worker thread');
  await c.apply(service('wk', 'db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] }));
  const rc = c.cc.client.resource('discovery.k8s.io/v1', 'endpointslices');
  const made = await rc.create('wk', slice('wk', 'db', 'db-1', [{ addresses: ['10.42.7.1'], conditions: { ready: true } }], [{ name: 'pg', port: 5432, protocol: 'TCP' }]));
  await until(c.port, 'db.wk.svc.cluster.local', 'A', (r) => dataOf(r, 'A').join() === '10.42.7.1');
  await rc.update('wk', { ...made, endpoints: [{ addresses: ['10.42.7.2'], conditions: { ready: true } }] } as KObject);
  const r = await until(c.port, 'db.wk.svc.cluster.local', 'A', (x) => dataOf(x, 'A').join() === '10.42.7.2');
  assert.equal(r.rcode, 'NOERROR');
  assert.ok(r.flag_aa, 'authoritative');
  await c.cc.client.resource('v1', 'services').delete('wk', 'db');
  await until(c.port, 'db.wk.svc.cluster.local', 'A', (x) => x.rcode === 'NXDOMAIN');
  assert.equal(c.dns.worker(), w, 'the same thread all along');
});

test('answers while the main thread is blocked', async () => {
  await c.apply(service('wk', 'api', { ports: [{ port: 443 }] }));
  await until(c.port, 'api.wk.svc.cluster.local', 'A', (r) => r.rcode === 'NOERROR');
  // a client of its own thread: it times its query while this thread spins
  const client = new Worker(
    `const dgram = require('node:dgram');
     const { parentPort, workerData } = require('node:worker_threads');
     const s = dgram.createSocket('udp4');
     const q = Buffer.from(workerData.query, 'base64');
     parentPort.once('message', () => {
       const t0 = performance.now();
       s.once('message', () => { parentPort.postMessage(performance.now() - t0); s.close(); });
       s.send(q, workerData.port, '127.0.0.1');
     });`,
    { eval: true, workerData: { port: c.port, query: dnsQuery('api.wk.svc.cluster.local').toString('base64') } },
  );
  const took = new Promise<number>((res) => client.once('message', res));
  await new Promise<void>((res) => client.once('online', () => res()));
  client.postMessage('go');
  const t0 = performance.now();
  while (performance.now() - t0 < 400); // the main thread's event loop does nothing for 400 ms
  const ms = await took;
  await client.terminate();
  assert.ok(ms < 200, `answered in ${ms.toFixed(1)} ms while the main thread was blocked for 400 ms`);
});

test('a worker that dies is logged and replaced; the new one has the records, including changes made meanwhile', async () => {
  const old = c.dns.worker()!;
  const restarts = c.dns.restarts();
  await old.terminate(); // as a crash would end it
  await c.apply(service('wk', 'late', { ports: [{ port: 80 }] }));
  await waitFor('a new worker', async () => c.dns.restarts() === restarts + 1 && c.dns.worker() !== undefined);
  assert.notEqual(c.dns.worker(), old);
  assert.ok(logs.some((l) => /cluster DNS worker exited \(code 1\); restarting/.test(l)), logs.join('\n'));
  await until(c.port, 'late.wk.svc.cluster.local', 'A', (r) => r.rcode === 'NOERROR' && dataOf(r, 'A').length === 1);
  assert.equal((await query(c.port, 'api.wk.svc.cluster.local', 'A')).rcode, 'NOERROR');
  assert.equal(c.dns.addresses()[0].port, c.port, 'on the same port');
});

test('the feed sends only what changes an answer; the mirror applies snapshots and changes', async () => {
  const handlers: InformerHandler[] = [];
  let items: KObject[] = [];
  const src = { addHandler: (h: InformerHandler) => handlers.push(h), list: () => items, hasSynced: () => true };
  const posted: FeedMessage[] = [];
  const feed = new DnsFeed({ services: src, endpointSlices: src, namespaces: src }, (m) => posted.push(m));
  const svc = (ip: string, rv: string) => ({ metadata: { name: 'a', namespace: 'n', resourceVersion: rv, annotations: { x: rv } }, spec: { clusterIP: ip, ports: [{ port: 80 }] } }) as KObject;
  items = [svc('10.43.0.5', '1')];
  const mirror = new DnsMirror(['services', 'endpointSlices', 'namespaces']);
  mirror.apply(feed.snapshot());
  const ipOf = (o: KObject | undefined) => (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;
  assert.equal(ipOf(mirror.sources.services!.get('n', 'a')), '10.43.0.5');
  assert.equal(mirror.sources.services!.get('n', 'a')?.metadata.annotations, undefined, 'only what the records read travels');
  assert.ok(mirror.sources.services!.hasSynced());
  // handlers[0] is the services one: an update of annotations only sends nothing
  handlers[0].update!(svc('10.43.0.5', '1'), svc('10.43.0.5', '2'));
  await Promise.resolve();
  assert.equal(posted.length, 0);
  handlers[0].update!(svc('10.43.0.5', '2'), svc('10.43.0.6', '3'));
  handlers[0].delete!(svc('10.43.0.6', '3'));
  await Promise.resolve();
  assert.equal(posted.length, 1, 'one batch per turn');
  assert.deepEqual((posted[0] as FeedMessage & { t: 'changes' }).changes.map((ch) => [ch.key, ipOf(ch.obj)]), [
    ['n/a', '10.43.0.6'],
    ['n/a', undefined],
  ]);
  mirror.apply(posted[0]);
  assert.equal(mirror.sources.services!.get('n', 'a'), undefined);
  feed.close();
});

function dnsQuery(name: string): Buffer {
  // id 7, RD, one question, type A class IN
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  return Buffer.concat([Buffer.from([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

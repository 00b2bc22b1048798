// Stale UDP conntrack cleanup: the decision (which entries kube-proxy would delete) and, on the real host, a UDP flow
// that keeps its source port follows an EndpointSlice change instead of sending into a removed endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { execa } from 'execa';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { ServiceProxy } from '../../../../src/network/service-proxy/proxy.js';
import { removeProxyChains } from '../../../../src/network/service-proxy/iptables.js';
import { buildServicePorts } from '../../../../src/network/service-proxy/model.js';
import { ConntrackCleaner, deleteArgs, parseConntrackList, staleFilters, udpFrontends, type ConntrackEntry } from '../../../../src/network/service-proxy/conntrack.js';
import type { KObject } from '../../../../src/api/types.js';
import { createTestNetwork, type TestNetwork } from './netns.js';
import { service, slice } from './fixtures.js';

const NODE = 'ct-node';
const udpPorts = <T extends { port: number }>(ports: T[]) => ports.map((p) => ({ protocol: 'UDP', ...p }));

function ports(services: KObject[], slices: KObject[]) {
  return buildServicePorts(services, slices, { nodeName: NODE });
}

const entry = (origDst: string, origDstPort: number, replySrc: string, origSrc = '10.42.0.9', protocol = 'udp'): ConntrackEntry => ({ protocol, origSrc, origDst, origDstPort, replySrc });

test('parses conntrack -L lines: original destination and port, reply source', () => {
  const text = [
    'udp      17 29 src=10.42.0.9 dst=10.43.0.10 sport=40000 dport=53 src=10.42.0.7 dst=10.42.0.9 sport=5353 dport=40000 mark=0 use=1',
    'udp      17 25 src=10.42.0.9 dst=10.43.0.20 sport=40001 dport=99 [UNREPLIED] src=10.43.0.20 dst=10.42.0.9 sport=99 dport=40001 mark=0 use=1',
    'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.',
    '',
  ].join('\n');
  assert.deepEqual(parseConntrackList(text), [
    { protocol: 'udp', origSrc: '10.42.0.9', origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.42.0.7' },
    { protocol: 'udp', origSrc: '10.42.0.9', origDst: '10.43.0.20', origDstPort: 99, replySrc: '10.43.0.20' },
  ]);
  assert.deepEqual(deleteArgs({ origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.42.0.7' }), ['-D', '-f', 'ipv4', '-p', 'udp', '--orig-dst', '10.43.0.10', '--orig-port-dst', '53', '--reply-src', '10.42.0.7']);
  assert.deepEqual(deleteArgs({ origDstPort: 30053, replySrc: '10.42.0.7' }), ['-D', '-f', 'ipv4', '-p', 'udp', '--orig-port-dst', '30053', '--reply-src', '10.42.0.7']);
});

test('entries to a UDP service IP:port not DNATed to a serving endpoint are stale (kube-proxy CleanStaleEntries)', () => {
  const svcs = [
    service('dns', { clusterIP: '10.43.0.10', externalIPs: ['192.168.9.9'], ports: udpPorts([{ name: 'dns', port: 53 }]) }),
    service('np', { type: 'NodePort', clusterIP: '10.43.0.11', ports: udpPorts([{ port: 5000, nodePort: 30053 }]) }),
    service('none', { clusterIP: '10.43.0.12', ports: udpPorts([{ port: 7000 }]) }),
    service('tcp', { clusterIP: '10.43.0.13', ports: [{ port: 80, protocol: 'TCP' }] }),
  ];
  const slices = [
    // a terminating but serving endpoint keeps its flows: only serving matters
    slice('dns', [{ ip: '10.42.0.7' }, { ip: '10.42.0.8', ready: false, serving: true, terminating: true }, { ip: '10.42.0.6', ready: false, serving: false }], udpPorts([{ name: 'dns', port: 5353 }])),
    slice('np', [{ ip: '10.42.0.5' }], udpPorts([{ port: 5000 }])),
    slice('tcp', [{ ip: '10.42.0.4' }], [{ port: 80 }]),
  ];
  const now = udpFrontends(ports(svcs, slices));
  const entries = [
    entry('10.43.0.10', 53, '10.42.0.7'), // current endpoint: kept
    entry('10.43.0.10', 53, '10.42.0.8'), // serving (terminating): kept
    entry('10.43.0.10', 53, '10.42.0.3'), // removed endpoint: deleted
    entry('10.43.0.10', 53, '10.42.0.6'), // not serving: deleted
    entry('10.43.0.10', 53, '10.43.0.10'), // sent while there was no endpoint (not DNATed): deleted
    entry('192.168.9.9', 53, '10.42.0.3'), // external IP, removed endpoint: deleted
    entry('10.43.0.10', 54, '10.42.0.3'), // other port: not a frontend
    entry('10.43.0.12', 7000, '10.43.0.12'), // no endpoints now: nothing to send to, left alone
    entry('10.43.0.13', 80, '10.42.0.99', undefined, 'tcp'), // TCP: never
    entry('10.0.0.1', 30053, '10.42.0.2'), // NodePort, removed endpoint: deleted
    entry('10.0.0.1', 30053, '10.42.0.5'), // NodePort, current endpoint: kept
  ];
  assert.deepEqual(staleFilters(entries, now), [
    { origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.42.0.3' },
    { origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.42.0.6' },
    { origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.43.0.10' },
    { origDst: '192.168.9.9', origDstPort: 53, replySrc: '10.42.0.3' },
    { origDstPort: 30053, replySrc: '10.42.0.2' },
  ]);
});

test('a UDP cluster IP that is no longer served loses its entries; the scope keeps other pod networks out', () => {
  const before = udpFrontends(ports([service('old', { clusterIP: '10.43.0.30', ports: udpPorts([{ port: 53 }]) })], [slice('old', [{ ip: '10.42.0.7' }], udpPorts([{ port: 53 }]))]));
  // the Service was re-created with another cluster IP
  const now = udpFrontends(ports([service('old', { clusterIP: '10.43.0.31', ports: udpPorts([{ port: 53 }]) })], [slice('old', [{ ip: '10.42.0.7' }], udpPorts([{ port: 53 }]))]));
  const entries = [entry('10.43.0.30', 53, '10.42.0.7'), entry('10.43.0.31', 53, '10.42.0.7')];
  assert.deepEqual(staleFilters(entries, now, { previous: before }), [{ origDst: '10.43.0.30' }]);
  assert.deepEqual(staleFilters(entries, now), [], 'without the previous state nothing is known to be gone');

  // another cluster on the machine uses the same Service IP with its own pods (10.77.0.0/16): not ours to touch
  const dns = udpFrontends(ports([service('dns', { clusterIP: '10.43.0.10', ports: udpPorts([{ port: 53 }]) })], [slice('dns', [{ ip: '10.42.0.7' }], udpPorts([{ port: 53 }]))]));
  const theirs = entry('10.43.0.10', 53, '10.77.0.5', '10.77.0.9');
  const ours = entry('10.43.0.10', 53, '10.42.0.3', '10.42.0.9');
  assert.deepEqual(staleFilters([theirs, ours], dns, { scope: ['10.42.0.0/16'] }), [{ origDst: '10.43.0.10', origDstPort: 53, replySrc: '10.42.0.3' }]);
  assert.equal(staleFilters([theirs, ours], dns).length, 2, 'no scope: every entry is considered');
});

test('without the conntrack tool the cleanup says so once and does nothing', async () => {
  const logs: string[] = [];
  const cleaner = new ConntrackCleaner({ binary: '/nonexistent/conntrack', log: (l) => logs.push(l) });
  const svc = ports([service('dns', { clusterIP: '10.43.0.10', ports: udpPorts([{ port: 53 }]) })], [slice('dns', [{ ip: '10.42.0.7' }], udpPorts([{ port: 53 }]))]);
  assert.deepEqual(await cleaner.cleanup(svc), []);
  assert.deepEqual(await cleaner.cleanup(ports([], [])), []);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /conntrack tool is not installed/);
});

/** A UDP echo server in a namespace answering with its name. */
function udpEcho(ns: string, port: number, name: string): ChildProcess {
  const js = `const s=require('dgram').createSocket('udp4');s.on('message',(m,r)=>s.send(${JSON.stringify(name)},r.port,r.address));s.bind(${port});`;
  return spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', js], { stdio: 'ignore' });
}

/** Sends one datagram from a fixed source port (so every call is the same conntrack flow); the answer or 'timeout'. */
async function ask(netw: TestNetwork, ns: string, dst: string, port: number, srcPort: number): Promise<string> {
  const js = `const s=require('dgram').createSocket('udp4');s.bind(${srcPort},()=>{s.send('q',${port},${JSON.stringify(dst)});});` +
    `s.on('message',(m)=>{process.stdout.write(String(m));process.exit(0)});setTimeout(()=>{process.stdout.write('timeout');process.exit(0)},700);`;
  const r = await netw.exec(ns, [process.execPath, '-e', js]);
  return r.stdout;
}

test('a UDP flow with a fixed source port follows an endpoint change on the real host (stale entry flushed)', async (t) => {
  const conntrack = await execa('conntrack', ['--version'], { reject: false }).catch(() => ({ exitCode: 1 }));
  assert.equal(conntrack.exitCode, 0, 'the conntrack tool is needed (Debian package conntrack)');
  let cluster: ControllerCluster | undefined;
  let netw: TestNetwork | undefined;
  let proxy: ServiceProxy | undefined;
  const servers: ChildProcess[] = [];
  const prefix = `KC${Math.random().toString(16).slice(2, 6)}`;
  t.after(async () => {
    for (const s of servers) s.kill('SIGKILL');
    await proxy?.stop().catch(() => undefined);
    await removeProxyChains({ prefix }).catch(() => undefined);
    await netw?.destroy();
    await cluster?.close();
  });
  cluster = await controllerCluster([]);
  netw = await createTestNetwork();
  const a = await netw.addPod('a', 2);
  const b = await netw.addPod('b', 3);
  const c = await netw.addPod('c', 4);
  servers.push(udpEcho(a.ns, 5353, 'pod-a'), udpEcho(b.ns, 5353, 'pod-b'));
  const third = 200 + Math.floor(Math.random() * 50);
  const vip = `10.43.${third}.${10 + Math.floor(Math.random() * 200)}`;
  const ns = 'default';
  const svcs = cluster.client.resource('v1', 'services');
  const slices = cluster.client.resource('discovery.k8s.io/v1', 'endpointslices');
  await svcs.create(ns, { ...service('udp', { clusterIP: vip, clusterIPs: [vip], ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 }] }), metadata: { name: 'udp', namespace: ns } });
  const sliceFor = (ip: string) => ({ ...slice('udp', [{ ip, node: NODE }], udpPorts([{ name: 'dns', port: 5353 }]), { namespace: ns }) });
  await slices.create(ns, sliceFor(a.ip));
  proxy = await ServiceProxy.start({ client: cluster.client, nodeName: NODE, clusterCIDR: netw.cidr, prefix, log: (l) => cluster!.logs.push(l) });
  await proxy.whenRouted(vip, 53, { protocol: 'UDP', timeoutMs: 2000 });
  const srcPort = 41000 + Math.floor(Math.random() * 10000);
  // the echo servers may need a moment to bind
  let first = '';
  for (let i = 0; i < 20 && first !== 'pod-a'; i++) first = await ask(netw, c.ns, vip, 53, srcPort);
  assert.equal(first, 'pod-a');
  const listed = async () => parseConntrackList((await execa('conntrack', ['-L', '-f', 'ipv4', '-p', 'udp', '--orig-dst', vip])).stdout);
  assert.deepEqual((await listed()).map((e) => e.replySrc), [a.ip], 'the flow is DNATed to pod a');

  // the endpoint moves to pod b while pod a still answers: without the flush the same flow would stay on pod a
  const cur = await slices.get(ns, 'udp-abc');
  await slices.update(ns, { ...sliceFor(b.ip), metadata: cur.metadata });
  // the entry is gone once `conntrack -D` ran; the counter moves when that command's result is back
  await cluster.waitFor('stale entry flushed', async () => proxy!.stats.conntrackDeletes >= 1 && !(await listed()).some((e) => e.replySrc === a.ip), 3000);
  assert.equal(await ask(netw, c.ns, vip, 53, srcPort), 'pod-b');
  assert.deepEqual((await listed()).map((e) => e.replySrc), [b.ip]);
});

// Pod-network figures (issue 8) on a real node: bulk throughput and connection rate through a ClusterIP beside the
// same traffic straight to the pod IP (goal ≤ 1.1× direct), cluster DNS queries/s with p50/p99, and the time from
// Service create to the first successful connection through its ClusterIP. Needs root and containerd.
// K1S_BENCH_NETWORK=dns (with K1S_BENCH_ONLY=network) runs only the DNS rows (no pod traffic).
import { execFile, execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import type { ClusterPaths } from '../src/cli/clusters.js';
import { deleteClusterData } from '../src/cli/delete.js';
import { median, pct, request, root, startServer, stop, type Server } from './bench-server.js';

type Row = (k: string, v: string) => void;
const IMAGE = 'k1s.local/busybox:1.35';
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const BRIDGE = 'k1sbnet0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = promisify(execFile);

interface PodLike {
  metadata: { name: string };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

const json = async <T>(server: Server, path: string): Promise<T> => JSON.parse((await request(server, 'GET', path)).body) as T;

async function waitReady(server: Server, ns: string, name: string): Promise<PodLike> {
  for (;;) {
    const p = await json<PodLike>(server, `/api/v1/namespaces/${ns}/pods/${name}`);
    if (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return p;
    await sleep(50);
  }
}

/** seconds (from /proc/uptime, 10 ms resolution) a shell loop in the client pod takes */
async function timeInPod(kubeconfig: string, ns: string, loop: string): Promise<number> {
  const script = `a=$(cut -d" " -f1 /proc/uptime); ${loop}; b=$(cut -d" " -f1 /proc/uptime); echo "$a $b"`;
  const { stdout } = await run(KUBECTL, ['--kubeconfig', kubeconfig, 'exec', '-n', ns, 'client', '--', 'sh', '-c', script], { maxBuffer: 1 << 20 });
  const [a, b] = stdout.trim().split(/\s+/).map(Number);
  return b - a;
}

/** best of `rounds` runs of the loop against each target, alternating so neither gets a warmer cache */
async function compare(kubeconfig: string, ns: string, loop: (target: string) => string, direct: string, cluster: string, rounds = 3): Promise<{ direct: number; cluster: number }> {
  const best = { direct: Infinity, cluster: Infinity };
  for (let i = 0; i < rounds; i++) {
    best.direct = Math.min(best.direct, await timeInPod(kubeconfig, ns, loop(direct)));
    best.cluster = Math.min(best.cluster, await timeInPod(kubeconfig, ns, loop(cluster)));
  }
  return best;
}

/** `count` A queries with `inflight` outstanding at a time; latencies in ms */
async function dnsLoad(address: string, port: number, name: string, count: number, inflight: number): Promise<{ qps: number; lat: number[] }> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, () => r()));
  const pending = new Map<number, { t0: number; done: () => void }>();
  sock.on('message', (msg) => {
    const id = msg.readUInt16BE(0);
    pending.get(id)?.done();
  });
  const lat: number[] = [];
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((res) => {
      const id = next++ & 0xffff;
      const t0 = performance.now();
      const timer = setTimeout(() => {
        pending.delete(id);
        res();
      }, 2000);
      pending.set(id, {
        t0,
        done: () => {
          clearTimeout(timer);
          pending.delete(id);
          lat.push(performance.now() - t0);
          res();
        },
      });
      sock.send(dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name }] }), port, address);
    });
  let sent = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (sent < count) {
        sent++;
        await one();
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  sock.close();
  return { qps: lat.length / secs, lat };
}

/** latency at a moderate load: queries sent on a fixed schedule (`rate` per second, whatever the answers do) */
async function dnsPaced(address: string, port: number, name: string, rate: number, count: number): Promise<{ lat: number[]; lost: number }> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, () => r()));
  const sentAt = new Map<number, number>();
  const lat: number[] = [];
  sock.on('message', (msg) => {
    const t = sentAt.get(msg.readUInt16BE(0));
    if (t === undefined) return;
    lat.push(performance.now() - t);
    sentAt.delete(msg.readUInt16BE(0));
  });
  const queries = Array.from({ length: 1024 }, (_, id) => dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name }] }));
  const start = performance.now();
  let i = 0;
  // a 1 ms timer sends whatever is due: the schedule holds without a busy loop taking a core from the server
  while (i < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    for (; i < due; i++) {
      sentAt.set(i % 1024, performance.now());
      sock.send(queries[i % 1024], port, address);
    }
    await sleep(1);
  }
  await sleep(500);
  sock.close();
  return { lat, lost: count - lat.length };
}

/**
 * The floor the DNS rows are measured against: a UDP echo (the query sent back as is) in a worker thread of a node
 * process of its own, on the same address, driven by the same client. What it shows is this machine's own jitter
 * (scheduling, the client), which no DNS server written in Node.js goes below.
 */
async function echoFloor(address: string): Promise<{ one: { qps: number; lat: number[] }; paced: { lat: number[]; lost: number } }> {
  const code = `
    const { Worker } = require('node:worker_threads');
    const w = new Worker(\`
      const dgram = require('node:dgram');
      const { parentPort, workerData } = require('node:worker_threads');
      const s = dgram.createSocket('udp4');
      s.on('message', (m, r) => s.send(m, r.port, r.address));
      s.bind(0, workerData, () => parentPort.postMessage(s.address().port));
    \`, { eval: true, workerData: process.argv[1] });
    w.on('message', (port) => console.log(port));
  `;
  const child = spawn(process.execPath, ['-e', code, address], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((res, rej) => {
      child.stdout.once('data', (d: Buffer) => res(Number(String(d).trim())));
      child.once('exit', (c) => rej(new Error(`echo worker exited ${c}`)));
    });
    await dnsLoad(address, port, 'web.bench-net.svc.cluster.local', 2000, 16);
    const one = await dnsLoad(address, port, 'web.bench-net.svc.cluster.local', 5000, 1);
    const paced = await dnsPaced(address, port, 'web.bench-net.svc.cluster.local', 2000, 20_000);
    return { one, paced };
  } finally {
    child.kill();
  }
}

/**
 * API writes from a process of their own (ConfigMap creates, 4 in flight) until stopped: the server's main thread
 * busy as it is while a cluster works, which cluster DNS answers must not wait for. stop() gives the creates/s.
 */
function apiLoad(server: Server, ns: string): { stop(): Promise<number> } {
  const code = `
    const https = require('node:https');
    const [url, ns, ca, cert, key] = process.argv.slice(1);
    const b = (x) => Buffer.from(x, 'base64');
    const agent = new https.Agent({ keepAlive: true, ca: b(ca), cert: b(cert), key: b(key) });
    let n = 0, ok = 0;
    const t0 = performance.now();
    process.on('SIGTERM', () => { console.log(ok / ((performance.now() - t0) / 1000)); process.exit(0); });
    const one = () => {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'load-' + n++ }, data: { k: 'v' } });
      const req = https.request(url + '/api/v1/namespaces/' + ns + '/configmaps', { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (r) => {
        if (r.statusCode === 201) ok++;
        r.resume();
        r.on('end', one);
      });
      req.on('error', () => setTimeout(one, 10));
      req.end(body);
    };
    for (let i = 0; i < 4; i++) one();
  `;
  const o = server.agent.options as { ca: Buffer; cert: Buffer; key: Buffer };
  const b64 = (x: Buffer) => Buffer.from(x).toString('base64');
  const child = spawn(process.execPath, ['-e', code, server.url, ns, b64(o.ca), b64(o.cert), b64(o.key)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return {
    stop: () =>
      new Promise((res) => {
        child.once('exit', () => res(Number(out.trim()) || 0));
        child.kill('SIGTERM');
      }),
  };
}

function httpOk(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((res) => {
    const req = http.get({ host, port, path: '/small', timeout: timeoutMs, agent: false }, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => res(false));
  });
}

export async function benchNetwork(row: Row): Promise<void> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/containerd')) {
    row('pod network (ClusterIP vs direct, DNS, Service → first connection)', 'skipped: needs root and containerd');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-net-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const { server } = await startServer(dir, ['--ingress-http-port', '0', '--ingress-https-port', '0', '--cluster-cidr', '10.53.0.0/16', '--cni-bridge', BRIDGE], { agent: true });
  const ns = 'bench-net';
  try {
    for (;;) {
      const nodes = await json<{ items: PodLike[] }>(server, '/api/v1/nodes');
      if (nodes.items.some((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))) break;
      await sleep(100);
    }
    const dnsOnly = process.env.K1S_BENCH_NETWORK === 'dns';
    if (!dnsOnly) execFileSync(process.execPath, [join(root, 'bin', 'k1s'), 'image', 'load', '--data-dir', dir, join(root, 'dist', 'images', 'busybox.tar')]);
    await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    while ((await request(server, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status !== 200) await sleep(50);
    const serve = 'mkdir -p /www && dd if=/dev/zero of=/www/big bs=1M count=128 2>/dev/null && echo ok > /www/small && exec httpd -f -p 8080 -h /www';
    const pod = (name: string, labels: Record<string, string>, cmd: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', cmd], readinessProbe: name === 'server' ? { tcpSocket: { port: 8080 }, periodSeconds: 1 } : undefined }],
      },
    });
    if (!dnsOnly) {
      await request(server, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('server', { app: 'server' }, serve));
      await request(server, 'POST', `/api/v1/namespaces/${ns}/pods`, pod('client', { app: 'client' }, 'exec sleep 3600'));
    }
    const srv = dnsOnly ? undefined : await waitReady(server, ns, 'server');
    if (!dnsOnly) await waitReady(server, ns, 'client');
    const svc = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: 'server' }, ports: [{ port: 80, targetPort: 8080 }] } });
    const created = JSON.parse((await request(server, 'POST', `/api/v1/namespaces/${ns}/services`, svc('web'))).body) as { spec: { clusterIP: string } };
    const clusterIP = created.spec.clusterIP;
    if (srv) await podTraffic(srv.status!.podIP!, clusterIP);

    async function podTraffic(podIP: string, clusterIP: string): Promise<void> {
      while (!(await httpOk(clusterIP, 80, 500))) await sleep(50);
      // 1 GiB a run: /proc/uptime, the pod's only clock, ticks every 10 ms (~2 % of a run); best of 5 against the
      // VM's run-to-run spread
      const bulk = await compare(kubeconfig, ns, (t) => `for i in 1 2 3 4 5 6 7 8; do wget -q -O /dev/null http://${t}/big; done`, `${podIP}:8080`, `${clusterIP}:80`, 5);
      const mib = 8 * 128;
      row(
        'pod → pod bulk HTTP (8 × 128 MiB, best of 5): ClusterIP vs pod IP',
        `${(mib / bulk.cluster).toFixed(0)} MiB/s vs ${(mib / bulk.direct).toFixed(0)} MiB/s direct → ${(bulk.cluster / bulk.direct).toFixed(2)}× the time (goal ≤ 1.1×)`,
      );
      const conns = await compare(kubeconfig, ns, (t) => `i=0; while [ $i -lt 500 ]; do wget -q -O /dev/null http://${t}/small; i=$((i+1)); done`, `${podIP}:8080`, `${clusterIP}:80`);
      row(
        'pod → pod new connections (500 sequential wget, best of 3): ClusterIP vs pod IP',
        `${(500 / conns.cluster).toFixed(0)}/s vs ${(500 / conns.direct).toFixed(0)}/s direct → ${(conns.cluster / conns.direct).toFixed(2)}× the time (goal ≤ 1.1×)`,
      );
    }

    type Slices = { items: { endpoints?: { addresses: string[] }[]; ports: { name: string; port: number }[] }[] };
    let slices: Slices;
    // the DNS-only run gets here before the node has published the cluster DNS endpoints
    while (!(slices = await json<Slices>(server, '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkube-dns')).items[0]?.endpoints?.length) await sleep(100);
    const dnsAddr = slices.items[0].endpoints![0].addresses[0];
    const dnsPort = slices.items[0].ports.find((p) => p.name === 'dns')!.port;
    await dnsLoad(dnsAddr, dnsPort, 'kubernetes.default.svc.cluster.local', 2000, 16);
    const dns = await dnsLoad(dnsAddr, dnsPort, 'web.bench-net.svc.cluster.local', 20_000, 32);
    row('cluster DNS: A queries for a Service name, 32 in flight (20,000 queries, UDP from the node)', `${Math.round(dns.qps).toLocaleString('en-US')} q/s, p50 ${median(dns.lat).toFixed(2)} ms, p99 ${pct(dns.lat, 99).toFixed(2)} ms`);
    const one = await dnsLoad(dnsAddr, dnsPort, 'web.bench-net.svc.cluster.local', 5000, 1);
    row('cluster DNS latency: 1 query in flight (5,000 queries)', `p50 ${median(one.lat).toFixed(2)} ms, p99 ${pct(one.lat, 99).toFixed(2)} ms (${Math.round(one.qps).toLocaleString('en-US')} q/s; goal: answers within 1 ms)`);
    const steady = await dnsPaced(dnsAddr, dnsPort, 'web.bench-net.svc.cluster.local', 2000, 20_000);
    row('cluster DNS latency: 2,000 q/s paced (20,000 queries)', `p50 ${median(steady.lat).toFixed(2)} ms, p99 ${pct(steady.lat, 99).toFixed(2)} ms, ${steady.lost} unanswered (goal: p99 ≤ 1 ms)`);
    const load = apiLoad(server, ns);
    await sleep(1000);
    const busy = await dnsPaced(dnsAddr, dnsPort, 'web.bench-net.svc.cluster.local', 2000, 20_000);
    const creates = await load.stop();
    row(
      'cluster DNS latency: 2,000 q/s paced while the API takes ConfigMap creates from another process (4 in flight)',
      `p50 ${median(busy.lat).toFixed(2)} ms, p99 ${pct(busy.lat, 99).toFixed(2)} ms, ${busy.lost} unanswered (${Math.round(creates)} creates/s alongside)`,
    );
    const echo = await echoFloor(dnsAddr);
    row(
      'reference: UDP echo in a Node worker thread, same address and client (1 in flight; 2,000/s paced)',
      `p50 ${median(echo.one.lat).toFixed(2)} ms, p99 ${pct(echo.one.lat, 99).toFixed(2)} ms; p50 ${median(echo.paced.lat).toFixed(2)} ms, p99 ${pct(echo.paced.lat, 99).toFixed(2)} ms, ${echo.paced.lost} unanswered`,
    );

    const toFirst: number[] = [];
    for (let i = 0; i < (dnsOnly ? 0 : 5); i++) {
      const t0 = performance.now();
      const made = JSON.parse((await request(server, 'POST', `/api/v1/namespaces/${ns}/services`, svc(`probe-${i}`))).body) as { spec: { clusterIP: string } };
      while (!(await httpOk(made.spec.clusterIP, 80, 200))) await sleep(2);
      toFirst.push(performance.now() - t0);
    }
    if (!dnsOnly) row('Service created → first successful HTTP request through its ClusterIP (from the node, median of 5)', `${median(toFirst).toFixed(0)} ms (min ${Math.min(...toFirst).toFixed(0)}, max ${Math.max(...toFirst).toFixed(0)})`);
    await request(server, 'DELETE', `/api/v1/namespaces/${ns}/pods`);
    while ((await json<{ items: unknown[] }>(server, `/api/v1/namespaces/${ns}/pods`)).items.length) await sleep(100);
  } finally {
    await stop(server);
    // what `k1s delete` does: pods (they outlive the server), mounts, network leftovers, the data dir
    await deleteClusterData({ dir } as ClusterPaths, ['--cni-bridge', BRIDGE]).catch((e) => console.error(`bench: cleaning up: ${(e as Error).message}`));
  }
}

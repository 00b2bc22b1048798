// Scheduling figures (issue 5): how fast pending pods are bound on simulated nodes, and creation → bound latency.
// Two shapes, as kube's scheduler_perf has them: a backlog of pending pods scheduled at once (throughput), and pods
// created by 32 clients while the scheduler keeps up (latency). Simulated kubelets run the bound pods meanwhile,
// so their status writes and events compete with the scheduler as they would in a real cluster.
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pct, request, rssMiB, startServer, stop, type Server } from './bench-server.js';

type Row = (k: string, v: string) => void;

interface PodEvent {
  type: string;
  object?: { metadata?: { name?: string }; spec?: { nodeName?: string }; status?: { conditions?: { type: string; status: string }[] } };
}

/** Follows the pods of a namespace: when each was first seen unschedulable and when it was bound. */
class PodWatch {
  readonly unschedulable = new Set<string>();
  readonly bound = new Map<string, number>();
  private readonly req: ReturnType<typeof https.get>;
  private waiters: (() => void)[] = [];

  constructor(server: Server, ns: string) {
    this.req = https.get(`${server.url}/api/v1/namespaces/${ns}/pods?watch=true`, { agent: new https.Agent({ ...server.agent.options, keepAlive: false }) }, (r) => {
      let buf = '';
      r.on('error', () => undefined); // the server stopping after close()
      r.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const ev = JSON.parse(buf.slice(0, i)) as PodEvent;
          buf = buf.slice(i + 1);
          const name = ev.object?.metadata?.name;
          if (!name) continue;
          if (ev.object!.spec?.nodeName) {
            if (!this.bound.has(name)) this.bound.set(name, performance.now());
          } else if (ev.object!.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False')) {
            this.unschedulable.add(name);
          }
        }
        const w = this.waiters;
        this.waiters = [];
        for (const f of w) f();
      });
    });
    this.req.on('error', () => undefined);
  }

  /** resolves once `done()` holds (checked after every chunk of events), or rejects after `timeoutMs` */
  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (performance.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
      await new Promise<void>((res) => {
        this.waiters.push(res);
        setTimeout(res, 1000);
      });
    }
  }

  close(): void {
    this.req.destroy();
  }
}

async function clusterWithNodes(nodes: number, nodeArgs: string[] = [], serverArgs: string[] = []): Promise<{ server: Server; dir: string; nodeNames: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
  // a /24 per node: the default 10.42.0.0/16 holds 256 of them, a /14 holds 1,024
  const cidr = nodes > 256 ? ['--cluster-cidr', '10.64.0.0/14'] : [];
  const { server } = await startServer(dir, ['--simulated-nodes', String(nodes), ...cidr, ...serverArgs], { nodeArgs });
  let names: string[] = [];
  for (;;) {
    const r = JSON.parse((await request(server, 'GET', '/api/v1/nodes')).body) as { items: { metadata: { name: string }; spec?: { podCIDR?: string } }[] };
    names = r.items.filter((n) => n.spec?.podCIDR).map((n) => n.metadata.name);
    if (names.length >= nodes) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server, dir, nodeNames: names };
}

async function namespace(server: Server, ns: string): Promise<void> {
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  while ((await request(server, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
}

/** creates `total` small pods with 32 concurrent clients; returns when each was sent */
async function createPods(server: Server, ns: string, total: number): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const name = `p-${i}`;
        sent.set(name, performance.now());
        const r = await request(server, 'POST', `/api/v1/namespaces/${ns}/pods`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, labels: { app: 'sched' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
        });
        if (r.status !== 201) throw new Error(`pod create failed: ${r.status} ${r.body}`);
      }
    }),
  );
  return sent;
}

/** how many times the events matching `fieldSelector` were recorded (a repeated event is one object with a count) */
async function countEvents(server: Server, ns: string, fieldSelector: string): Promise<number> {
  const r = JSON.parse((await request(server, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(fieldSelector)}`)).body) as { items: { count?: number }[] };
  return r.items.reduce((n, e) => n + (e.count ?? 1), 0);
}

const cordon = (server: Server, node: string, unschedulable: boolean) =>
  request(server, 'PATCH', `/api/v1/nodes/${node}`, { spec: { unschedulable } }, 'application/merge-patch+json');

/**
 * Throughput: `total` pods are created while every node is cordoned (they go Unschedulable), then the nodes are
 * uncordoned at once and the time until the last pod is bound is taken (scheduler_perf's SchedulingThroughput).
 */
export async function benchPendingBacklog(
  row: Row,
  total: number,
  nodes: number,
  opts: { heapMiB?: number; serverArgs?: string[]; label?: string } = {},
): Promise<void> {
  const { server, dir, nodeNames } = await clusterWithNodes(nodes, opts.heapMiB ? [`--max-old-space-size=${opts.heapMiB}`] : [], opts.serverArgs);
  await Promise.all(nodeNames.map((n) => cordon(server, n, true)));
  await namespace(server, 'backlog');
  const watch = new PodWatch(server, 'backlog');
  await new Promise((r) => setTimeout(r, 300));
  await createPods(server, 'backlog', total);
  await watch.until(() => watch.unschedulable.size >= total, 600_000, 'every pod to be reported Unschedulable');
  const t0 = performance.now();
  await Promise.all(nodeNames.map((n) => cordon(server, n, false)));
  await watch.until(() => watch.bound.size >= total, 1_800_000, 'every pod to be bound');
  const secs = (Math.max(...watch.bound.values()) - t0) / 1000;
  watch.close();
  // every pod failed once while cordoned; the rest are attempts on nodes not yet uncordoned
  const retries = (await countEvents(server, 'backlog', 'reason=FailedScheduling')) - total;
  row(
    `scheduling throughput: ${total.toLocaleString('en')} pending pods onto ${nodes.toLocaleString('en')} simulated nodes${opts.heapMiB ? ` (server heap limit ${opts.heapMiB} MiB)` : ''}${opts.label ?? ''}`,
    `${(total / secs).toFixed(0)} pods/s (all bound ${secs.toFixed(1)} s after the nodes were uncordoned, ${retries.toLocaleString('en')} failed attempts meanwhile); server RSS ${rssMiB(server.proc.pid!)} MiB`,
  );
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}

/** Latency: pods created by 32 clients while the scheduler places them; creation → bound per pod. */
export async function benchCreateToBound(row: Row, total: number, nodes: number): Promise<void> {
  const { server, dir } = await clusterWithNodes(nodes);
  await namespace(server, 'sched');
  const watch = new PodWatch(server, 'sched');
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now();
  const sent = await createPods(server, 'sched', total);
  const created = performance.now();
  await watch.until(() => watch.bound.size >= total, 600_000, 'every pod to be bound');
  const end = Math.max(...watch.bound.values());
  watch.close();
  const lat = [...watch.bound].map(([n, t]) => t - sent.get(n)!);
  row(
    `scheduling while creating: ${total.toLocaleString('en')} pods onto ${nodes} simulated nodes`,
    `all bound in ${((end - t0) / 1000).toFixed(1)} s (created in ${((created - t0) / 1000).toFixed(1)} s): ${(total / ((end - t0) / 1000)).toFixed(0)} pods/s, creation → bound p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms`,
  );
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}

/** K1S_BENCH_SCHED_SCALE=small skips the 100,000-pod run (it needs several GiB and minutes). */
export async function benchScheduler(row: Row): Promise<void> {
  await benchPendingBacklog(row, 10_000, 100);
  await benchCreateToBound(row, 10_000, 100);
  // with 100,000 pods and 1,000 kubelets the server's heap reaches node's default 4 GB limit (RSS 3.9 GB there, 5.9 GB
  // with 8 GB), and the GC then runs the row at two thirds of the speed
  if (process.env.K1S_BENCH_SCHED_SCALE !== 'small') await benchPendingBacklog(row, 100_000, 1_000, { heapMiB: 8192 });
}

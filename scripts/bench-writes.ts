// CPU cost of the API server's write path (issues 3 and 5): N pod creates, bindings, status updates and event
// creates through the in-process client against a real in-process cluster (SQLite in memory, full admission
// chain, one pod watcher as the scheduler's informer would have). Reports µs of process CPU per operation, which
// other load on the machine disturbs far less than wall time.
// Usage: node dist/scripts/bench-writes.js [pods=2000] [rounds=3]
import { buildClusterApi, bootstrapClusterObjects } from '../src/cluster/api.js';
import type { KObject } from '../src/api/types.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';

const concurrency = 32;

async function inParallel(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function pod(ns: string, name: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  } as KObject;
}

/** What a kubelet writes once a pod runs: phase, IPs, conditions and one running container. */
function runningStatus(p: KObject, now: string): Record<string, unknown> {
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  return {
    ...(p.status as Record<string, unknown>),
    phase: 'Running',
    hostIP: '10.0.0.1',
    hostIPs: [{ ip: '10.0.0.1' }],
    podIP: '10.42.0.9',
    podIPs: [{ ip: '10.42.0.9' }],
    startTime: now,
    conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
    containerStatuses: [
      { name: 'c', image: 'busybox:1.36', imageID: 'sha256:abc', containerID: 'containerd://0123', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } }, lastState: {} },
    ],
  };
}

function event(ns: string, name: string, podName: string, now: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { kind: 'Pod', namespace: ns, name: podName, apiVersion: 'v1' },
    reason: 'Scheduled',
    message: `Successfully assigned ${ns}/${podName} to node-1`,
    type: 'Normal',
    source: { component: 'default-scheduler' },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: 'default-scheduler',
    reportingInstance: 'k1s',
  } as unknown as KObject;
}

async function measure(label: string, n: number, fn: (i: number) => Promise<unknown>, out: Map<string, number[]>): Promise<void> {
  const c0 = process.cpuUsage();
  await inParallel(n, fn);
  const c = process.cpuUsage(c0);
  const us = (c.user + c.system) / n;
  (out.get(label) ?? out.set(label, []).get(label)!).push(us);
}

async function round(pods: number, r: number, out: Map<string, number[]>): Promise<void> {
  const store = SqliteStore.open({ path: ':memory:' });
  const api = buildClusterApi(store, { metrics: false });
  try {
    await bootstrapClusterObjects(api);
    const ns = 'default';
    await api.client.resource('v1', 'serviceaccounts').create(ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } });
    const rc = api.client.resource('v1', 'pods');
    let seen = 0;
    const w = await rc.watch('', {}, () => void seen++);
    try {
      const names = Array.from({ length: pods }, (_, i) => `p-${r}-${i}`);
      await measure('pod create', pods, (i) => rc.create(ns, pod(ns, names[i])), out);
      await measure('pods/binding', pods, (i) =>
        rc.create(ns, { apiVersion: 'v1', kind: 'Binding', metadata: { name: names[i], namespace: ns }, target: { kind: 'Node', name: 'node-1' } } as unknown as KObject, { subresource: 'binding' }), out);
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      await measure('pod status update', pods, async (i) => {
        const cur = await rc.get(ns, names[i]);
        return rc.update(ns, { ...cur, status: runningStatus(cur, now) } as KObject, { subresource: 'status' });
      }, out);
      await measure('pod status patch', pods, (i) =>
        rc.patch(ns, names[i], 'strategic', { status: { conditions: [{ type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: now }] } }, { subresource: 'status' }), out);
      const ev = api.client.resource('v1', 'events');
      await measure('event create', pods, (i) => ev.create(ns, event(ns, `${names[i]}.${r}`, names[i], now)), out);
      if (seen < pods * 4) throw new Error(`bench: the watcher saw ${seen} events, expected ${pods * 4}`);
    } finally {
      w.stop();
    }
  } finally {
    api.stop();
    await store.close();
  }
}

async function main(): Promise<void> {
  const pods = Number(process.argv[2] ?? 2000);
  const rounds = Number(process.argv[3] ?? 3);
  const out = new Map<string, number[]>();
  await round(Math.min(pods, 500), -1, new Map()); // warm-up: JIT
  for (let r = 0; r < rounds; r++) await round(pods, r, out);
  console.log(`k1s write path, ${pods} objects × ${rounds} rounds, ${concurrency} concurrent clients (CPU µs/op: median, min)`);
  for (const [label, xs] of out) {
    const s = [...xs].sort((a, b) => a - b);
    console.log(`  ${label.padEnd(20)} ${s[Math.floor(s.length / 2)].toFixed(0).padStart(6)} ${s[0].toFixed(0).padStart(6)}`);
  }
}

await main();

// Custom-resource figures: custom-object creates beside ConfigMap creates (plain and CEL-validated schemas), how
// soon a new CRD is Established and serves objects, and discovery, memory and restarts with 200 CRDs installed.
// Like the API-server figures, taken without the controller manager and scheduler: the API server serves CRDs.
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, median, pct, request, rssMiB, startServer, stop, type Server } from './bench-server.js';

type Row = (k: string, v: string) => void;
type Obj = Record<string, unknown>;
type Make = (name: string) => Obj;

const ARGS = ['--disable-controller-manager', '--disable-scheduler'];
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CLIENTS = 8;
const TOTAL = 2000;
const ROUNDS = 3;
const INSTALLED = 200;
const G = 'apps.bench.example.com';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nsBody = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const crPath = (group: string, kind: string) => `/apis/${group}/v1/namespaces/bench/${kind.toLowerCase()}s`;

async function must(s: Server, method: string, path: string, body?: unknown): Promise<Obj> {
  const r = await request(s, method, path, body);
  if (r.status >= 300) throw new Error(`bench: ${method} ${path}: HTTP ${r.status} ${r.body.slice(0, 400)}`);
  return JSON.parse(r.body) as Obj;
}

/** Polls `done` about every millisecond (a client waiting as closely as it can); the time it first held. */
async function until(done: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<number> {
  const t0 = performance.now();
  while (!(await done())) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`bench: ${what} not after ${timeoutMs} ms`);
    await sleep(1);
  }
  return performance.now();
}

/** A GET with an Accept header (request() sends none), as kubectl's discovery asks. */
function get(s: Server, path: string, accept: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((res, rej) => {
    https
      .get(`${s.url}${path}`, { agent: s.agent, headers: { accept } }, (r) => {
        let text = '';
        r.on('data', (d) => (text += d));
        r.on('end', () => res({ status: r.statusCode ?? 0, type: String(r.headers['content-type'] ?? ''), body: text }));
      })
      .on('error', rej);
  });
}

function crd(group: string, kind: string, spec: Obj, extra: { status?: Obj; columns?: Obj[]; shortNames?: string[] } = {}): Obj {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: extra.shortNames, categories: ['bench'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: extra.status ? { status: {} } : undefined,
          additionalPrinterColumns: extra.columns,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, ...(extra.status ? { status: extra.status } : {}) } } },
        },
      ],
    },
  };
}

const established = (o: Obj) => ((o.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');

// the small schema of the create figures; the CEL variant differs only by its rules, so the ratio isolates them
const appSpec = (rules?: Obj[]): Obj => ({
  type: 'object',
  required: ['replicas', 'maxReplicas', 'name'],
  properties: {
    replicas: { type: 'integer', minimum: 0 },
    maxReplicas: { type: 'integer', minimum: 0 },
    name: { type: 'string', maxLength: 63 },
    image: { type: 'string', maxLength: 256 },
  },
  ...(rules ? { 'x-kubernetes-validations': rules } : {}),
});
const RULES = [
  { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
  { rule: "self.name.matches('^[a-z]+$')", message: 'name must be lower-case letters' },
  { rule: "!has(self.image) || self.image.contains(':')", message: 'image needs a tag' },
];
const app = (group: string, kind: string, spec: Obj = { replicas: 2, maxReplicas: 5, name: 'web', image: 'nginx:1.27' }): Make => (name) => ({
  apiVersion: `${group}/v1`,
  kind,
  metadata: { name },
  spec,
});
const configMap: Make = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } });

export interface Run {
  rate: number;
  lat: number[];
  cpuUs: number;
}

/** `TOTAL` POSTs to `path` from `CLIENTS` keep-alive clients; every one must be 201. */
export async function creates(s: Server, path: string, prefix: string, make: Make, total = TOTAL): Promise<Run> {
  const lat: number[] = [];
  let next = 0;
  const c0 = cpuMs(s.proc.pid!);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        const r = await request(s, 'POST', path, make(`${prefix}-${i}`));
        if (r.status !== 201) throw new Error(`bench: create ${path}: HTTP ${r.status} ${r.body.slice(0, 400)}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { rate: total / secs, lat, cpuUs: ((cpuMs(s.proc.pid!) - c0) * 1000) / total };
}

/** Rows 1-3: create rates and their ratios, then CRD create → Established → first object. */
async function createsAndEstablish(row: Row): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-crd-'));
  const { server: s } = await startServer(dir, ARGS);
  try {
    await must(s, 'POST', '/api/v1/namespaces', nsBody('bench'));
    await must(s, 'POST', CRDS, crd(G, 'App', appSpec()));
    await must(s, 'POST', CRDS, crd(G, 'CheckedApp', appSpec(RULES)));
    for (const k of ['App', 'CheckedApp']) await until(async () => (await request(s, 'GET', crPath(G, k))).status === 200, `${k} served`);
    // the rules must run, or the CEL figure means nothing
    const bad = await request(s, 'POST', crPath(G, 'CheckedApp'), app(G, 'CheckedApp', { replicas: 9, maxReplicas: 5, name: 'Web1' })('bad'));
    if (bad.status !== 422 || !bad.body.includes('maxReplicas') || !bad.body.includes('lower-case')) throw new Error(`bench: CEL rules not enforced: HTTP ${bad.status} ${bad.body.slice(0, 400)}`);
    const kinds: [string, string, Make][] = [
      ['cm', '/api/v1/namespaces/bench/configmaps', configMap],
      ['cr', crPath(G, 'App'), app(G, 'App')],
      ['cel', crPath(G, 'CheckedApp'), app(G, 'CheckedApp')],
    ];
    // unmeasured first, so the figures are of JIT-compiled code; then rounds interleaved, so drift hits all three
    for (const [k, path, make] of kinds) await creates(s, path, `warm-${k}`, make, 500);
    const runs: Record<string, Run[]> = { cm: [], cr: [], cel: [] };
    for (let round = 0; round < ROUNDS; round++) for (const [k, path, make] of kinds) runs[k].push(await creates(s, path, `${k}-${round}`, make));
    const sum = (rs: Run[]) => {
      const lat = rs.flatMap((r) => r.lat);
      return { rate: median(rs.map((r) => r.rate)), p50: pct(lat, 50), p99: pct(lat, 99), cpuUs: median(rs.map((r) => r.cpuUs)) };
    };
    const cm = sum(runs.cm);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rate.toFixed(0)}/s, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms; ${x.cpuUs.toFixed(0)} µs of server CPU per create`;
    const ratio = (x: ReturnType<typeof sum>) => `${(x.rate / cm.rate).toFixed(2)}× ConfigMap's rate, ${(cm.cpuUs / x.cpuUs).toFixed(2)}× by server CPU (goal ≥ 0.8×)`;
    const what = `${CLIENTS} HTTPS clients, Node.js client (${TOTAL.toLocaleString('en')} objects, median of ${ROUNDS} runs)`;
    row(`custom resources: ConfigMap creates, ${what}`, fmt(cm));
    row(`custom resources: custom-object creates (structural schema, 4 fields), ${what}`, `${fmt(sum(runs.cr))}; ${ratio(sum(runs.cr))}`);
    row(`custom resources: CEL-validated custom-object creates (${RULES.length} x-kubernetes-validations rules), ${what}`, `${fmt(sum(runs.cel))}; ${ratio(sum(runs.cel))}`);

    const est: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < 20; i++) {
      const group = `probe${i}.bench.example.com`;
      const t0 = performance.now();
      await must(s, 'POST', CRDS, crd(group, 'Probe', appSpec()));
      est.push((await until(async () => established(await must(s, 'GET', `${CRDS}/probes.${group}`)), `CRD probes.${group} Established`)) - t0);
      const make = app(group, 'Probe');
      first.push((await until(async () => (await request(s, 'POST', crPath(group, 'Probe'), make('first'))).status === 201, `first Probe of ${group} created`)) - t0);
    }
    row('custom resources: CRD create → GET shows Established True (median of 20, polled every ms; goal < 50 ms)', `${median(est).toFixed(1)} ms (max ${Math.max(...est).toFixed(1)} ms)`);
    row('custom resources: CRD create → first custom-object create succeeds (median of 20)', `${median(first).toFixed(1)} ms (max ${Math.max(...first).toFixed(1)} ms)`);
  } finally {
    await stop(s);
    rmSync(dir, { recursive: true, force: true });
  }
}

// the 200 installed CRDs: a realistic operator's schema (a pod template, storage, TLS, endpoints, conditions)
const WORDS = ['Database', 'Cache', 'Queue', 'Topic', 'Bucket', 'Certificate', 'Gateway', 'Route', 'Policy', 'Backup'];
const str = (description: string, extra: Obj = {}): Obj => ({ type: 'string', description, ...extra });
const int = (description: string, extra: Obj = {}): Obj => ({ type: 'integer', format: 'int32', description, ...extra });
const map = (description: string): Obj => ({ type: 'object', description, additionalProperties: { type: 'string' } });
const obj = (description: string, properties: Obj, extra: Obj = {}): Obj => ({ type: 'object', description, properties, ...extra });
const quantities = (d: string): Obj => ({ type: 'object', description: d, additionalProperties: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+(\\.[0-9]+)?(m|Ki|Mi|Gi|Ti)?$' } });

function bigSpec(kind: string): Obj {
  const container = obj('A container of the workload.', {
    name: str('Name of the container, unique within the template.', { maxLength: 63 }),
    image: str('Container image reference, with the registry and a tag or digest.'),
    imagePullPolicy: str('When to pull the image.', { enum: ['Always', 'IfNotPresent', 'Never'] }),
    args: { type: 'array', description: 'Arguments to the entrypoint.', items: { type: 'string' } },
    env: { type: 'array', description: 'Environment variables to set in the container.', items: obj('An environment variable.', { name: str('Variable name.'), value: str('Variable value.') }, { required: ['name'] }) },
    resources: obj('Compute resources of the container.', { limits: quantities('Maximum resources allowed.'), requests: quantities('Minimum resources required.') }),
  }, { required: ['name', 'image'] });
  return obj(`${kind}Spec is the desired state of a ${kind}.`, {
    replicas: int('Number of desired instances; 0 suspends the workload.', { minimum: 0, maximum: 100 }),
    version: str('Version of the managed software to run.', { pattern: '^v?[0-9]+\\.[0-9]+(\\.[0-9]+)?$' }),
    paused: { type: 'boolean', description: 'Stops reconciliation while true.' },
    schedule: str('Cron schedule of maintenance operations.'),
    retention: obj('How long backups are kept.', { days: int('Days to keep backups.', { minimum: 1 }), count: int('Backups to keep.', { minimum: 1 }) }),
    storage: obj('Persistent storage of each instance.', {
      size: { 'x-kubernetes-int-or-string': true, description: 'Size of the volume of each instance.' },
      storageClassName: str('StorageClass of the volumes; the default class if empty.'),
      accessModes: { type: 'array', description: 'Access modes of the volumes.', items: { type: 'string', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] } },
    }),
    tls: obj('TLS settings of the served endpoints.', {
      enabled: { type: 'boolean', description: 'Serves TLS when true.' },
      secretName: str('Secret holding the certificate and key.'),
      issuerRef: obj('Issuer of the certificate.', { name: str('Issuer name.'), kind: str('Issuer kind.'), group: str('Issuer API group.') }, { required: ['name'] }),
    }),
    endpoints: {
      type: 'array',
      description: 'Ports the workload serves.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: obj('A served port.', { name: str('Port name.'), port: int('Port number.', { minimum: 1, maximum: 65535 }), protocol: str('Protocol.', { enum: ['TCP', 'UDP', 'SCTP'] }) }, { required: ['name', 'port'] }),
    },
    template: obj('Template of the pods the operator creates.', {
      metadata: obj('Labels and annotations of the pods.', { labels: map('Labels of the pods.'), annotations: map('Annotations of the pods.') }),
      spec: obj('Pod settings.', {
        containers: { type: 'array', description: 'Containers of each pod.', items: container },
        nodeSelector: map('Labels a node must have to run the pods.'),
        serviceAccountName: str('ServiceAccount the pods run as.'),
        tolerations: {
          type: 'array',
          description: 'Taints the pods tolerate.',
          items: obj('A toleration.', { key: str('Taint key.'), operator: str('How key and value are compared.', { enum: ['Exists', 'Equal'] }), value: str('Taint value.'), effect: str('Taint effect.', { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] }) }),
        },
      }),
    }),
  }, { required: ['replicas'] });
}

const bigStatus = obj('Observed state.', {
  phase: str('Summary of the state.', { enum: ['Pending', 'Running', 'Failed'] }),
  observedGeneration: { type: 'integer', format: 'int64', description: 'Generation last reconciled.' },
  readyReplicas: int('Instances ready.'),
  conditions: {
    type: 'array',
    description: 'Latest observations of the state.',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    items: obj('A condition.', {
      type: str('Condition type.'),
      status: str('Condition status.', { enum: ['True', 'False', 'Unknown'] }),
      reason: str('Machine-readable reason of the last transition.'),
      message: str('Human-readable details of the last transition.'),
      lastTransitionTime: str('When the status last changed.', { format: 'date-time' }),
      observedGeneration: { type: 'integer', format: 'int64', description: 'Generation the condition was set for.' },
    }, { required: ['type', 'status'] }),
  },
});

function installed(i: number): { group: string; kind: string; body: Obj } {
  const word = WORDS[i % WORDS.length];
  const kind = `${word}${i}`;
  const group = `${word.toLowerCase()}${i}.bench.example.com`;
  const columns = [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  return { group, kind, body: crd(group, kind, bigSpec(kind), { status: bigStatus, columns, shortNames: [`${word.slice(0, 2).toLowerCase()}${i}`] }) };
}

// client-go's Accept for discovery: aggregated v2, then v2beta1, then the legacy documents
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** kubectl 1.33's discovery: /api and /apis in the aggregated form. */
async function aggregated(s: Server): Promise<{ ms: number; groups: number; kib: number }> {
  const t0 = performance.now();
  const core = await get(s, '/api', AGGREGATED);
  const apis = await get(s, '/apis', AGGREGATED);
  const ms = performance.now() - t0;
  for (const r of [core, apis]) if (r.status !== 200 || !r.type.includes('as=APIGroupDiscoveryList')) throw new Error(`bench: aggregated discovery: HTTP ${r.status} ${r.type}`);
  return { ms, groups: (JSON.parse(apis.body).items as unknown[]).length, kib: (core.body.length + apis.body.length) / 1024 };
}

/** Discovery of older clients (and client-go without aggregation): /api, /apis, then every group-version at once. */
async function legacy(s: Server): Promise<{ ms: number; requests: number }> {
  const t0 = performance.now();
  const [, apis] = await Promise.all([get(s, '/api', 'application/json'), get(s, '/apis', 'application/json')]);
  const gvs = (JSON.parse(apis.body).groups as { versions: { groupVersion: string }[] }[]).flatMap((g) => g.versions.map((v) => `/apis/${v.groupVersion}`));
  const rs = await Promise.all(['/api/v1', ...gvs].map((p) => get(s, p, 'application/json')));
  const ms = performance.now() - t0;
  const bad = rs.find((r) => r.status !== 200);
  if (bad) throw new Error(`bench: legacy discovery: HTTP ${bad.status} ${bad.body.slice(0, 300)}`);
  return { ms, requests: 3 + gvs.length };
}

async function discovery(s: Server): Promise<{ agg: number; first: number; groups: number; kib: number; legacy: number; requests: number }> {
  const firstRun = await aggregated(s);
  const agg: number[] = [];
  for (let i = 0; i < 10; i++) agg.push((await aggregated(s)).ms);
  const leg: Awaited<ReturnType<typeof legacy>>[] = [];
  for (let i = 0; i < 5; i++) leg.push(await legacy(s));
  return { agg: median(agg), first: firstRun.ms, groups: firstRun.groups, kib: firstRun.kib, legacy: median(leg.map((l) => l.ms)), requests: leg[0].requests };
}

/** Starts the server on `dir`; with `probe`, also the time (from spawn) until GET `probe` answers 200. */
async function start(dir: string, probe?: string): Promise<{ server: Server; ready: number; served: number }> {
  const t0 = performance.now();
  const { server, readyMs } = await startServer(dir, ARGS);
  if (probe) await until(async () => (await request(server, 'GET', probe)).status === 200, `GET ${probe} after a restart`, 30_000);
  return { server, ready: readyMs, served: performance.now() - t0 };
}

/** Row 4: 200 CRDs installed: install time, discovery, RSS and cold starts, each beside the same server without them. */
async function manyCRDs(row: Row): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-crd-'));
  let s = (await start(dir)).server;
  try {
    await must(s, 'POST', '/api/v1/namespaces', nsBody('bench'));
    const plain = await discovery(s);
    const restartsBefore: number[] = [];
    for (let i = 0; i < 3; i++) {
      await stop(s);
      const r = await start(dir);
      s = r.server;
      restartsBefore.push(r.ready);
    }
    const rssBefore = rssMiB(s.proc.pid!);

    const crds = Array.from({ length: INSTALLED }, (_, i) => installed(i));
    const kib = JSON.stringify(crds[0].body).length / 1024;
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < INSTALLED; i = next++) await must(s, 'POST', CRDS, crds[i].body);
    }));
    for (const c of crds) await until(async () => (await request(s, 'GET', crPath(c.group, c.kind))).status === 200, `${c.kind} served`, 30_000);
    row(`custom resources: ${INSTALLED} CRDs (${kib.toFixed(1)} KiB each) created by ${CLIENTS} clients → all serve their objects`, `${((performance.now() - t0) / 1000).toFixed(2)} s`);
    const rssInstalled = rssMiB(s.proc.pid!);

    const last = crds[INSTALLED - 1];
    await must(s, 'POST', crPath(last.group, last.kind), {
      apiVersion: `${last.group}/v1`,
      kind: last.kind,
      metadata: { name: 'last' },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
    const d = await discovery(s);
    if (d.groups < plain.groups + INSTALLED) throw new Error(`bench: aggregated discovery lists ${d.groups} groups, expected ${plain.groups + INSTALLED}`);
    row(
      `custom resources: discovery with ${INSTALLED} CRDs, aggregated (GET /api + /apis, apidiscovery v2 as kubectl 1.33; median of 10)`,
      `${d.agg.toFixed(1)} ms (first after install ${d.first.toFixed(1)} ms; ${d.groups} groups, ${d.kib.toFixed(0)} KiB) vs ${plain.agg.toFixed(1)} ms without CRDs (${plain.kib.toFixed(0)} KiB)`,
    );
    row(
      `custom resources: discovery with ${INSTALLED} CRDs, legacy (GET /api, /apis, then every group-version in parallel; median of 5)`,
      `${d.legacy.toFixed(0)} ms for ${d.requests} requests vs ${plain.legacy.toFixed(0)} ms for ${plain.requests} without CRDs`,
    );
    const rssDiscovered = rssMiB(s.proc.pid!);

    const probe = `${crPath(last.group, last.kind)}/last`;
    const restarts: Awaited<ReturnType<typeof start>>[] = [];
    for (let i = 0; i < 3; i++) {
      await stop(s);
      const r = await start(dir, probe);
      s = r.server;
      restarts.push(r);
    }
    const rssRestarted = rssMiB(s.proc.pid!);
    row(
      `custom resources: server RSS, ${INSTALLED} CRDs: before / installed / after discovery / after a restart`,
      `${rssBefore} / ${rssInstalled} / ${rssDiscovered} / ${rssRestarted} MiB`,
    );
    row(
      `custom resources: cold start to ready, existing data dir with ${INSTALLED} CRDs (median of 3)`,
      `${median(restarts.map((r) => r.ready)).toFixed(0)} ms vs ${median(restartsBefore).toFixed(0)} ms without CRDs`,
    );
    row(`custom resources: cold start with ${INSTALLED} CRDs → GET of an object of the ${INSTALLED}th CRD succeeds (median of 3)`, `${median(restarts.map((r) => r.served)).toFixed(0)} ms`);
  } finally {
    await stop(s);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchCustomResources(row: Row): Promise<void> {
  await createsAndEstablish(row);
  await manyCRDs(row);
}

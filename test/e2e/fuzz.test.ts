// A bounded fuzz run against the HTTPS API: a few thousand malformed requests of every method, content type and
// body framing (Content-Length and chunked) over keep-alive connections. Every answer must be a 4xx (or a success
// for what happens to be valid), never a 5xx, never a reset connection; error answers are Status objects; the
// server stays healthy and nothing outside the fuzzed namespace changes.
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster } from '../../src/cluster/cluster.js';
import { testDatastore } from './datastore.js';

let cluster: Cluster;
let agent: https.Agent;
let dir: string;

/** A small deterministic PRNG (mulberry32), so a failing run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answer {
  status: number;
  body: string;
  contentType: string;
}

function send(method: string, path: string, body: Buffer | undefined, headers: Record<string, string>, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string> = { ...headers };
    if (body && !chunked) h['content-length'] = String(body.length);
    // named, or node's client would send a GET or DELETE body with no framing at all
    if (body && chunked) h['transfer-encoding'] = 'chunked';
    const r = https.request(`${cluster.url}${path}`, { method, agent, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), contentType: String(res.headers['content-type'] ?? '') }));
      res.on('error', reject);
    });
    r.setTimeout(15_000, () => r.destroy(new Error(`timeout: ${method} ${path}`)));
    r.on('error', reject);
    if (body && chunked) {
      // two chunks, so the body really arrives in pieces
      r.write(body.subarray(0, body.length >> 1));
      r.end(body.subarray(body.length >> 1));
    } else r.end(body);
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CONTENT_TYPES = [
  'application/json', 'application/yaml', 'application/merge-patch+json', 'application/json-patch+json',
  'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf',
  'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', '', 'garbage/!!',
];
const RESOURCES = ['configmaps', 'secrets', 'pods', 'services', 'events', 'serviceaccounts', 'nothere'];
const NAMES = ['x', '', '..', '.', '%2F', 'a%2Fb', '%zz', '%', 'UPPER', 'a'.repeat(300), 'ok-name', '%00', 'a b', "'", '%E2%80%A8'];
const QUERIES = [
  '', '?watch=maybe&timeoutSeconds=1', '?limit=abc', '?limit=-1', '?limit=99999999999999999999', '?dryRun=All', '?dryRun=bogus',
  '?fieldManager=' + 'm'.repeat(200), '?fieldValidation=Nope', '?labelSelector=a%20in%20(', '?fieldSelector=foo=bar',
  '?propagationPolicy=Bogus', '?gracePeriodSeconds=x', '?resourceVersion=abc', '?resourceVersionMatch=Exact', '?continue=garbage',
  '?pretty=1', '?orphanDependents=maybe', '?force=true',
];

function bodyFor(rnd: () => number, name: string): Buffer | undefined {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const kind = Math.floor(rnd() * 12);
  switch (kind) {
    case 0: return undefined;
    case 1: return Buffer.from('garbage');
    case 2: return Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' + name.slice(0, 40) + '"');
    case 3: return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: pick(['ConfigMap', 'Pod', 'Secret', 'Nope', 7]), metadata: { name: pick(NAMES) }, data: pick([{ a: 1 }, 'str', [1], null, { a: 'b' }]) }));
    case 4: return Buffer.from('['.repeat(5000) + ']'.repeat(5000));
    case 5: return Buffer.from(JSON.stringify([{ op: pick(['add', 'remove', 'bogus', 'test']), path: pick(['/data/a', '', '/metadata/name', '~x']), value: pick([1, 'x', null]) }]));
    case 6: return Buffer.from('a: [b\n  c: {');
    case 7: return Buffer.from([0x0a, 0x0b, 0xff, 0x00, 0x6b, 0x38, 0x73, 0x00]);
    case 8: return Buffer.from('{"propagationPolicy":"Bogus"}');
    case 9: return Buffer.from('{"metadata":{"name":1e999,"labels":{"a":{"b":1}}}}');
    case 10: return Buffer.from('k8s\x00' + 'x'.repeat(100));
    default: return Buffer.from(JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: pick([-5, 'x', 1.5, null]), preconditions: { uid: 7 } }));
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k1s-fuzz-'));
  cluster = await Cluster.start({ dataDir: dir, datastore: await testDatastore(dir), port: 0, bindAddress: '127.0.0.1', log: () => {} });
  agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: cluster.pki.ca.certPem, cert: cluster.pki.admin.certPem, key: cluster.pki.admin.keyPem });
  const ns = await send('POST', '/api/v1/namespaces', Buffer.from('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzz"}}'), { 'content-type': 'application/json' }, false);
  assert.equal(ns.status, 201);
  const cm = await send('POST', '/api/v1/namespaces/default/configmaps', Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sentinel"},"data":{"k":"v"}}'), { 'content-type': 'application/json' }, false);
  assert.equal(cm.status, 201);
});

after(async () => {
  agent.destroy();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('fuzzing the API', () => {
  it('answers thousands of malformed requests with 4xx Status objects, no 5xx, no resets, and stays healthy', async () => {
    const seed = Number(process.env.K1S_FUZZ_SEED ?? Date.now() % 100000);
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const before = await send('GET', '/api/v1/namespaces/default/configmaps/sentinel', undefined, {}, false);
    const total = 3000;
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < total && failures.length < 20) {
        next++;
        const method = pick(METHODS);
        const name = pick(NAMES);
        const collection = rnd() < 0.3;
        const path = `/api/v1/namespaces/fuzz/${pick(RESOURCES)}${collection ? '' : `/${name}`}${rnd() < 0.15 ? pick(['/status', '/log', '/nothing', '/exec']) : ''}${pick(QUERIES)}`;
        const body = bodyFor(rnd, name);
        const ct = pick(CONTENT_TYPES);
        const headers: Record<string, string> = ct ? { 'content-type': ct } : {};
        if (rnd() < 0.1) headers.accept = pick(['application/json;as=Table;g=meta.k8s.io;v=v1', 'application/vnd.kubernetes.protobuf', 'text/html', '*/*', 'application/yaml']);
        const what = `${method} ${path} [${ct}] ${body ? JSON.stringify(body.toString('latin1').slice(0, 60)) : '(no body)'}`;
        try {
          const a = await send(method, path, body, headers, rnd() < 0.5);
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
          if (a.status >= 500 || a.status < 200) failures.push(`${a.status} for ${what}: ${a.body.slice(0, 300)}`);
          else if (a.status >= 400 && a.contentType.startsWith('application/json')) {
            const s = JSON.parse(a.body);
            if (s.kind !== 'Status' || s.code !== a.status || typeof s.message !== 'string') failures.push(`not a Status for ${what}: ${a.body.slice(0, 300)}`);
          } else if (a.status >= 400 && !a.contentType.startsWith('application/vnd.kubernetes.protobuf') && !a.contentType.startsWith('application/yaml')) {
            failures.push(`${a.status} with content type ${a.contentType} for ${what}: ${a.body.slice(0, 200)}`);
          }
        } catch (e) {
          failures.push(`${(e as Error).message} for ${what}`);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    assert.deepEqual(failures, [], `seed ${seed}; answers by status: ${JSON.stringify([...statuses])}`);
    // the fuzz run reached the handlers, not only a front door
    assert.ok([...statuses.keys()].filter((s) => s >= 400).length >= 4, JSON.stringify([...statuses]));
    const health = await send('GET', '/readyz', undefined, {}, false);
    assert.equal(health.status, 200);
    const afterwards = await send('GET', '/api/v1/namespaces/default/configmaps/sentinel', undefined, {}, false);
    assert.equal(afterwards.body, before.body, 'nothing outside the fuzzed namespace changed');
  });
});

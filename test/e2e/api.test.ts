// API machinery over HTTPS against an in-process cluster: paging, resourceVersion rules, watch, tables, dry run,
// field validation, size and media-type errors, optimistic concurrency, finalizers and graceful deletion.
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

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const r = https.request(`${cluster.url}${path}`, { method, agent, headers: { 'content-type': 'application/json', ...(data !== undefined ? { 'content-length': String(Buffer.byteLength(data)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    r.on('error', reject);
    r.end(data);
  });
}

/** Opens a watch and collects its events until `until` returns true or the timeout passes. */
function watch(path: string, until: (evs: any[]) => boolean, timeoutMs = 5000): Promise<any[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const evs: unknown[] = [];
    const r = https.get(`${cluster.url}${path}`, { agent: new https.Agent({ ...agent.options, keepAlive: false }) }, (res) => {
      let buf = '';
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          evs.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
        }
        if (until(evs)) {
          r.destroy();
          resolve(evs);
        }
      });
      res.on('end', () => resolve(evs));
    });
    r.on('error', (e) => (evs.length ? resolve(evs) : reject(e)));
    setTimeout(() => {
      r.destroy();
      resolve(evs);
    }, timeoutMs).unref();
  });
}

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k1s-api-'));
  cluster = await Cluster.start({ dataDir: dir, datastore: await testDatastore(dir), port: 0, bindAddress: '127.0.0.1', log: () => {}, bookmarkIntervalMs: 200 });
  agent = new https.Agent({ keepAlive: true, ca: cluster.pki.ca.certPem, cert: cluster.pki.admin.certPem, key: cluster.pki.admin.keyPem });
  await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'api' } });
});

after(async () => {
  agent.destroy();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('API machinery', () => {
  it('pages lists with limit and continue at one revision', async () => {
    for (let i = 0; i < 7; i++) assert.equal((await req('POST', '/api/v1/namespaces/api/configmaps', cm(`page-${i}`, {}, { set: 'page' }))).status, 201);
    const first = await req('GET', '/api/v1/namespaces/api/configmaps?limit=3&labelSelector=set%3Dpage');
    assert.equal(first.json.items.length, 3);
    assert.ok(first.json.metadata.continue);
    assert.equal(first.json.metadata.remainingItemCount, undefined);
    const unfiltered = await req('GET', '/api/v1/namespaces/api/configmaps?limit=3');
    assert.ok(unfiltered.json.metadata.remainingItemCount >= 4);
    // a write between pages does not show up: the continuation reads at the first page's revision
    await req('POST', '/api/v1/namespaces/api/configmaps', cm('page-late', {}, { set: 'page' }));
    const names: string[] = first.json.items.map((i: any) => i.metadata.name); // eslint-disable-line @typescript-eslint/no-explicit-any
    let token = first.json.metadata.continue;
    while (token) {
      const next = await req('GET', `/api/v1/namespaces/api/configmaps?limit=3&labelSelector=set%3Dpage&continue=${encodeURIComponent(token)}`);
      assert.equal(next.status, 200);
      names.push(...next.json.items.map((i: any) => i.metadata.name)); // eslint-disable-line @typescript-eslint/no-explicit-any
      assert.equal(next.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
      token = next.json.metadata.continue;
    }
    assert.deepEqual(names, Array.from({ length: 7 }, (_, i) => `page-${i}`));
    const bad = await req('GET', '/api/v1/namespaces/api/configmaps?limit=3&continue=garbage');
    assert.equal(bad.status, 400);
  });

  it('honours resourceVersion and resourceVersionMatch on lists', async () => {
    const a = await req('POST', '/api/v1/namespaces/api/configmaps', cm('rv-a'));
    const rv = a.json.metadata.resourceVersion;
    await req('POST', '/api/v1/namespaces/api/configmaps', cm('rv-b'));
    const exact = await req('GET', `/api/v1/namespaces/api/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    const names = exact.json.items.map((i: any) => i.metadata.name); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.ok(names.includes('rv-a') && !names.includes('rv-b'));
    assert.equal(exact.json.metadata.resourceVersion, rv);
    const noRv = await req('GET', '/api/v1/namespaces/api/configmaps?resourceVersionMatch=Exact');
    assert.equal(noRv.status, 400);
    const future = await req('GET', `/api/v1/namespaces/api/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
    assert.equal(future.status, 504);
    assert.match(future.json.message, /Too large resource version/);
  });

  it('watches from a revision, filters by label, sends bookmarks and initial-events-end', async () => {
    const start = await req('POST', '/api/v1/namespaces/api/configmaps', cm('w-0', {}, { w: 'yes' }));
    const rv = start.json.metadata.resourceVersion;
    const evsP = watch(`/api/v1/namespaces/api/configmaps?watch=true&resourceVersion=${rv}&labelSelector=w%3Dyes&allowWatchBookmarks=true`, (e) =>
      e.some((x) => x.type === 'DELETED') && e.some((x) => x.type === 'BOOKMARK'),
    );
    await new Promise((r) => setTimeout(r, 100));
    await req('POST', '/api/v1/namespaces/api/configmaps', cm('w-1', {}, { w: 'yes' }));
    await req('POST', '/api/v1/namespaces/api/configmaps', cm('w-other', {}, { w: 'no' }));
    await req('PATCH', '/api/v1/namespaces/api/configmaps/w-1', { metadata: { labels: { w: 'no' } } }, { 'content-type': 'application/merge-patch+json' });
    const evs = await evsP;
    const seen = evs.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`);
    // leaving the selector is a DELETED for this watcher; w-0 (at the start revision) is not replayed
    assert.deepEqual(seen, ['ADDED w-1', 'DELETED w-1']);
    const bm = evs.find((e) => e.type === 'BOOKMARK');
    assert.equal(bm.object.kind, 'ConfigMap');
    assert.ok(Number(bm.object.metadata.resourceVersion) >= Number(rv));
    const initial = await watch('/api/v1/namespaces/api/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=w%3Dyes', (e) =>
      e.some((x) => x.type === 'BOOKMARK'),
    );
    assert.equal(initial[0].type, 'ADDED');
    const end = initial.find((e) => e.type === 'BOOKMARK');
    assert.equal(end.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });

  it('expires watches from compacted revisions with 410', async () => {
    const a = await req('POST', '/api/v1/namespaces/api/configmaps', cm('cmp-a'));
    await req('PUT', '/api/v1/namespaces/api/configmaps/cmp-a', cm('cmp-a', { x: '1' }));
    await cluster.store.compact(cluster.store.currentRevision());
    const evs = await watch(`/api/v1/namespaces/api/configmaps?watch=true&resourceVersion=${Number(a.json.metadata.resourceVersion) - 1}`, (e) => e.length > 0, 2000);
    assert.equal(evs[0].type, 'ERROR');
    assert.equal(evs[0].object.code, 410);
    assert.equal(evs[0].object.reason, 'Expired');
  });

  it('answers tables with the kind columns', async () => {
    const t = await req('GET', '/api/v1/namespaces/api/configmaps?limit=2', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(t.json.kind, 'Table');
    assert.deepEqual(t.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(t.json.rows[0].object.kind, 'PartialObjectMetadata');
    const proto = await req('GET', '/api/v1/namespaces/api/configmaps', undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(proto.status, 406);
    const yaml = await req('GET', '/api/v1/namespaces/api/configmaps/rv-a', undefined, { accept: 'application/yaml' });
    assert.match(yaml.text, /^kind: ConfigMap$/m);
  });

  it('dry-runs writes without storing them', async () => {
    const r = await req('POST', '/api/v1/namespaces/api/configmaps?dryRun=All', cm('dry'));
    assert.equal(r.status, 201);
    assert.equal((await req('GET', '/api/v1/namespaces/api/configmaps/dry')).status, 404);
    const bad = await req('POST', '/api/v1/namespaces/api/configmaps?dryRun=Some', cm('dry'));
    assert.equal(bad.status, 400);
  });

  it('validates fields strictly, with warnings, or not at all', async () => {
    const body = { ...cm('fv'), bogus: 1 };
    const strict = await req('POST', '/api/v1/namespaces/api/configmaps?fieldValidation=Strict', body);
    assert.equal(strict.status, 400);
    assert.match(strict.json.message, /strict decoding error: unknown field "bogus"/);
    const dup = await req('POST', '/api/v1/namespaces/api/configmaps?fieldValidation=Strict', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d"}}');
    assert.match(dup.json.message, /duplicate field "metadata.name"/);
    const warn = await req('POST', '/api/v1/namespaces/api/configmaps?fieldValidation=Warn', body);
    assert.equal(warn.status, 201);
    assert.match(String(warn.headers.warning), /299 - "unknown field \\"bogus\\""/);
    const wrongType = await req('POST', '/api/v1/namespaces/api/configmaps', { ...cm('wt'), data: 'nope' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.json.message, /ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string/);
  });

  it('rejects bad bodies, kinds and sizes with Status errors', async () => {
    const malformed = await req('POST', '/api/v1/namespaces/api/configmaps', '{"apiVersion":');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.kind, 'Status');
    const wrongKind = await req('POST', '/api/v1/namespaces/api/configmaps', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(wrongKind.status, 400);
    const big = await req('POST', '/api/v1/namespaces/api/configmaps', cm('big', { a: 'x'.repeat(3 * 1024 * 1024 + 10) }));
    assert.equal(big.status, 413);
    assert.equal(big.json.reason, 'RequestEntityTooLarge');
    const media = await req('POST', '/api/v1/namespaces/api/configmaps', 'x', { 'content-type': 'text/plain' });
    assert.equal(media.status, 415);
    const notFound = await req('GET', '/api/v1/namespaces/api/widgets');
    assert.equal(notFound.status, 404);
    const invalid = await req('POST', '/api/v1/namespaces/api/configmaps', cm('Bad_Name'));
    assert.equal(invalid.status, 422);
    assert.match(invalid.json.message, /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  it('rejects stale updates with 409 and keeps generation for spec changes only', async () => {
    const a = await req('POST', '/api/v1/namespaces/api/configmaps', cm('occ'));
    const stale = { ...a.json, data: { v: '1' } };
    assert.equal((await req('PUT', '/api/v1/namespaces/api/configmaps/occ', stale)).status, 200);
    const conflict = await req('PUT', '/api/v1/namespaces/api/configmaps/occ', { ...stale, data: { v: '2' } });
    assert.equal(conflict.status, 409);
    assert.match(conflict.json.message, /the object has been modified; please apply your changes to the latest version and try again/);
    const pod = await req('POST', '/api/v1/namespaces/api/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'gen' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(pod.json.metadata.generation, 1);
    const relabel = await req('PATCH', '/api/v1/namespaces/api/pods/gen', { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(relabel.json.metadata.generation, 1);
    const image = await req('PATCH', '/api/v1/namespaces/api/pods/gen', { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.equal(image.status, 200, image.text);
    assert.equal(image.json.metadata.generation, 2);
    const status = await req('PATCH', '/api/v1/namespaces/api/pods/gen/status', { status: { phase: 'Running' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(status.json.status.phase, 'Running');
    assert.equal(status.json.metadata.generation, 2);
    const mainIgnoresStatus = await req('PATCH', '/api/v1/namespaces/api/pods/gen', { status: { phase: 'Failed' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(mainIgnoresStatus.json.status.phase, 'Running');
  });

  it('deletes with finalizers, preconditions and propagation policies', async () => {
    const a = await req('POST', '/api/v1/namespaces/api/configmaps', { ...cm('fin'), metadata: { name: 'fin', finalizers: ['example.com/x'] } });
    const pre = await req('DELETE', '/api/v1/namespaces/api/configmaps/fin', { preconditions: { uid: 'wrong' } });
    assert.equal(pre.status, 409);
    const del = await req('DELETE', '/api/v1/namespaces/api/configmaps/fin', { propagationPolicy: 'Foreground' });
    assert.equal(del.status, 202);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.metadata.finalizers, ['example.com/x', 'foregroundDeletion']);
    await req('PATCH', '/api/v1/namespaces/api/configmaps/fin', [{ op: 'remove', path: '/metadata/finalizers' }], { 'content-type': 'application/json-patch+json' });
    assert.equal((await req('GET', '/api/v1/namespaces/api/configmaps/fin')).status, 404);
    assert.ok(a.json.metadata.uid);
    const plain = await req('POST', '/api/v1/namespaces/api/configmaps', cm('plain'));
    const gone = await req('DELETE', `/api/v1/namespaces/api/configmaps/plain`, { preconditions: { uid: plain.json.metadata.uid } });
    assert.equal(gone.status, 200);
    assert.equal(gone.json.kind, 'Status');
    assert.equal(gone.json.status, 'Success');
    assert.equal(gone.json.details.uid, plain.json.metadata.uid);
  });

  it('serves health, version and discovery', async () => {
    assert.equal((await req('GET', '/readyz')).text, 'ok');
    assert.match((await req('GET', '/livez?verbose')).text, /livez check passed/);
    assert.equal((await req('GET', '/version')).json.minor, '33');
    const agg = await req('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    assert.equal(agg.json.kind, 'APIGroupDiscoveryList');
    assert.match(String(agg.headers['content-type']), /as=APIGroupDiscoveryList/);
    const v3 = await req('GET', '/openapi/v3');
    assert.ok(v3.json.paths['api/v1']);
    // the address the client reached, as kube answers its advertise address and port
    const port = new URL(cluster.url).port;
    assert.deepEqual((await req('GET', '/api')).json.serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }]);
  });

  it('writes objects and lists as kube does: Go field order, items without kind, a newline after compact JSON', async () => {
    const body = { data: { z: '1', a: '2' }, metadata: { labels: { b: '1', a: '1' }, name: 'order' }, apiVersion: 'v1', kind: 'ConfigMap' };
    const created = await req('POST', '/api/v1/namespaces/default/configmaps', body);
    assert.equal(created.status, 201);
    const got = await req('GET', '/api/v1/namespaces/default/configmaps/order');
    const rv = got.json.metadata.resourceVersion;
    const uid = got.json.metadata.uid;
    const ts = got.json.metadata.creationTimestamp;
    const mf = JSON.stringify(got.json.metadata.managedFields);
    const want =
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"order","namespace":"default","uid":"${uid}","resourceVersion":"${rv}",` +
      `"creationTimestamp":"${ts}","labels":{"a":"1","b":"1"},"managedFields":${mf}},"data":{"a":"2","z":"1"}}\n`;
    assert.equal(got.text, want);
    assert.equal(created.text, want);
    const list = await req('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dorder');
    assert.equal(list.text, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${list.json.metadata.resourceVersion}"},"items":[${want.trim().replace('{"kind":"ConfigMap","apiVersion":"v1",', '{')}]}\n`);
    const ev = await watch(`/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dorder&resourceVersion=${Number(rv) - 1}`, (e) => e.length >= 1);
    assert.equal(JSON.stringify(ev[0].object) + '\n', want);
  });
});

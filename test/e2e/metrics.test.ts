// /metrics end to end: scraped with the admin kubeconfig's client certificate and read back by a Prometheus
// text-format parser; kube's families with their label names go up after kubectl actions; a user without the
// non-resource URL gets kube's 403 Status, a member of system:monitoring gets in; the OpenMetrics variant.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createClientCert, type CertKeyPem } from '../../src/pki/certs.js';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';
import { labelNamesOf, parsePrometheusText, sampleValue, type Exposition } from '../prometheus-text.js';

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let admin: { certPem: string; keyPem: string };
let caPem: string;

function get(path: string, who: { certPem: string; keyPem: string }, accept?: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((res, rej) => {
    const req = request(`${server.url}${path}`, { ca: caPem, cert: who.certPem, key: who.keyPem, headers: accept ? { accept } : {} }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d) => (body += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), body }));
    });
    req.on('error', rej);
    req.end();
  });
}

async function scrape(): Promise<Exposition> {
  const r = await get('/metrics', admin);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.type, 'text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(r.body);
}


before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  const kc = parse(readFileSync(server.kubeconfig, 'utf8'));
  const user = kc.users[0].user;
  admin = { certPem: Buffer.from(user['client-certificate-data'], 'base64').toString(), keyPem: Buffer.from(user['client-key-data'], 'base64').toString() };
  caPem = readFileSync(join(server.dataDir, 'tls', 'ca.crt'), 'utf8');
  // the root-CA publisher's creates in the system namespaces come after the ready line (later still on etcd): the
  // counts the first test compares start once they are done
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    await until(async () => (await k.run(['-n', ns, 'get', 'configmap', 'kube-root-ca.crt'])).code === 0, `kube-root-ca.crt in ${ns}`, 20_000);
  }
});

after(async () => {
  await server.stop();
  removeDir(server.dataDir);
});

describe('/metrics', () => {
  it("serves kube's families, and their counts go up with kubectl actions", async () => {
    const before = await scrape();
    const created = (f: Exposition) => sampleValue(f, 'apiserver_request_total', { verb: 'CREATE', resource: 'configmaps', code: '201', group: '', version: 'v1' }) ?? 0;
    await k.ok(['create', 'namespace', 'metrics']);
    for (const n of ['a', 'b', 'c']) await k.ok(['-n', 'metrics', 'create', 'configmap', n, '--from-literal=k=v']);
    await k.ok(['-n', 'metrics', 'get', 'configmaps']);
    await k.ok(['create', 'deployment', 'web', '-n', 'metrics', '--image=registry.k8s.io/pause:3.10']);
    // no node: the pod stays unschedulable
    const fams = await until(async () => {
      const f = await scrape();
      // the deployment controller has run its queue, and the ReplicaSet's pod waits for a node
      return (sampleValue(f, 'workqueue_adds_total', { name: 'deployment' }) ?? 0) > 0 && (sampleValue(f, 'scheduler_schedule_attempts_total') ?? 0) > 0 && f;
    }, 'the controllers and the scheduler to record', 30_000);

    // kubectl's three and the namespace's kube-root-ca.crt, which the root-CA publisher creates in process (counted
    // as kube-apiserver counts kube-controller-manager's requests)
    assert.equal(created(fams) - created(before), 4);
    assert.deepEqual(labelNamesOf(fams, 'apiserver_request_total'), new Set(['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code']));
    assert.deepEqual(labelNamesOf(fams, 'apiserver_request_duration_seconds'), new Set(['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component']));
    assert.equal(fams.families.get('apiserver_request_total')!.type, 'COUNTER');
    const list = sampleValue(fams, 'apiserver_request_total', { verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: '200' }) ?? 0;
    assert.ok(list >= 1, `LIST configmaps: ${list}`);
    assert.equal(fams.families.get('apiserver_request_duration_seconds')!.type, 'HISTOGRAM');
    const les = fams.samples.get('apiserver_request_duration_seconds_bucket')!.metrics.filter((m) => m.labels?.verb === 'CREATE' && m.labels.resource === 'configmaps').map((m) => m.labels!.le);
    assert.deepEqual(les, ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    assert.ok((sampleValue(fams, 'apiserver_request_duration_seconds', { verb: 'CREATE', resource: 'configmaps' }) ?? 0) >= 3);
    assert.deepEqual(labelNamesOf(fams, 'etcd_request_duration_seconds'), new Set(['operation', 'type']));
    assert.ok((sampleValue(fams, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) ?? 0) >= 1, 'this scrape is in flight');
    assert.equal(sampleValue(fams, 'apiserver_storage_objects', { resource: 'configmaps' }), 3 + Number(sampleValue(before, 'apiserver_storage_objects', { resource: 'configmaps' }) ?? 0) + 1 /* kube-root-ca.crt of the new namespace */);
    assert.equal(sampleValue(fams, 'apiserver_storage_objects', { resource: 'deployments.apps' }), 1);
    assert.ok((sampleValue(fams, 'etcd_request_duration_seconds', { operation: 'create', type: 'configmaps' }) ?? 0) >= 3);
    assert.ok((sampleValue(fams, 'apiserver_watch_events_total', { group: 'apps', version: 'v1', resource: 'deployments' }) ?? 0) >= 1);
    assert.ok((sampleValue(fams, 'apiserver_admission_controller_admission_duration_seconds', { name: 'NamespaceLifecycle', operation: 'CREATE', rejected: 'false', type: 'validate' }) ?? 0) >= 3);
    assert.ok((sampleValue(fams, 'apiserver_admission_step_admission_duration_seconds', { type: 'admit', operation: 'CREATE' }) ?? 0) >= 3);
    for (const f of ['workqueue_depth', 'workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds', 'workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds', 'workqueue_retries_total']) {
      assert.ok(sampleValue(fams, f, { name: 'deployment' }) !== undefined, f);
    }
    assert.equal(sampleValue(fams, 'scheduler_schedule_attempts_total', { result: 'unschedulable', profile: 'default-scheduler' }) !== undefined, true);
    assert.ok(sampleValue(fams, 'scheduler_pending_pods', { queue: 'unschedulable' })! >= 1);
    assert.ok((sampleValue(fams, 'rest_client_requests_total', { method: 'GET', code: '200' }) ?? 0) > 0);
    assert.equal(sampleValue(fams, 'kubernetes_build_info', { major: '1', minor: '33' }), 1);
    assert.ok((sampleValue(fams, 'process_cpu_seconds_total') ?? 0) > 0);
    assert.ok((sampleValue(fams, 'process_resident_memory_bytes') ?? 0) > 0);
  });

  it('is forbidden to a user without the /metrics non-resource URL, allowed to system:monitoring', async () => {
    const ca: CertKeyPem = { certPem: caPem, keyPem: readFileSync(join(server.dataDir, 'tls', 'ca.key'), 'utf8') };
    const alice = await createClientCert(ca, { commonName: 'alice' });
    const denied = await get('/metrics', alice);
    assert.equal(denied.status, 403);
    assert.deepEqual(JSON.parse(denied.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'forbidden: User "alice" cannot get path "/metrics"', reason: 'Forbidden', details: {}, code: 403,
    });
    const prom = await createClientCert(ca, { commonName: 'prometheus', organizations: ['system:monitoring'] });
    assert.equal((await get('/metrics', prom)).status, 200);
    // and one granted by a ClusterRole with nonResourceURLs ["/metrics"]
    await k.ok(['create', 'clusterrole', 'scraper', '--verb=get', '--non-resource-url=/metrics']);
    await k.ok(['create', 'clusterrolebinding', 'alice-scrapes', '--clusterrole=scraper', '--user=alice']);
    await until(async () => (await get('/metrics', alice)).status === 200, 'alice to be allowed', 10_000);
  });

  it('answers OpenMetrics when the Accept header asks for it', async () => {
    const r = await get('/metrics', admin, 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5');
    assert.equal(r.status, 200);
    assert.equal(r.type, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    assert.match(r.body, /^# TYPE apiserver_request counter$/m);
    assert.match(r.body, /^apiserver_request_total\{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="CREATE",version="v1"\} \d+$/m);
    assert.ok(r.body.endsWith('# EOF\n'));
  });

  it('is served to kubectl get --raw', async () => {
    const out = await k.ok(['get', '--raw', '/metrics']);
    assert.ok(parsePrometheusText(out).families.has('apiserver_request_total'));
  });
});

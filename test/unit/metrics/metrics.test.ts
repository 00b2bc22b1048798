// The recording and exposition of kube's families: cells, cumulative buckets with Go's `le` spelling, label and
// series order, the Prometheus text a real parser reads back, OpenMetrics, and the label rules of requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, exponentialBuckets, goBound, Histogram } from '../../../src/metrics/family.js';
import { Metrics, OPENMETRICS_TEXT, PROMETHEUS_TEXT, wantsOpenMetrics } from '../../../src/metrics/metrics.js';
import { requestKind, requestLabels } from '../../../src/apiserver/request-metrics.js';
import { parseRequestInfo } from '../../../src/apiserver/handlers/request-info.js';
import { parsePrometheusText, sampleValue } from '../../prometheus-text.js';

const version = { major: '1', minor: '33', gitVersion: 'v1.33.0+k1s', platform: 'linux/amd64' };
const metrics = () => new Metrics({ version, processMetrics: false });

describe('metric families', () => {
  it('spells bucket bounds as Go does', () => {
    assert.deepEqual([1e-8, 1e-7, 0.005, 1, 60, 2.5].map(goBound), ['1e-08', '1e-07', '0.005', '1', '60', '2.5']);
    assert.deepEqual(exponentialBuckets(10e-9, 10, 10).map(goBound), ['1e-08', '1e-07', '1e-06', '1e-05', '0.0001', '0.001', '0.01', '0.1', '1', '10']);
    assert.deepEqual(exponentialBuckets(0.001, 2, 15).slice(-2), [8.192, 16.384]);
  });

  it('keeps one cell per label values and cumulative buckets', async () => {
    const h = new Histogram({ name: 'x_seconds', help: 'x', stability: 'ALPHA', labelNames: ['b', 'a'], buckets: [0.1, 1] });
    assert.equal(h.with('1', '2'), h.with('1', '2'));
    h.with('1', '2').observe(0.05);
    h.with('1', '2').observe(0.5);
    h.with('1', '2').observe(5);
    const got = await h.get();
    assert.equal(got.help, '[ALPHA] x');
    assert.deepEqual(got.values.map((v) => [v.metricName, v.labels, v.value]), [
      ['x_seconds_bucket', { a: '2', b: '1', le: '0.1' }, 1],
      ['x_seconds_bucket', { a: '2', b: '1', le: '1' }, 2],
      ['x_seconds_bucket', { a: '2', b: '1', le: '+Inf' }, 3],
      ['x_seconds_sum', { a: '2', b: '1' }, 5.55],
      ['x_seconds_count', { a: '2', b: '1' }, 3],
    ]);
    assert.throws(() => h.with('only one'), /1 label values for 2 labels/);
  });

  it('sorts series by their label values in label-name order, as client_golang', async () => {
    const c = new Counter({ name: 'c_total', help: 'c', stability: 'STABLE', labelNames: ['verb', 'code'] });
    c.with('LIST', '200').inc();
    c.with('GET', '404').inc();
    c.with('GET', '200').inc(2);
    const got = await c.get();
    assert.deepEqual(got.values.map((v) => [v.labels.code, v.labels.verb, v.value]), [['200', 'GET', 2], ['200', 'LIST', 1], ['404', 'GET', 1]]);
  });
});

describe('exposition', () => {
  it('renders the Prometheus text format a parser reads back, with kube build info', async () => {
    const m = metrics();
    m.apiserver.record(['CREATE', '', '', 'v1', 'configmaps', '', 'resource', 'apiserver'], 201, 0.003);
    m.apiserver.record(['CREATE', '', '', 'v1', 'configmaps', '', 'resource', 'apiserver'], 201, 0.03);
    m.storage.record('create', 'configmaps', 0.001);
    const { contentType, body } = await m.render('text/plain');
    assert.equal(contentType, PROMETHEUS_TEXT);
    const fams = parsePrometheusText(body);
    assert.equal(fams.families.get('apiserver_request_total')?.type, 'COUNTER');
    assert.match(fams.families.get('apiserver_request_total')!.help, /^\[STABLE\] Counter of apiserver requests/);
    assert.equal(sampleValue(fams, 'apiserver_request_total', { verb: 'CREATE', resource: 'configmaps', code: '201', scope: 'resource', component: 'apiserver' }), 2);
    assert.equal(fams.families.get('apiserver_request_duration_seconds')!.type, 'HISTOGRAM');
    const bucket = (le: string) => sampleValue(fams, 'apiserver_request_duration_seconds_bucket', { verb: 'CREATE', le });
    assert.deepEqual([bucket('0.005'), bucket('0.025'), bucket('0.05'), bucket('+Inf')], [1, 1, 2, 2]);
    assert.equal(sampleValue(fams, 'apiserver_request_duration_seconds', { verb: 'CREATE', resource: 'configmaps', scope: 'resource' }), 2);
    assert.ok(Math.abs(sampleValue(fams, 'apiserver_request_duration_seconds_sum')! - 0.033) < 1e-9);
    assert.equal(fams.samples.get('apiserver_request_duration_seconds_bucket')!.metrics.length, 24);
    assert.equal(sampleValue(fams, 'etcd_request_duration_seconds', { operation: 'create', type: 'configmaps' }), 1);
    assert.equal(sampleValue(fams, 'kubernetes_build_info', { major: '1', minor: '33', git_version: 'v1.33.0+k1s' }), 1);
    assert.equal(fams.families.has('process_cpu_seconds_total'), false);
  });

  it('adds the process and Node.js figures by default', async () => {
    const fams = parsePrometheusText((await new Metrics({ version }).render(undefined)).body);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes']) assert.ok(fams.families.has(name), name);
  });

  it('answers OpenMetrics to a scraper that asks, without changing the Prometheus text', async () => {
    const m = metrics();
    m.apiserver.record(['GET', '', '', 'v1', 'pods', '', 'resource', 'apiserver'], 200, 0.01);
    const om = await m.render('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1');
    assert.equal(om.contentType, OPENMETRICS_TEXT);
    assert.match(om.body, /^# TYPE apiserver_request counter$/m);
    assert.match(om.body, /^apiserver_request_total\{code="200",.*\} 1$/m);
    assert.ok(om.body.endsWith('# EOF\n'));
    const text = await m.render(undefined);
    assert.match(text.body, /^# TYPE apiserver_request_total counter$/m);
    assert.equal(wantsOpenMetrics('application/openmetrics-text;q=0'), false);
    assert.equal(wantsOpenMetrics('text/plain;version=0.0.4'), false);
  });
});

describe('request labels', () => {
  const info = (method: string, path: string, query = '') => parseRequestInfo(method, path, new URLSearchParams(query));
  it('reports verbs, scopes and dry runs as kube-apiserver', () => {
    assert.deepEqual(requestLabels('POST', info('POST', '/api/v1/namespaces/a/configmaps'), new URLSearchParams('dryRun=All'), 'application/json'),
      ['CREATE', 'All', '', 'v1', 'configmaps', '', 'resource', 'apiserver']);
    assert.deepEqual(requestLabels('GET', info('GET', '/apis/apps/v1/namespaces/a/deployments'), undefined, undefined),
      ['LIST', '', 'apps', 'v1', 'deployments', '', 'namespace', 'apiserver']);
    assert.deepEqual(requestLabels('GET', info('GET', '/api/v1/pods', 'watch=true'), undefined, undefined)[0], 'WATCH');
    assert.deepEqual(requestLabels('GET', info('GET', '/api/v1/nodes'), undefined, undefined)[6], 'cluster');
    assert.deepEqual(requestLabels('PATCH', info('PATCH', '/api/v1/namespaces/a/pods/p/status'), undefined, 'application/apply-patch+yaml').slice(0, 6),
      ['APPLY', '', '', 'v1', 'pods', 'status']);
    assert.deepEqual(requestLabels('GET', info('GET', '/healthz'), undefined, undefined), ['GET', '', '', '', '', '/healthz', '', 'apiserver']);
    assert.equal(requestKind('GET', info('GET', '/api/v1/pods')), 'readOnly');
    assert.equal(requestKind('DELETE', info('DELETE', '/api/v1/namespaces/a/pods/p')), 'mutating');
  });
});

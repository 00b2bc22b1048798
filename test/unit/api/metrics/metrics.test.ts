import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type NodeMetrics, type PodMetrics } from '../../../../src/api/metrics/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { apiResourceList } from '../../../../src/apiserver/discovery/documents.js';
import { openapiV2 } from '../../../../src/apiserver/openapi/v2.js';
import { openapiV3GroupVersion } from '../../../../src/apiserver/openapi/v3.js';
import { controllerCluster, markPodRunning, type ControllerCluster } from '../../controllers/harness.js';

const pod = (name: string, annotations: Record<string, string> = {}, labels: Record<string, string> = { app: 'web' }): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels, annotations },
    spec: {
      containers: [
        { name: 'app', image: 'nginx', resources: { requests: { cpu: '200m', memory: '64Mi' } } },
        { name: 'side', image: 'nginx', resources: { requests: { cpu: '50m' } } },
      ],
    },
  }) as KObject;

describe('metrics.k8s.io/v1beta1', () => {
  let c: ControllerCluster;
  before(async () => {
    c = await controllerCluster([]);
    await c.client.resource('v1', 'nodes').create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'a' } } } as KObject);
    const pods = c.client.resource('v1', 'pods');
    await markPodRunning(c.client, await pods.create('default', pod('requests')), { nodeName: 'n1' });
    await markPodRunning(c.client, await pods.create('default', pod('flat', { 'sim.k1s.dev/cpu-usage': '900m', 'sim.k1s.dev/memory-usage': '100Mi' })), { nodeName: 'n1' });
    await markPodRunning(c.client, await pods.create('default', pod('map', { 'sim.k1s.dev/cpu-usage': '{"side":"1500m"}' }, { app: 'other' })), { nodeName: 'n1' });
    await pods.create('default', pod('pending'));
  });
  after(async () => {
    await c.close();
  });

  it('serves PodMetrics from the simulated usage: annotations per pod or per container, else requests', async () => {
    const pm = c.client.resource('metrics.k8s.io/v1beta1', 'pods');
    const requests = (await pm.get('default', 'requests')) as PodMetrics;
    assert.equal(requests.kind, 'PodMetrics');
    assert.equal(requests.window, '15s');
    assert.match(requests.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(requests.metadata.labels, { app: 'web' });
    assert.deepEqual(requests.containers, [
      { name: 'app', usage: { cpu: '200m', memory: '64Mi' } },
      { name: 'side', usage: { cpu: '50m', memory: '0' } },
    ]);
    const flat = (await pm.get('default', 'flat')) as PodMetrics;
    assert.deepEqual(flat.containers.map((x) => x.usage), [{ cpu: '900m', memory: '100Mi' }, { cpu: '900m', memory: '100Mi' }]);
    const map = (await pm.get('default', 'map')) as PodMetrics;
    assert.deepEqual(map.containers.map((x) => x.usage.cpu), ['200m', '1500m']);
    // a pod that is not running has nothing to report
    assert.deepEqual(((await pm.get('default', 'pending')) as PodMetrics).containers, []);
    const web = await pm.list('default', { labelSelector: 'app=web' });
    assert.equal(web.kind, 'PodMetricsList');
    assert.deepEqual(web.items.map((i) => i.metadata.name).sort(), ['flat', 'pending', 'requests']);
  });

  it('serves NodeMetrics summing the running pods of each node', async () => {
    const nm = c.client.resource('metrics.k8s.io/v1beta1', 'nodes');
    const n1 = (await nm.get('', 'n1')) as NodeMetrics;
    assert.equal(n1.kind, 'NodeMetrics');
    assert.deepEqual(n1.metadata.labels, { zone: 'a' });
    // requests: 250m + 64Mi; flat: 1800m + 200Mi; map: 1700m + 64Mi
    assert.deepEqual(n1.usage, { cpu: '3750m', memory: '328Mi' });
    assert.equal((await nm.list('')).items.length, 1);
  });

  it('is discoverable and documented like metrics-server’s API', () => {
    const list = apiResourceList(c.registry.definitions, 'metrics.k8s.io', 'v1beta1') as unknown as { resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] };
    assert.deepEqual(
      list.resources.map((r) => [r.name, r.kind, r.namespaced, r.verbs]),
      [['nodes', 'NodeMetrics', false, ['get', 'list']], ['pods', 'PodMetrics', true, ['get', 'list']]],
    );
    const v2 = openapiV2(c.registry.definitions, c.registry.schemas) as { definitions: Record<string, unknown> };
    assert.ok(v2.definitions['io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics']);
    assert.ok(openapiV3GroupVersion(c.registry.definitions, c.registry.schemas, { group: 'metrics.k8s.io', version: 'v1beta1' }));
  });

  it('is read-only', async () => {
    const pm = c.client.resource('metrics.k8s.io/v1beta1', 'pods');
    await assert.rejects(pm.create('default', { apiVersion: 'metrics.k8s.io/v1beta1', kind: 'PodMetrics', metadata: { name: 'x' } } as KObject), (e: unknown) => e instanceof StatusError && e.code === 405);
    await assert.rejects(pm.delete('default', 'flat'), (e: unknown) => e instanceof StatusError && e.code === 405);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { resourceQuotaController } from '../../../src/controllers/resourcequota.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, markPodFinished, type ControllerCluster } from './harness.js';

const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'default' }, spec: { hard, ...spec } }) as KObject;

const pod = (name: string, resources?: Record<string, Record<string, string>>, spec: Record<string, unknown> = {}): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'nginx', ...(resources ? { resources } : {}) }], ...spec },
  }) as KObject;

async function usedOf(c: ControllerCluster, name: string): Promise<Record<string, string> | undefined> {
  const rq = await c.client.resource('v1', 'resourcequotas').get('default', name);
  return (rq.status as { used?: Record<string, string> } | undefined)?.used;
}

/** Waits until the quota's status.used equals `want`. */
async function waitUsed(c: ControllerCluster, name: string, want: Record<string, string>): Promise<void> {
  let last: unknown;
  await c.waitFor(`quota ${name} used ${JSON.stringify(want)} (last ${JSON.stringify(last)})`, async () => {
    last = await usedOf(c, name);
    try {
      assert.deepEqual(last, want);
      return true;
    } catch {
      return false;
    }
  });
}

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected the request to be refused');
}

describe('ResourceQuota controller and admission', () => {
  it('tracks pod usage, refuses a pod over quota with kube’s message, and releases terminal pods', async () => {
    const c = await controllerCluster([resourceQuotaController()]);
    try {
      await c.client.resource('v1', 'resourcequotas').create('default', quota('compute', { pods: '2', 'requests.cpu': '1', 'limits.memory': '1Gi' }));
      await waitUsed(c, 'compute', { pods: '0', 'requests.cpu': '0', 'limits.memory': '0' });
      const pods = c.client.resource('v1', 'pods');
      const p1 = await pods.create('default', pod('p1', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }));
      // admission charged the quota synchronously
      assert.deepEqual(await usedOf(c, 'compute'), { pods: '1', 'requests.cpu': '600m', 'limits.memory': '512Mi' });
      const err = await rejection(pods.create('default', pod('p2', { requests: { cpu: '500m' }, limits: { memory: '256Mi' } })));
      assert.equal(err.code, 403);
      assert.equal(err.reason, 'Forbidden');
      assert.equal(err.message, 'pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
      const missing = await rejection(pods.create('default', pod('p3', { requests: { cpu: '100m' } })));
      assert.equal(missing.message, 'pods "p3" is forbidden: failed quota: compute: must specify limits.memory for: app');
      await markPodFinished(c.client, p1, 'Succeeded');
      await waitUsed(c, 'compute', { pods: '0', 'requests.cpu': '0', 'limits.memory': '0' });
      await pods.create('default', pod('p4', { requests: { cpu: '1' }, limits: { memory: '1Gi' } }));
      await waitUsed(c, 'compute', { pods: '1', 'requests.cpu': '1', 'limits.memory': '1Gi' });
    } finally {
      await c.close();
    }
  });

  it('concurrent creates never overshoot a count quota', async () => {
    const c = await controllerCluster([resourceQuotaController()]);
    try {
      await c.client.resource('v1', 'resourcequotas').create('default', quota('cm', { configmaps: '3', 'count/configmaps': '5' }));
      await waitUsed(c, 'cm', { configmaps: '0', 'count/configmaps': '0' });
      const cms = c.client.resource('v1', 'configmaps');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'default' } } as KObject)),
      );
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      assert.equal(ok, 3);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.match((refused.reason as Error).message, /^configmaps "c\d" is forbidden: exceeded quota: cm, requested: configmaps=1, used: configmaps=3, limited: configmaps=3$/);
      await waitUsed(c, 'cm', { configmaps: '3', 'count/configmaps': '3' });
      await cms.delete('default', (await cms.list('default')).items.find((o) => o.metadata.name?.startsWith('c'))!.metadata.name!);
      await waitUsed(c, 'cm', { configmaps: '2', 'count/configmaps': '2' });
    } finally {
      await c.close();
    }
  });

  it('counts services, node ports, load balancers, claims per storage class and count/<resource>.<group>', async () => {
    const c = await controllerCluster([resourceQuotaController()]);
    try {
      await c.client.resource('v1', 'resourcequotas').create(
        'default',
        quota('objects', {
          services: '5', 'services.nodeports': '3', 'services.loadbalancers': '1', persistentvolumeclaims: '4', 'requests.storage': '10Gi',
          'gold.storageclass.storage.k8s.io/requests.storage': '3Gi', 'count/deployments.apps': '1', secrets: '10', resourcequotas: '2',
        }),
      );
      // the kubernetes Service of the default namespace already counts
      await c.waitFor('initial usage', async () => (await usedOf(c, 'objects'))?.services === '1');
      const svc = (name: string, type: string): KObject =>
        ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type, selector: { a: 'b' }, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } }) as KObject;
      await c.client.resource('v1', 'services').create('default', svc('np', 'NodePort'));
      const lbErr = await rejection(c.client.resource('v1', 'services').create('default', svc('lb', 'LoadBalancer')));
      assert.equal(lbErr.message, 'services "lb" is forbidden: exceeded quota: objects, requested: services.nodeports=2, used: services.nodeports=2, limited: services.nodeports=3');
      const pvc = (name: string, size: string, sc?: string): KObject =>
        ({
          apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(sc ? { storageClassName: sc } : {}) },
        }) as KObject;
      await c.client.resource('v1', 'persistentvolumeclaims').create('default', pvc('a', '2Gi', 'gold'));
      const scErr = await rejection(c.client.resource('v1', 'persistentvolumeclaims').create('default', pvc('b', '2Gi', 'gold')));
      assert.equal(scErr.message, 'persistentvolumeclaims "b" is forbidden: exceeded quota: objects, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=2Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=3Gi');
      await c.client.resource('v1', 'persistentvolumeclaims').create('default', pvc('c', '1Gi'));
      const dep = (name: string): KObject =>
        ({
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' },
          spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } } },
        }) as KObject;
      await c.client.resource('apps/v1', 'deployments').create('default', dep('d1'));
      const depErr = await rejection(c.client.resource('apps/v1', 'deployments').create('default', dep('d2')));
      assert.equal(depErr.message, 'deployments.apps "d2" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
      await waitUsed(c, 'objects', {
        services: '2', 'services.nodeports': '2', 'services.loadbalancers': '0', persistentvolumeclaims: '2', 'requests.storage': '3Gi',
        'gold.storageclass.storage.k8s.io/requests.storage': '2Gi', 'count/deployments.apps': '1', secrets: '0', resourcequotas: '1',
      });
      // kinds named by count/<resource>.<group> are followed too: a delete frees quota without waiting for the resync
      await c.client.resource('apps/v1', 'deployments').delete('default', 'd1');
      await c.waitFor('deployment count released', async () => (await usedOf(c, 'objects'))?.['count/deployments.apps'] === '0');
      await c.client.resource('apps/v1', 'deployments').create('default', dep('d2'));
    } finally {
      await c.close();
    }
  });

  it('scoped quotas count only matching pods (BestEffort, NotTerminating, PriorityClass)', async () => {
    const c = await controllerCluster([resourceQuotaController()]);
    try {
      const rqs = c.client.resource('v1', 'resourcequotas');
      await rqs.create('default', quota('besteffort', { pods: '1' }, { scopes: ['BestEffort'] }));
      await rqs.create('default', quota('long', { pods: '10' }, { scopes: ['NotTerminating'] }));
      await rqs.create('default', quota('high', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['system-cluster-critical'] }] } }));
      await waitUsed(c, 'besteffort', { pods: '0' });
      await waitUsed(c, 'high', { pods: '0' });
      const pods = c.client.resource('v1', 'pods');
      await pods.create('default', pod('be1'));
      const err = await rejection(pods.create('default', pod('be2')));
      assert.equal(err.message, 'pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
      await pods.create('default', pod('burst', { requests: { cpu: '10m' } }, { activeDeadlineSeconds: 30 }));
      await pods.create('default', pod('crit', { requests: { cpu: '10m' } }, { priorityClassName: 'system-cluster-critical' }));
      await waitUsed(c, 'long', { pods: '2' });
      await waitUsed(c, 'high', { pods: '1' });
      await waitUsed(c, 'besteffort', { pods: '1' });
    } finally {
      await c.close();
    }
  });

  it('status.hard follows spec.hard edits and used counts what exists', async () => {
    const c = await controllerCluster([resourceQuotaController()]);
    try {
      const rqs = c.client.resource('v1', 'resourcequotas');
      const existing = (await c.client.resource('v1', 'configmaps').list('default')).items.length;
      await rqs.create('default', quota('q', { configmaps: '3' }));
      await waitUsed(c, 'q', { configmaps: String(existing) });
      await rqs.patch('default', 'q', 'merge', { spec: { hard: { configmaps: '5', secrets: '2' } } });
      await c.waitFor('status.hard updated', async () => {
        const st = (await rqs.get('default', 'q')).status as { hard?: Record<string, string>; used?: Record<string, string> };
        return st.hard?.configmaps === '5' && st.hard?.secrets === '2' && st.used?.secrets === '0';
      });
    } finally {
      await c.close();
    }
  });
});

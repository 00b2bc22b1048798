// Admission plugins that read ServiceAccounts, PriorityClasses, LimitRanges and ResourceQuotas from watch-fed
// caches must decide exactly as if they read the store: every write is seen by the very next request.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bootstrapClusterObjects, buildClusterApi } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import { AdmissionCache } from '../../../src/apiserver/admission/cache.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

const store = SqliteStore.open({ path: ':memory:' });
const api = buildClusterApi(store, { metrics: false });
after(async () => {
  api.stop();
  await store.close();
});
const c = api.client;
const pods = c.resource('v1', 'pods');
let n = 0;

function pod(extra: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${n++}` },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra },
  } as KObject;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof StatusError) return `${e.code} ${e.message}`;
    throw e;
  }
}

async function namespace(name: string): Promise<void> {
  await c.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KObject);
}

describe('admission from watch-fed caches', () => {
  it('ServiceAccounts: created, changed and deleted accounts are seen by the next pod create', async () => {
    await bootstrapClusterObjects(api);
    await namespace('sa');
    const sas = c.resource('v1', 'serviceaccounts');
    // the first create also starts the cache; its answer comes from the store
    assert.equal(await refusal(pods.create('sa', pod())), '403 pods "p0" is forbidden: error looking up service account sa/default: serviceaccount "default" not found');
    await sas.create('sa', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } as KObject);
    const p1 = await pods.create('sa', pod());
    assert.match(String((p1.spec as { volumes?: { name: string }[] }).volumes?.[0]?.name), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    await sas.update('sa', { ...(await sas.get('sa', 'default')), automountServiceAccountToken: false } as KObject);
    const p2 = await pods.create('sa', pod());
    assert.equal((p2.spec as { volumes?: unknown[] }).volumes, undefined);
    await sas.delete('sa', 'default');
    assert.match(await refusal(pods.create('sa', pod())), /^403 .*serviceaccount "default" not found$/);
  });

  it('PriorityClasses: a new global default and a named class apply at once; a missing one is refused', async () => {
    await namespace('prio');
    await c.resource('v1', 'serviceaccounts').create('prio', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } as KObject);
    const pcs = c.resource('scheduling.k8s.io/v1', 'priorityclasses');
    const spec = (p: KObject) => p.spec as { priority?: number; priorityClassName?: string; preemptionPolicy?: string };
    assert.equal(spec(await pods.create('prio', pod())).priority, 0);
    await pcs.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'zz-default' }, value: 7, globalDefault: true } as KObject);
    const d = spec(await pods.create('prio', pod()));
    assert.deepEqual([d.priority, d.priorityClassName, d.preemptionPolicy], [7, 'zz-default', 'PreemptLowerPriority']);
    assert.match(await refusal(pods.create('prio', pod({ priorityClassName: 'high' }))), /^403 pods "p\d+" is forbidden: no PriorityClass with name high was found$/);
    await pcs.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' } as KObject);
    const h = spec(await pods.create('prio', pod({ priorityClassName: 'high' })));
    assert.deepEqual([h.priority, h.preemptionPolicy], [1000, 'Never']);
    await pcs.delete('', 'zz-default');
    assert.equal(spec(await pods.create('prio', pod())).priority, 0);
    await pcs.delete('', 'high');
  });

  it('LimitRanges and ResourceQuotas: the first one in a namespace applies to the next create', async () => {
    await namespace('lim');
    await c.resource('v1', 'serviceaccounts').create('lim', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } as KObject);
    const requests = (p: KObject) => (p.spec as { containers: { resources?: { requests?: Record<string, string> } }[] }).containers[0].resources?.requests;
    assert.equal(requests(await pods.create('lim', pod())), undefined);
    await c.resource('v1', 'limitranges').create('lim', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Container', defaultRequest: { cpu: '100m' }, default: { cpu: '200m' } }] },
    } as KObject);
    assert.deepEqual(requests(await pods.create('lim', pod())), { cpu: '100m' });
    const quotas = c.resource('v1', 'resourcequotas');
    const q = await quotas.create('lim', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1' } } } as KObject);
    // no quota controller here: the status it would write is written by hand
    await quotas.update('lim', { ...q, status: { hard: { pods: '1' }, used: { pods: '1' } } } as KObject, { subresource: 'status' });
    assert.match(await refusal(pods.create('lim', pod())), /^403 pods "p\d+" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1$/);
    await c.resource('v1', 'resourcequotas').delete('lim', 'q');
    assert.equal(await refusal(pods.create('lim', pod())), 'ok');
  });

  it('answers nothing until it follows the store, then the objects by namespace', async () => {
    const cache = new AdmissionCache(() => api.registry.mustLookup('', 'v1', 'serviceaccounts'));
    assert.equal(cache.inNamespace('sa'), undefined);
    await cache.start();
    assert.deepEqual([...cache.inNamespace('prio')!.keys()], ['default']);
    assert.equal(cache.inNamespace('nowhere')!.size, 0);
    cache.stop();
    assert.equal(cache.inNamespace('prio'), undefined);
    await cache.start();
    assert.equal(cache.inNamespace('lim')!.get('default')!.metadata.name, 'default');
    cache.stop();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import type { KObject } from '../../../../../src/api/types.js';
import { cat, envelope, len, vint } from '../../../machinery/protobuf/helpers.js';
import { cluster, createPDB, createPod, eviction, evictionPath, rejection, runPod, type Cluster, type Obj } from './subresource-helpers.js';

const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
const status = (o: KObject) => o.status as Obj;

describe('pods/eviction', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());

  it('deletes a pending pod at once, whatever the budgets say', async () => {
    await createPod(c, 'pending', { labels: { app: 'pend' } });
    await createPDB(c, 'pend', 'pend', { disruptionsAllowed: 0 });
    const res = await c.post(evictionPath('pending'), eviction('pending'));
    assert.equal(res.code, 201);
    assert.deepEqual(res.body, success);
    assert.equal((await rejection(c.pods.get('default', 'pending'))).code, 404);
  });

  it('gracefully deletes a running pod without a budget and marks it DisruptionTarget', async () => {
    await runPod(c, 'free');
    assert.equal((await c.post(evictionPath('free'), eviction('free'))).code, 201);
    const pod = (await c.pods.get('default', 'free')) as Pod;
    assert.ok(pod.metadata.deletionTimestamp);
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 30);
    const cond = pod.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
    assert.deepEqual({ ...cond, lastTransitionTime: undefined }, {
      type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: undefined, reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting',
    });
  });

  it('honours the eviction deleteOptions (grace period, uid precondition)', async () => {
    await runPod(c, 'now');
    const e = await rejection(c.post(evictionPath('now'), eviction('now', { preconditions: { uid: 'bogus' } })));
    assert.equal(e.code, 409);
    assert.match(e.message, /^Operation cannot be fulfilled on Pod "now": the UID in the precondition \(bogus\) does not match the UID in record/);
    assert.equal((await c.post(evictionPath('now'), eviction('now', { gracePeriodSeconds: 0 }))).code, 201);
    assert.equal((await rejection(c.pods.get('default', 'now'))).code, 404);
  });

  it('answers 429 when the budget allows no disruption', async () => {
    await runPod(c, 'guarded', true, { labels: { app: 'db' } });
    await createPDB(c, 'db', 'db', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 });
    const e = await rejection(c.post(evictionPath('guarded'), eviction('guarded')));
    assert.equal(e.code, 429);
    assert.equal(e.reason, 'TooManyRequests');
    assert.equal(e.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(e.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget db needs 1 healthy pods and has 1 currently' }] });
    assert.equal(((await c.pods.get('default', 'guarded')) as Pod).metadata.deletionTimestamp, undefined);
  });

  it('answers 429 (retry after 10s) while the budget status is not observed', async () => {
    await c.pdbs.patch('default', 'db', 'merge', { spec: { minAvailable: 0 } }); // generation 2, observed 1
    const e = await rejection(c.post(evictionPath('guarded'), eviction('guarded')));
    assert.equal(e.code, 429);
    assert.deepEqual(e.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget db is still being processed by the server.' }], retryAfterSeconds: 10 });
  });

  it('takes an allowed disruption from the budget, then deletes', async () => {
    await c.pdbs.patch('default', 'db', 'merge', { status: { observedGeneration: 2, disruptionsAllowed: 1 } }, { subresource: 'status' });
    assert.equal((await c.post(evictionPath('guarded'), eviction('guarded'))).code, 201);
    const st = status(await c.pdbs.get('default', 'db'));
    assert.equal(st.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(st.disruptedPods as Obj), ['guarded']);
    const cond = (st.conditions as Obj[]).find((x) => x.type === 'DisruptionAllowed');
    assert.equal(cond?.status, 'False');
    assert.equal(cond?.reason, 'InsufficientPods');
    assert.ok(((await c.pods.get('default', 'guarded')) as Pod).metadata.deletionTimestamp);
  });

  it('changes nothing on dryRun', async () => {
    await runPod(c, 'dry', true, { labels: { app: 'dry' } });
    await createPDB(c, 'dry', 'dry', { disruptionsAllowed: 1 });
    assert.equal((await c.post(evictionPath('dry'), eviction('dry'), { dryRun: 'All' })).code, 201);
    assert.equal((await c.post(evictionPath('dry'), eviction('dry', { dryRun: ['All'] }))).code, 201);
    assert.equal(status(await c.pdbs.get('default', 'dry')).disruptionsAllowed, 1);
    const pod = (await c.pods.get('default', 'dry')) as Pod;
    assert.equal(pod.metadata.deletionTimestamp, undefined);
    assert.equal(pod.status?.conditions?.some((x) => x.type === 'DisruptionTarget'), false);
  });

  it('refuses pods selected by more than one budget with a 500 Status', async () => {
    await runPod(c, 'two', true, { labels: { app: 'two', tier: 'x' } });
    await createPDB(c, 'two-a', 'two', { disruptionsAllowed: 5 });
    await c.pdbs.create('default', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'two-b' }, spec: { selector: { matchLabels: { tier: 'x' } } } });
    const res = await c.post(evictionPath('two'), eviction('two'));
    assert.equal(res.code, 500);
    assert.deepEqual(res.body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    });
  });

  it('ignores budgets with empty selectors', async () => {
    await runPod(c, 'loose', true, { labels: { app: 'loose' } });
    await c.pdbs.create('default', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'all' }, spec: { selector: {} } });
    assert.equal((await c.post(evictionPath('loose'), eviction('loose'))).code, 201);
  });

  it('lets unready pods go under AlwaysAllow or when the budget is met anyway', async () => {
    await runPod(c, 'sick', false, { labels: { app: 'sick' } });
    await createPDB(c, 'sick', 'sick', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    assert.equal((await c.post(evictionPath('sick'), eviction('sick'))).code, 201);
    assert.equal(status(await c.pdbs.get('default', 'sick')).disruptionsAllowed, 0);

    await runPod(c, 'sick2', false, { labels: { app: 'sick2' } });
    await createPDB(c, 'sick2', 'sick2', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    assert.equal((await c.post(evictionPath('sick2'), eviction('sick2'))).code, 201);

    await runPod(c, 'sick3', false, { labels: { app: 'sick3' } });
    await createPDB(c, 'sick3', 'sick3', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1 });
    assert.equal((await rejection(c.post(evictionPath('sick3'), eviction('sick3')))).code, 429);
  });

  it('deletes terminal pods without touching the budget', async () => {
    await runPod(c, 'done', false, { labels: { app: 'done' } });
    await c.pods.patch('default', 'done', 'merge', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
    await createPDB(c, 'done', 'done', { disruptionsAllowed: 0 });
    assert.equal((await c.post(evictionPath('done'), eviction('done'))).code, 201);
    assert.equal((await rejection(c.pods.get('default', 'done'))).code, 404); // terminal: no grace period
  });

  it('checks the request', async () => {
    let e = await rejection(c.post(evictionPath('x'), eviction('y')));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'name in URL does not match name in Eviction object');
    e = await rejection(c.post(evictionPath('x'), eviction('x')));
    assert.equal(e.code, 404);
    assert.equal(e.message, 'pods "x" not found');
    await createPod(c, 'v1beta1');
    assert.equal((await c.post(evictionPath('v1beta1'), { ...eviction('v1beta1'), apiVersion: 'policy/v1beta1' })).code, 201);
    e = await rejection(c.post(evictionPath('v1beta1'), { ...eviction('v1beta1'), kind: 'Binding' }));
    assert.equal(e.code, 400);
    await createPod(c, 'x');
    e = await rejection(c.post('/api/v1/namespaces/default/pods/x/eviction/more', eviction('x')));
    assert.equal(e.code, 404);
    e = await rejection(c.client.resource('v1', 'pods').update('default', { metadata: { name: 'x' } } as KObject, { subresource: 'eviction' }));
    assert.equal(e.code, 405);
  });

  it('decodes protobuf Eviction and Binding bodies', async () => {
    await createPod(c, 'pb');
    // Binding{metadata{name}, target{kind, name}}
    const binding = cat(len(1, len(1, 'pb')), len(2, cat(len(1, 'Node'), len(3, 'n7'))));
    assert.equal((await c.postProtobuf('/api/v1/namespaces/default/pods/pb/binding', envelope('v1', 'Binding', binding))).code, 201);
    assert.equal(((await c.pods.get('default', 'pb')) as Pod).spec?.nodeName, 'n7');
    // Eviction{metadata{name}, deleteOptions{gracePeriodSeconds: 0}}
    const ev = cat(len(1, len(1, 'pb')), len(2, vint(1, 0)));
    assert.equal((await c.postProtobuf(evictionPath('pb'), envelope('policy/v1', 'Eviction', ev))).code, 201);
    assert.equal((await rejection(c.pods.get('default', 'pb'))).code, 404);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { disruptionController, labelSelectorString, scaledValue } from '../../../src/controllers/disruption.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { rfc3339 } from '../../../src/machinery/object.js';
import { controllerCluster, type ControllerCluster } from './harness.js';
import { createNode, NS, readyPod } from './endpoints/fixtures.js';

interface PDBStatus {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptionsAllowed: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number; lastTransitionTime: string }[];
}

describe('disruption controller', () => {
  let c: ControllerCluster;
  const pdbs = () => c.client.resource('policy/v1', 'poddisruptionbudgets');
  const statusOf = async (name: string) => (await pdbs().get(NS, name)).status as PDBStatus;
  const pdb = (name: string, spec: Record<string, unknown>): KObject => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: NS }, spec }) as KObject;
  const evict = (name: string) =>
    c.client.resource('v1', 'pods').create(NS, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS } } as KObject, { subresource: 'eviction' });
  const events = async (reason: string) =>
    ((await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; message: string; type: string })[]).filter((e) => e.reason === reason);
  const owner = (o: KObject) => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata.name!, uid: o.metadata.uid!, controller: true });

  before(async () => {
    c = await controllerCluster([disruptionController()]);
    await createNode(c.client, 'node-a');
  });
  after(async () => c.close());

  it('minAvailable 2 over 3 ready pods allows one disruption; the second eviction gets 429', async () => {
    for (let i = 1; i <= 3; i++) await readyPod(c.client, `guard-${i}`, `10.7.0.${i}`, { labels: { app: 'guard' } });
    await pdbs().create(NS, pdb('guard', { minAvailable: 2, selector: { matchLabels: { app: 'guard' } } }));
    const st = await c.waitFor('status', async () => {
      const s = await statusOf('guard');
      return s.observedGeneration === 1 && s;
    });
    assert.equal(st.currentHealthy, 3);
    assert.equal(st.desiredHealthy, 2);
    assert.equal(st.expectedPods, 3);
    assert.equal(st.disruptionsAllowed, 1);
    const cond = st.conditions!.find((x) => x.type === 'DisruptionAllowed')!;
    assert.deepEqual({ ...cond, lastTransitionTime: undefined }, { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1, lastTransitionTime: undefined });

    await evict('guard-1');
    const err = await evict('guard-2').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 429);
    assert.equal(err.message, "Cannot evict pod as it would violate the pod's disruption budget.");

    // the evicted pod is terminating: the controller counts 2 healthy and drops its disruptedPods entry
    const after = await c.waitFor('recount', async () => {
      const s = await statusOf('guard');
      return s.currentHealthy === 2 && !s.disruptedPods && s;
    });
    assert.equal(after.disruptionsAllowed, 0);
    const c2 = after.conditions!.find((x) => x.type === 'DisruptionAllowed')!;
    assert.equal(c2.status, 'False');
    assert.equal(c2.reason, 'InsufficientPods');
  });

  it('percentages and maxUnavailable scale with the pods\' controllers (ReplicaSet, Deployment, StatefulSet)', async () => {
    const tmpl = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    const rs = await c.client.resource('apps/v1', 'replicasets').create(NS, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 4, selector: { matchLabels: { app: 'scaled' } }, template: tmpl('scaled') } } as KObject);
    const dep = await c.client.resource('apps/v1', 'deployments').create(NS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'dep' }, spec: { replicas: 6, selector: { matchLabels: { app: 'scaled' } }, template: tmpl('scaled') } } as KObject);
    const depRs = await c.client.resource('apps/v1', 'replicasets').create(NS, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'dep-rs', ownerReferences: [owner(dep)] }, spec: { replicas: 6, selector: { matchLabels: { app: 'scaled' } }, template: tmpl('scaled') } } as KObject);
    const ss = await c.client.resource('apps/v1', 'statefulsets').create(NS, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss' }, spec: { replicas: 2, serviceName: 'ss', selector: { matchLabels: { app: 'scaled' } }, template: tmpl('scaled') } } as KObject);
    await readyPod(c.client, 'rs-1', '10.7.1.1', { labels: { app: 'scaled' }, ownerReferences: [owner(rs)] });
    await readyPod(c.client, 'rs-2', '10.7.1.2', { labels: { app: 'scaled' }, ownerReferences: [owner(rs)] });
    await readyPod(c.client, 'dep-1', '10.7.1.3', { labels: { app: 'scaled' }, ownerReferences: [owner(depRs)] });
    await readyPod(c.client, 'dep-2', '10.7.1.4', { labels: { app: 'scaled' }, ownerReferences: [owner(depRs)], ready: false });
    await readyPod(c.client, 'ss-0', '10.7.1.5', { labels: { app: 'scaled' }, ownerReferences: [owner(ss)] });

    // expected 4 + 6 + 2 = 12; 50% unavailable → 6 desired; 4 healthy
    await pdbs().create(NS, pdb('max', { maxUnavailable: '50%', selector: { matchLabels: { app: 'scaled' } } }));
    // 25% of 12 = 3 desired; 4 healthy → 1 allowed
    await pdbs().create(NS, pdb('min', { minAvailable: '25%', selector: { matchLabels: { app: 'scaled' } } }));
    const max = await c.waitFor('max status', async () => {
      const s = await statusOf('max');
      return s.observedGeneration === 1 && s;
    });
    assert.deepEqual([max.expectedPods, max.desiredHealthy, max.currentHealthy, max.disruptionsAllowed], [12, 6, 4, 0]);
    const min = await c.waitFor('min status', async () => {
      const s = await statusOf('min');
      return s.observedGeneration === 1 && s;
    });
    assert.deepEqual([min.expectedPods, min.desiredHealthy, min.currentHealthy, min.disruptionsAllowed], [12, 3, 4, 1]);
    // a pod (event) matching two budgets is worth a warning
    await c.client.resource('v1', 'pods').patch(NS, 'rs-1', 'merge', { metadata: { annotations: { touched: 'yes' } } });
    await c.waitFor('MultiplePodDisruptionBudgets', async () => (await events('MultiplePodDisruptionBudgets')).length > 0);

    // scaling the Deployment changes the expectation at the next sync (kube resyncs on pod events, not on scale)
    await c.client.resource('apps/v1', 'deployments').patch(NS, 'dep', 'merge', { spec: { replicas: 2 } });
    await c.client.resource('v1', 'pods').patch(NS, 'dep-1', 'merge', { metadata: { annotations: { touched: 'yes' } } });
    await c.waitFor('rescaled', async () => (await statusOf('min')).expectedPods === 8);
  });

  it('unmanaged pods: warned about with a percentage; a missing controller fails the sync safely', async () => {
    await readyPod(c.client, 'solo', '10.7.2.1', { labels: { app: 'solo' } });
    await pdbs().create(NS, pdb('solo', { minAvailable: '50%', selector: { matchLabels: { app: 'solo' } } }));
    const ev = await c.waitFor('UnmanagedPods', async () => (await events('UnmanagedPods'))[0]);
    assert.equal(ev.type, 'Warning');
    assert.ok(ev.message.startsWith('Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: solo,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged.'));
    const st = await c.waitFor('solo status', async () => {
      const s = await statusOf('solo');
      return s.observedGeneration === 1 && s;
    });
    assert.deepEqual([st.expectedPods, st.currentHealthy, st.disruptionsAllowed], [0, 1, 0]);

    const ghostOwner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001', controller: true };
    await readyPod(c.client, 'orphan', '10.7.2.2', { labels: { app: 'orphan' }, ownerReferences: [ghostOwner] });
    await pdbs().create(NS, pdb('orphan', { maxUnavailable: 1, selector: { matchLabels: { app: 'orphan' } } }));
    const failed = await c.waitFor('SyncFailed', async () => (await statusOf('orphan')).conditions?.find((x) => x.reason === 'SyncFailed'));
    assert.equal(failed.status, 'False');
    assert.equal(failed.message, 'found no controllers for pod "orphan"');
    const ev2 = await c.waitFor('CalculateExpectedPodCountFailed', async () => (await events('CalculateExpectedPodCountFailed'))[0]);
    assert.equal(ev2.message, 'Failed to calculate the number of expected pods: found no controllers for pod "orphan"');
  });

  it('prunes disruptedPods of pods that are gone or overdue, and does not count recent ones as healthy', async () => {
    for (let i = 1; i <= 3; i++) await readyPod(c.client, `dp-${i}`, `10.7.3.${i}`, { labels: { app: 'dp' } });
    await pdbs().create(NS, pdb('dp', { minAvailable: 1, selector: { matchLabels: { app: 'dp' } } }));
    await c.waitFor('dp status', async () => (await statusOf('dp')).currentHealthy === 3);
    const cur = await pdbs().get(NS, 'dp');
    const now = Date.now();
    (cur.status as PDBStatus).disruptedPods = { ghost: rfc3339(now), 'dp-1': rfc3339(now - 5 * 60_000), 'dp-2': rfc3339(now) };
    await pdbs().update(NS, cur, { subresource: 'status' });
    const st = await c.waitFor('pruned', async () => {
      const s = await statusOf('dp');
      return s.disruptedPods && Object.keys(s.disruptedPods).join() === 'dp-2' && s;
    });
    assert.equal(st.currentHealthy, 2);
    assert.equal(st.disruptionsAllowed, 1);
    await c.waitFor('NotDeleted', async () => (await events('NotDeleted')).some((e) => e.message === `Pod was expected by PDB ${NS}/${NS} to be deleted but it wasn't`));
  });

  it('resets a DisruptionTarget condition left on a pod that was never deleted', async () => {
    const pod = await readyPod(c.client, 'kept', '10.7.4.1', { labels: { app: 'kept' } });
    const st = pod.status as { conditions: { type: string; status: string; reason?: string; message?: string; lastTransitionTime: string }[] };
    st.conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: rfc3339(Date.now() - 3 * 60_000) });
    await c.client.resource('v1', 'pods').update(NS, pod, { subresource: 'status' });
    const cond = await c.waitFor('reset', async () => {
      const p = await c.client.resource('v1', 'pods').get(NS, 'kept');
      const x = (p.status as typeof st).conditions.find((k) => k.type === 'DisruptionTarget');
      return x?.status === 'False' && x;
    });
    assert.equal(cond.reason, undefined);
  });

  it('scales IntOrString values as intstr does and prints selectors as Go does', () => {
    assert.equal(scaledValue(3, 10), 3);
    assert.equal(scaledValue('25%', 10), 3);
    assert.equal(scaledValue('0%', 10), 0);
    assert.throws(() => scaledValue('5', 10), /string is not a percentage/);
    assert.equal(
      labelSelectorString({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
    );
  });
});

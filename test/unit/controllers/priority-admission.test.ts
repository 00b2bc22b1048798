import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, waitFor } from './harness.js';
import { serviceAccountController } from '../../../src/controllers/serviceaccount.js';

const pod = (name: string, spec: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } }) as KObject;

describe('Priority admission', () => {
  it('resolves PriorityClass names, applies the global default and refuses unknown classes', async () => {
    const c = await controllerCluster([serviceAccountController()]);
    try {
      await waitFor('default SA', () => c.client.resource('v1', 'serviceaccounts').get('default', 'default'));
      const pcs = c.client.resource('scheduling.k8s.io/v1', 'priorityclasses');
      const pods = c.client.resource('v1', 'pods');
      const p0 = (await pods.create('default', pod('plain'))) as KObject & { spec: { priority: number; priorityClassName?: string } };
      assert.equal(p0.spec.priority, 0);
      assert.equal(p0.spec.priorityClassName, undefined);
      await pcs.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' } as KObject);
      const p1 = (await pods.create('default', pod('high', { priorityClassName: 'high' }))) as KObject & { spec: Record<string, unknown> };
      assert.equal(p1.spec.priority, 1000);
      assert.equal(p1.spec.preemptionPolicy, 'Never');
      const err = await pods.create('default', pod('nope', { priorityClassName: 'missing' })).catch((e) => e as StatusError);
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      assert.equal(err.message, 'pods "nope" is forbidden: no PriorityClass with name missing was found');
      const bad = await pods.create('default', pod('bad', { priorityClassName: 'high', priority: 5 })).catch((e) => e as StatusError);
      assert.equal((bad as StatusError).message, 'pods "bad" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
      await pcs.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'default-pc' }, value: 7, globalDefault: true } as KObject);
      const p2 = (await pods.create('default', pod('defaulted'))) as KObject & { spec: Record<string, unknown> };
      assert.equal(p2.spec.priorityClassName, 'default-pc');
      assert.equal(p2.spec.priority, 7);
      const sys = (await pods.create('default', pod('sys', { priorityClassName: 'system-node-critical' }))) as KObject & { spec: Record<string, unknown> };
      assert.equal(sys.spec.priority, 2000001000);
    } finally {
      await c.close();
    }
  });
});

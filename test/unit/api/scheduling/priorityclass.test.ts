import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinPriorityClasses, schedulingResources } from '../../../../src/api/scheduling/index.js';
import { priorityClassAdmission } from '../../../../src/apiserver/admission/priority.js';
import { priorityClassResource, type PriorityClass } from '../../../../src/api/scheduling/priorityclass.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, rejection, type Cluster } from '../batch/helpers.js';

const st = priorityClassResource.strategy;
const pc = (name: string, fields: Record<string, unknown>): PriorityClass => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, ...fields }) as PriorityClass;
function defaulted(o: PriorityClass): PriorityClass {
  const c = structuredClone(o);
  st.defaults!(c);
  return c;
}

describe('PriorityClass validation', () => {
  it('defaults preemptionPolicy and accepts user classes up to 1e9', () => {
    const o = defaulted(pc('high', { value: 1000000000 }));
    assert.equal(o.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(st.validate!(o), []);
  });

  it('limits user values and reserves the system- prefix', () => {
    assert.deepEqual(st.validate!(defaulted(pc('huge', { value: 1000000001 }))).map(String), [
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
    assert.deepEqual(st.validate!(defaulted(pc('system-mine', { value: 1 }))).map(String), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    assert.deepEqual(st.validate!(defaulted(pc('system-node-critical', { value: 5 }))).map(String), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    ]);
    assert.deepEqual(st.validate!(defaulted(pc('p', { value: 1, preemptionPolicy: 'Always' }))).map(String), [
      'preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"',
    ]);
  });

  it('keeps value and preemptionPolicy immutable', () => {
    const old = defaulted(pc('p', { value: 1 }));
    const next = defaulted(pc('p', { value: 2, preemptionPolicy: 'Never' }));
    assert.deepEqual(st.validateUpdate!(next, old).map(String), [
      'value: Forbidden: may not be changed in an update.',
      'preemptionPolicy: Invalid value: "Never": field is immutable',
    ]);
  });

  it('builds the two system classes as kube-apiserver creates them', () => {
    const classes = builtinPriorityClasses();
    assert.deepEqual(classes.map((c) => [c.metadata.name, (c as PriorityClass).value]), [
      ['system-node-critical', 2000001000],
      ['system-cluster-critical', 2000000000],
    ]);
    for (const c of classes) assert.deepEqual(st.validate!(defaulted(c as PriorityClass)), []);
  });

  it('prints NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY', () => {
    const o = defaulted(pc('high', { value: 100, globalDefault: true }));
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(priorityClassResource.columns.map((c) => [c.name, c.priority ?? 0]), [['Name', 0], ['Value', 0], ['Global-Default', 0], ['Age', 0], ['PreemptionPolicy', 0]]);
    assert.deepEqual(priorityClassResource.columns.map((c) => c.cell(o, { now: Date.parse('2024-01-01T00:00:10Z') })), ['high', 100, true, '10s', 'PreemptLowerPriority']);
  });
});

describe('PriorityClass through the API', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster(schedulingResources);
    c.registry.admission.add(priorityClassAdmission());
  });
  after(async () => c.close());

  it('creates the system classes, refuses to delete them and keeps generation 1', async () => {
    const pcs = c.client.resource('scheduling.k8s.io/v1', 'priorityclasses');
    for (const o of builtinPriorityClasses()) await pcs.create('', o);
    const node = (await pcs.get('', 'system-node-critical')) as PriorityClass;
    assert.equal(node.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(node.metadata.generation, 1);
    assert.equal(node.description, 'Used for system critical pods that must not be moved from their current node.');
    const err = await rejection(pcs.delete('', 'system-node-critical'));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted');
    const user = (await pcs.create('', pc('low', { value: 10, description: 'x' }) as KObject)) as PriorityClass;
    user.description = 'changed';
    const up = (await pcs.update('', user)) as PriorityClass;
    assert.equal(up.metadata.generation, 1);
    await pcs.delete('', 'low');
  });

  it('allows one global default only', async () => {
    const pcs = c.client.resource('scheduling.k8s.io/v1', 'priorityclasses');
    await pcs.create('', pc('default-a', { value: 1, globalDefault: true }) as KObject);
    const err = await rejection(pcs.create('', pc('default-b', { value: 2, globalDefault: true }) as KObject));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'priorityclasses.scheduling.k8s.io "default-b" is forbidden: PriorityClass default-a is already marked as default. Only one default can exist');
    const bad = await rejection(pcs.create('', pc('big', { value: 2000000000 }) as KObject));
    assert.equal(bad.code, 422);
    assert.equal(bad.message, 'PriorityClass.scheduling.k8s.io "big" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000');
  });
});

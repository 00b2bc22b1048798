import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { policyResources } from '../../../../src/api/policy/index.js';
import { pdbResource, type PodDisruptionBudget } from '../../../../src/api/policy/poddisruptionbudget/resource.js';
import { validateConditions } from '../../../../src/api/policy/poddisruptionbudget/validation.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, rejection, type Cluster } from '../batch/helpers.js';

const st = pdbResource.strategy;

function pdb(spec: Record<string, unknown>): PodDisruptionBudget {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'default' }, spec } as PodDisruptionBudget;
}
function created(o: PodDisruptionBudget): PodDisruptionBudget {
  const c = structuredClone(o);
  st.defaults!(c);
  st.prepareForCreate!(c);
  return c;
}
const createErrors = (o: PodDisruptionBudget) => st.validate!(created(o)).map(String);

describe('PodDisruptionBudget validation', () => {
  it('accepts numbers and percentages and resets the status', () => {
    const o = created(pdb({ minAvailable: 2, selector: { matchLabels: { app: 'web' } } }));
    assert.deepEqual(o.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    assert.deepEqual(st.validate!(o), []);
    assert.deepEqual(createErrors(pdb({ maxUnavailable: '50%' })), []);
  });

  it('refuses minAvailable together with maxUnavailable', () => {
    assert.deepEqual(createErrors(pdb({ minAvailable: 1, maxUnavailable: 1 })), [
      'spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set',
    ]);
  });

  it('checks numbers, percentages and the eviction policy with Kubernetes messages', () => {
    assert.deepEqual(createErrors(pdb({ minAvailable: -1 })), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(createErrors(pdb({ maxUnavailable: '150%' })), [
      'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
    assert.deepEqual(createErrors(pdb({ minAvailable: 'half' })), [
      `spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    ]);
    assert.deepEqual(createErrors(pdb({ unhealthyPodEvictionPolicy: 'Never' })), [
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
  });

  it('validates status conditions and counters', () => {
    assert.deepEqual(validateConditions([{ type: 'DisruptionAllowed', status: 'Maybe', reason: 'bad reason' }], 'status.conditions').map(String), [
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].lastTransitionTime: Required value: must be set',
      `status.conditions[0].reason: Invalid value: "bad reason": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
    ]);
    const o = created(pdb({ minAvailable: 1 }));
    o.status!.expectedPods = -1;
    assert.deepEqual(st.validateStatusUpdate!(o, o).map(String), ['status.expectedPods: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('prints NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE', () => {
    const o = created(pdb({ maxUnavailable: '25%' }));
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-03T00:00:00Z');
    assert.deepEqual(pdbResource.columns.map((c) => c.name), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    assert.deepEqual(pdbResource.columns.map((c) => c.cell(o, { now })), ['web', 'N/A', '25%', 0, '2d']);
    assert.deepEqual(pdbResource.shortNames, ['pdb']);
  });
});

describe('PodDisruptionBudget through the API', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster(policyResources);
  });
  after(async () => c.close());

  it('creates with generation 1, bumps it on spec changes and keeps status', async () => {
    const pdbs = c.client.resource('policy/v1', 'poddisruptionbudgets');
    const o = (await pdbs.create('default', pdb({ minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) as KObject)) as PodDisruptionBudget;
    assert.equal(o.metadata.generation, 1);
    assert.deepEqual(o.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const withStatus = structuredClone(o);
    withStatus.status = { ...withStatus.status, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 };
    await pdbs.update('default', withStatus, { subresource: 'status' });
    const cur = (await pdbs.get('default', 'web')) as PodDisruptionBudget;
    cur.spec!.minAvailable = 2;
    cur.status = {};
    const up = (await pdbs.update('default', cur)) as PodDisruptionBudget;
    assert.equal(up.metadata.generation, 2);
    assert.equal(up.status!.disruptionsAllowed, 1);
    const err = await rejection(pdbs.create('default', { ...pdb({ minAvailable: '200%' }), metadata: { name: 'bad' } } as KObject));
    assert.equal(err.code, 422);
    assert.equal(err.message, 'PodDisruptionBudget.policy "bad" is invalid: spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"200%"}: must not be greater than 100%');
  });
});

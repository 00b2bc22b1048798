import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leaseResource } from '../../../../src/api/coordination/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { errors } from '../../../../src/machinery/errors.js';

const st = leaseResource.strategy;
const lease = (spec?: Record<string, unknown>): KObject => ({ metadata: { name: 'ctrl', namespace: 'kube-system' }, ...(spec ? { spec } : {}) });

describe('Lease', () => {
  it('lives in coordination.k8s.io/v1 and allows create on update', () => {
    assert.equal(leaseResource.group, 'coordination.k8s.io');
    assert.equal(leaseResource.strategy.allowCreateOnUpdate, true);
  });

  it('defaults an empty spec', () => {
    const o = lease();
    st.defaults!(o);
    assert.deepEqual(o.spec, {});
  });

  it('validates durations and transitions with Kubernetes messages', () => {
    const o = lease({ leaseDurationSeconds: 0, leaseTransitions: -1 });
    assert.equal(
      errors.invalid('Lease', 'coordination.k8s.io', 'ctrl', st.validate!(o)).message,
      'Lease.coordination.k8s.io "ctrl" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
    assert.deepEqual(st.validate!(lease({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0, renewTime: '2024-01-01T00:00:00.000000Z' })), []);
  });

  it('validates strategy and preferredHolder', () => {
    assert.deepEqual(st.validate!(lease({ strategy: 'Newest' })).map(String), [
      'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
    ]);
    assert.deepEqual(st.validate!(lease({ strategy: 'example.com/mine' })), []);
    assert.deepEqual(st.validate!(lease({ preferredHolder: 'b' })).map(String), [
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]);
  });

  it('drops the CoordinatedLeaderElection fields (gate off by default in 1.33) unless already set', () => {
    const o = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    st.prepareForCreate!(o);
    assert.deepEqual(o.spec, { holderIdentity: 'a' });
    const u = lease({ strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
    st.prepareForUpdate!(u, lease({ strategy: 'OldestEmulationVersion' }));
    assert.deepEqual(u.spec, { strategy: 'OldestEmulationVersion' });
  });

  it('prints NAME HOLDER AGE', () => {
    const o = lease({ holderIdentity: 'node-1' });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T02:30:00Z');
    assert.deepEqual(leaseResource.columns.map((c) => c.name), ['Name', 'Holder', 'Age']);
    assert.deepEqual(leaseResource.columns.map((c) => c.cell(o, { now })), ['ctrl', 'node-1', '150m']);
    assert.equal(leaseResource.columns[1].cell(lease({}), { now }), '');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceAccountResource } from '../../../../src/api/core/serviceaccount.js';
import type { KObject } from '../../../../src/api/types.js';

const st = serviceAccountResource.strategy;
const sa = (extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject => ({
  metadata: { name: 'builder', namespace: 'default', ...(annotations ? { annotations } : {}) },
  ...extra,
});

describe('ServiceAccount', () => {
  it('trims secret references to their names on create and update', () => {
    const o = sa({ secrets: [{ name: 'tok', namespace: 'x', uid: 'u', kind: 'Secret' }, { kind: 'Secret' }] });
    st.prepareForCreate!(o);
    assert.deepEqual(o.secrets, [{ name: 'tok' }, {}]);
    const u = sa({ secrets: [{ name: 'a', apiVersion: 'v1' }] });
    st.prepareForUpdate!(u, sa());
    assert.deepEqual(u.secrets, [{ name: 'a' }]);
  });

  it('merges secrets by name in strategic merge patch', () => {
    const def = serviceAccountResource.definitions['io.k8s.api.core.v1.ServiceAccount'];
    assert.equal(def.properties!.secrets.patchMergeKey, 'name');
    assert.equal(def.properties!.secrets.listType, 'map');
    assert.equal(def.properties!.imagePullSecrets.listType, 'atomic');
  });

  it('warns only when the deprecated enforce-mountable-secrets annotation is newly set', () => {
    const ann = { 'kubernetes.io/enforce-mountable-secrets': 'true' };
    const warning =
      'metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets';
    assert.deepEqual(st.warnings!(sa({}, ann)), [warning]);
    assert.deepEqual(st.warnings!(sa({}, ann), sa()), [warning]);
    assert.deepEqual(st.warnings!(sa({}, ann), sa({}, ann)), []);
    assert.deepEqual(st.warnings!(sa()), []);
  });

  it('prints NAME SECRETS AGE', () => {
    const o = sa({ secrets: [{ name: 'a' }, { name: 'b' }] });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(serviceAccountResource.columns.map((c) => c.name), ['Name', 'Secrets', 'Age']);
    assert.deepEqual(
      serviceAccountResource.columns.map((c) => c.cell(o, { now: Date.parse('2024-01-01T00:00:45Z') })),
      ['builder', 2, '45s'],
    );
    assert.deepEqual(serviceAccountResource.shortNames, ['sa']);
  });
});

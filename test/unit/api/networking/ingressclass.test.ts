import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ingressClassResource } from '../../../../src/api/networking/index.js';
import type { IngressClass } from '../../../../src/api/networking/ingress/schema.js';

const st = ingressClassResource.strategy;
const ic = (spec: IngressClass['spec']): IngressClass => ({ metadata: { name: 'nginx' }, spec });
const errs = (o: IngressClass) => st.validate!(o).map(String);

describe('IngressClass', () => {
  it('is cluster-scoped with generation', () => {
    assert.equal(ingressClassResource.namespaced, false);
    assert.equal(ingressClassResource.plural, 'ingressclasses');
    assert.equal(ingressClassResource.hasGeneration, true);
  });

  it('defaults parameters.scope to Cluster', () => {
    const o = ic({ controller: 'k8s.io/ingress-nginx', parameters: { kind: 'Config', name: 'c' } });
    st.defaults!(o);
    assert.equal(o.spec?.parameters?.scope, 'Cluster');
    const n: IngressClass = { metadata: { name: 'x' } };
    st.defaults!(n);
    assert.deepEqual(n.spec, {});
  });

  it('requires a domain-prefixed controller of at most 250 characters', () => {
    assert.deepEqual(errs(ic({})), ['spec.controller: Required value']);
    assert.deepEqual(errs(ic({ controller: 'nginx' })), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
    assert.deepEqual(errs(ic({ controller: 'acme.io/a b' })), [
      `spec.controller: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`,
    ]);
    assert.deepEqual(errs(ic({ controller: `acme.io/${'a'.repeat(250)}` })), ['spec.controller: Too long: may not be more than 250 bytes']);
    assert.deepEqual(errs(ic({ controller: 'k8s.io/ingress-nginx' })), []);
  });

  it('validates parameters by scope', () => {
    const base = { kind: 'Config', name: 'c' };
    assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { ...base } })), ['spec.parameters.scope: Required value']);
    assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { ...base, scope: 'Global' } })), [
      'spec.parameters.scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"',
    ]);
    assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { ...base, scope: 'Namespace' } })), [
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
    assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { ...base, scope: 'Cluster', namespace: 'x' } })), [
      "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
    ]);
    assert.deepEqual(errs(ic({ controller: 'a.io/b', parameters: { kind: '', name: '..', scope: 'Cluster' } })), [
      'spec.parameters.kind: Required value',
      "spec.parameters.name: Invalid value: \"..\": may not be '..'",
    ]);
  });

  it('makes the controller immutable', () => {
    const old = ic({ controller: 'a.io/b' });
    const o = ic({ controller: 'a.io/c' });
    o.metadata.resourceVersion = '2';
    assert.deepEqual(st.validate!(o), []);
    assert.deepEqual(st.validateUpdate!(o, old).map(String), ['spec.controller: Invalid value: "a.io/c": field is immutable']);
  });

  it('prints NAME CONTROLLER PARAMETERS AGE', () => {
    const now = Date.parse('2024-01-02T00:00:00Z');
    const o = ic({ controller: 'a.io/b', parameters: { apiGroup: 'k8s.example.com', kind: 'Config', name: 'c', scope: 'Cluster' } });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(ingressClassResource.columns.map((c) => c.name), ['Name', 'Controller', 'Parameters', 'Age']);
    assert.deepEqual(ingressClassResource.columns.map((c) => c.cell(o, { now })), ['nginx', 'a.io/b', 'Config.k8s.example.com/c', '24h']);
    assert.equal(ingressClassResource.columns[2].cell(ic({ controller: 'a.io/b' }), { now }), '<none>');
    assert.equal(ingressClassResource.columns[2].cell(ic({ parameters: { kind: 'K', name: 'n' } }), { now }), 'K/n');
  });
});

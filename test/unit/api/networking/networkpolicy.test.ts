import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkPolicyResource } from '../../../../src/api/networking/index.js';
import type { NetworkPolicy } from '../../../../src/api/networking/networkpolicy/resource.js';

const st = networkPolicyResource.strategy;
const np = (spec: NetworkPolicy['spec']): NetworkPolicy => ({ metadata: { name: 'deny', namespace: 'default' }, spec });
const errs = (o: NetworkPolicy) => st.validate!(o).map(String);
const withDefaults = (o: NetworkPolicy) => {
  st.defaults!(o);
  return o;
};

describe('NetworkPolicy definition', () => {
  it('is namespaced with short name netpol, generation and no status', () => {
    assert.deepEqual(networkPolicyResource.shortNames, ['netpol']);
    assert.equal(networkPolicyResource.hasGeneration, true);
    assert.equal(networkPolicyResource.subresources, undefined);
  });
});

describe('NetworkPolicy defaults', () => {
  it('defaults policyTypes to Ingress, plus Egress when there are egress rules, and ports to TCP', () => {
    assert.deepEqual(withDefaults(np(undefined)).spec, { podSelector: {}, policyTypes: ['Ingress'] });
    const o = withDefaults(np({ egress: [{ ports: [{ port: 53 }, { protocol: 'UDP', port: 53 }] }], ingress: [] }));
    assert.deepEqual(o.spec, {
      podSelector: {},
      egress: [{ ports: [{ port: 53, protocol: 'TCP' }, { protocol: 'UDP', port: 53 }] }],
      policyTypes: ['Ingress', 'Egress'],
    });
    assert.deepEqual(withDefaults(np({ podSelector: {}, policyTypes: ['Egress'] })).spec?.policyTypes, ['Egress']);
  });
});

describe('NetworkPolicy validation', () => {
  it('checks ports, endPort and protocols', () => {
    const o = withDefaults(
      np({
        ingress: [
          {
            ports: [
              { protocol: 'ICMP', port: 0 },
              { port: 'http', endPort: 90 },
              { endPort: 90 },
              { port: 100, endPort: 90 },
              { port: 'Http_1' },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(errs(o), [
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
      'spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is not specified',
      'spec.ingress[0].ports[3].endPort: Invalid value: 90: must be greater than or equal to `port`',
      'spec.ingress[0].ports[4].port: Invalid value: "Http_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });

  it('checks peers and ipBlocks', () => {
    const o = withDefaults(
      np({
        egress: [
          {
            to: [
              {},
              { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} },
              { ipBlock: { cidr: '' } },
              { ipBlock: { cidr: '10.0.0.0/33', except: ['10.1.0.0/16'] } },
              { ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', '10.0.0.0/8', 'x', '10.1.0.0/16'] } },
              { namespaceSelector: { matchLabels: { 'a b': 'c' } } },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(errs(o), [
      'spec.egress[0].to[0]: Required value: must specify a peer',
      'spec.egress[0].to[1]: Forbidden: may not specify both ipBlock and another peer',
      'spec.egress[0].to[2].ipBlock.cidr: Required value',
      'spec.egress[0].to[3].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.egress[0].to[4].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
      'spec.egress[0].to[4].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
      'spec.egress[0].to[4].ipBlock.except[2]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      `spec.egress[0].to[5].namespaceSelector.matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('checks policyTypes', () => {
    assert.deepEqual(errs(np({ podSelector: {}, policyTypes: ['Ingress', 'Other'] })), [
      'spec.policyTypes[1]: Unsupported value: "Other": supported values: "Ingress", "Egress"',
    ]);
    assert.deepEqual(errs(np({ podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] })), [
      'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
    ]);
  });

  it('accepts invalid CIDRs and selectors already stored, on update', () => {
    const sel = { matchExpressions: [{ key: 'a', operator: 'In', values: ['bad value'] }] };
    const old = np({ podSelector: sel, ingress: [{ from: [{ ipBlock: { cidr: '1.2.3.4' } }] }] });
    const o = np({ podSelector: sel, egress: [{ to: [{ ipBlock: { cidr: '1.2.3.4' } }] }] });
    o.metadata.resourceVersion = '7';
    assert.deepEqual(st.validate!(o), []);
    assert.deepEqual(st.validateUpdate!(o, old), []);
    assert.equal(st.validateUpdate!(o, np({ podSelector: {} })).length, 2);
  });

  it('warns about ambiguous and non-standard CIDRs on create and update', () => {
    const o = np({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['010.1.0.0/16'] } }] }], egress: [{ to: [{ ipBlock: { cidr: '2001:DB8::/64' } }] }] });
    assert.deepEqual(st.warnings!(o), [
      'spec.ingress[0].from[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
      'spec.ingress[0].from[0].ipBlock.except[0]: non-standard CIDR value "010.1.0.0/16" will be considered invalid in a future Kubernetes release: use "10.1.0.0/16"',
      'spec.egress[0].to[0].ipBlock.cidr: IPv6 CIDR value "2001:DB8::/64" should be in RFC 5952 canonical format ("2001:db8::/64")',
    ]);
  });
});

describe('NetworkPolicy table', () => {
  it('prints NAME POD-SELECTOR AGE', () => {
    const now = Date.parse('2024-01-01T00:00:30Z');
    const o = withDefaults(np({ podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }));
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(networkPolicyResource.columns.map((c) => c.name), ['Name', 'Pod-Selector', 'Age']);
    assert.deepEqual(networkPolicyResource.columns.map((c) => c.cell(o, { now })), ['deny', 'app=web,tier in (a,b)', '30s']);
    assert.equal(networkPolicyResource.columns[1].cell(withDefaults(np(undefined)), { now }), '<none>');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { endpointsResource, ENDPOINTS_DEPRECATION_WARNING, formatEndpoints, repackSubsets, validateEndpoints, type Endpoints } from '../../../../src/api/core/endpoints.js';
import { cluster, NOW, status, strings, ts, type Cluster } from './more-helpers.js';

const ep = (subsets: Endpoints['subsets']): Endpoints => ({ metadata: { name: 'web', namespace: 'default' }, subsets });

describe('Endpoints', () => {
  it('validates addresses and ports with the Kubernetes messages', () => {
    const e = ep([
      { addresses: [{ ip: '127.0.0.1' }, { ip: 'nope', hostname: 'Bad_Host' }], ports: [{ port: 80, protocol: 'TCP' }, { name: 'b', port: 70000, protocol: 'TCP' }] },
      { ports: [{ port: 1, protocol: 'TCP' }] },
    ]);
    assert.deepEqual(strings(validateEndpoints(e)), [
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'subsets[0].addresses[1].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      `subsets[0].addresses[1].hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'subsets[0].addresses[1].ip: Invalid value: "nope": must be a valid IP address',
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
    ]);
  });

  it('repacks subsets by port set, readiness winning', () => {
    const packed = repackSubsets([
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.1' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.3' }] },
    ]);
    assert.deepEqual(packed, [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.3' }] },
    ]);
  });

  it('prints at most three endpoints', () => {
    const e = ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }]);
    assert.equal(formatEndpoints(e), '10.0.0.1:80,10.0.0.2:80,[fd00::3]:80 + 1 more...');
    assert.equal(formatEndpoints(ep([{ addresses: [{ ip: '10.0.0.9' }] }])), '10.0.0.9');
    assert.equal(formatEndpoints(ep(undefined)), '<none>');
    const row = endpointsResource.columns.map((c) => c.cell(ts(ep([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080 }] }])) as Endpoints, { now: NOW }));
    assert.deepEqual(row, ['web', '10.0.0.1:8080', '5m']);
    assert.deepEqual(endpointsResource.shortNames, ['ep']);
  });

  describe('through the registry', () => {
    let c: Cluster;
    before(async () => {
      c = await cluster();
    });
    after(() => c.store.close());

    it('defaults protocols, repacks, warns and rejects invalid subsets', async () => {
      const r = c.client.resource('v1', 'endpoints');
      const created = await r.create('default', {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'web' },
        subsets: [{ addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
      });
      assert.deepEqual(created.subsets, [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
      await assert.rejects(
        r.create('default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'bad' }, subsets: [{ ports: [{ port: 80 }] }] }),
        status(422, 'Endpoints "bad" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`'),
      );
      assert.deepEqual(endpointsResource.strategy.warnings?.(created as Endpoints), [ENDPOINTS_DEPRECATION_WARNING]);
    });
  });
});

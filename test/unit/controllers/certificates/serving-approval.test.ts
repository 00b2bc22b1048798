import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servingNamesAreNodes } from '../../../../src/controllers/certificates/serving-approval.js';
import type { ParsedRequest } from '../../../../src/pki/csr-sign.js';

const req = (dnsNames: string[], ipAddresses: string[]) => ({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames, ipAddresses, emailAddresses: [], uris: [] }) as unknown as ParsedRequest;
const node = { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'host-a' }] } };

describe('kubelet serving CSR approval', () => {
  it("approves the node's own names and addresses only", () => {
    assert.ok(servingNamesAreNodes(req(['n1'], ['10.0.0.2']), 'n1', node));
    assert.ok(servingNamesAreNodes(req(['n1', 'host-a'], []), 'n1', node));
    assert.ok(!servingNamesAreNodes(req(['n1'], ['10.0.0.3']), 'n1', node));
    assert.ok(!servingNamesAreNodes(req(['kubernetes.default'], ['10.0.0.2']), 'n1', node));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentCommand, parseNodeLabels } from '../../../src/cli/agent.js';

describe('k1s agent flags', () => {
  it('--node-labels: KEY=VALUE pairs a kubelet may set', () => {
    assert.deepEqual(parseNodeLabels('disk=ssd, zone=a'), { disk: 'ssd', zone: 'a' });
    assert.match(parseNodeLabels('disk') as string, /not KEY=VALUE/);
    assert.match(parseNodeLabels('node-role.kubernetes.io/worker=') as string, /may not set this label itself/);
  });

  it('bad input is a usage error (2) before anything is started', async () => {
    const errors: string[] = [];
    const orig = console.error;
    console.error = (l: string) => errors.push(l);
    try {
      assert.equal(await agentCommand([]), 2);
      assert.equal(await agentCommand(['--server', 'http://10.0.0.1:6443', '--token', 'abcdef.0123456789abcdef']), 2);
      assert.equal(await agentCommand(['--server', 'https://10.0.0.1:6443', '--token', 'nope']), 2);
      assert.equal(await agentCommand(['--server', 'https://10.0.0.1:6443', '--token', 'abcdef.0123456789abcdef', '--ca-cert-hash', 'md5:00']), 2);
      assert.equal(await agentCommand(['--server', 'https://10.0.0.1:6443', '--node-ip', '10.0.0']), 2);
    } finally {
      console.error = orig;
    }
    assert.match(errors[0]!, /^k1s agent: --server is required/);
    assert.match(errors[1]!, /must be https:\/\//);
    assert.match(errors[2]!, /--token: not a bootstrap token/);
    assert.match(errors[3]!, /--ca-cert-hash md5:00: not sha256:<64 hex digits>/);
    assert.match(errors[4]!, /--node-ip 10.0.0: not an IP address/);
  });
});

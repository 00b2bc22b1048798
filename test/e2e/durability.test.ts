// A write acknowledged to a client survives kill -9 of the server; SIGTERM stops it cleanly.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { kubectl, removeDir, startServer, type K1sServer } from './harness.js';

describe('durability', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(removeDir));

  it('keeps acknowledged writes across kill -9 and restarts with the same certificates', async () => {
    let server: K1sServer = await startServer();
    dirs.push(server.dataDir);
    const k = kubectl(server, '1.33');
    const names: string[] = [];
    for (let i = 0; i < 20; i++) {
      const name = `durable-${i}`;
      await k.ok(['apply', '-f', '-'], { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  i: "${i}"\n` });
      names.push(name);
    }
    const rvBefore = JSON.parse(await k.ok(['get', 'cm', '-o', 'json'])).metadata.resourceVersion;
    await server.stop('SIGKILL');
    server = await startServer({ dataDir: server.dataDir });
    const k2 = kubectl(server, '1.33');
    const list = JSON.parse(await k2.ok(['get', 'cm', '-o', 'json']));
    const got = list.items.map((i: { metadata: { name: string } }) => i.metadata.name).filter((n: string) => n.startsWith('durable-'));
    assert.deepEqual(got.sort(), [...names].sort());
    assert.ok(Number(list.metadata.resourceVersion) >= Number(rvBefore));
    assert.match(server.log(), /certificates loaded/);
    assert.equal(await server.stop('SIGTERM'), 0);
    assert.match(server.log(), /k1s: stopped/);
  });

  it('answers requests without a client certificate as system:anonymous', async () => {
    const server = await startServer();
    dirs.push(server.dataDir);
    try {
      const res = await fetchInsecure(`${server.url}/api/v1/namespaces`);
      assert.equal(res.status, 403);
      assert.equal(res.body.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
      const health = await fetchInsecure(`${server.url}/readyz?verbose`);
      assert.equal(health.status, 200);
      assert.match(health.text, /\[\+\]etcd ok/);
      assert.match(health.text, /readyz check passed/);
    } finally {
      await server.stop();
    }
  });
});

async function fetchInsecure(url: string): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text);
          } catch {
            /* plain text */
          }
          resolve({ status: res.statusCode ?? 0, text, body });
        });
      })
      .on('error', reject);
  });
}

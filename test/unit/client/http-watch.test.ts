import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { HttpClient } from '../../../src/client/http.js';
import type { ClientWatchEvent } from '../../../src/client/types.js';
import { createCa, createServingCert } from '../../../src/pki/certs.js';

describe('HttpClient watch', () => {
  it('reports a connection the server breaks (no clean end) as one ERROR, so informers relist', async () => {
    const ca = await createCa();
    const tls = await createServingCert(ca, { commonName: 'localhost', hostnames: ['localhost'], ips: ['127.0.0.1'] });
    const server = createServer({ key: tls.keyPem, cert: tls.certPem }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } } })}\n`);
      // as a server that goes away: the socket is destroyed without ending the chunked body
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = new HttpClient({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.certPem });
    try {
      const events: ClientWatchEvent[] = [];
      await client.resource('v1', 'configmaps').watch('default', {}, (ev) => events.push(ev));
      for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'ERROR']);
    } finally {
      client.close();
      server.close();
    }
  });
});

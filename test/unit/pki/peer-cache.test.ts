// PeerIdentityCache over real TLS connections: one certificate read per connection, never shared between them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { PeerIdentityCache } from '../../../src/pki/client-auth.js';
import { defaultServingNames, ensurePki, issueClientCertificate, type PkiFiles } from '../../../src/pki/pki.js';

describe('PeerIdentityCache', () => {
  let pki: PkiFiles;
  let server: Server;
  let port: number;
  let dir: string;
  let reads = 0;
  let finishedReads = 0;
  const wrapped = new WeakSet<TLSSocket>();
  const cache = new PeerIdentityCache();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k1s-peer-cache-'));
    pki = await ensurePki(dir, defaultServingNames());
    server = createServer(
      { cert: pki.server.certPem, key: pki.server.keyPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        const read = socket.getPeerCertificate.bind(socket);
        socket.getPeerCertificate = ((detailed?: boolean) => (reads++, read(detailed as true))) as typeof socket.getPeerCertificate;
        if (!wrapped.has(socket)) {
          wrapped.add(socket);
          const finished = socket.getFinished.bind(socket);
          socket.getFinished = () => (finishedReads++, finished());
        }
        res.end(JSON.stringify(cache.identity(socket)));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.close();
    await once(server, 'close');
    await rm(dir, { recursive: true, force: true });
  });

  const get = (agent: Agent) =>
    new Promise<unknown>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(JSON.parse(body)));
      });
      req.on('error', reject);
      req.end();
    });

  it('reads the certificate once per connection and keeps connections apart', async () => {
    const jane = await issueClientCertificate(pki, { commonName: 'jane', organizations: ['dev'] });
    const admin = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
    const other = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.certPem, cert: jane.certPem, key: jane.keyPem });
    const anonymous = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.certPem });
    try {
      reads = 0;
      for (let i = 0; i < 3; i++) assert.deepEqual(await get(admin), { user: 'kubernetes-admin', groups: ['system:masters'] });
      assert.equal(reads, 1);
      for (let i = 0; i < 2; i++) assert.deepEqual(await get(other), { user: 'jane', groups: ['dev'] });
      assert.equal(reads, 2);
      assert.equal(await get(anonymous), null);
      assert.equal(await get(anonymous), null);
      assert.deepEqual(await get(admin), { user: 'kubernetes-admin', groups: ['system:masters'] });
      assert.equal(reads, 2, 'no certificate, no read; and the admin connection is still cached');
    } finally {
      for (const a of [admin, other, anonymous]) a.destroy();
    }
  });

  it('a TLS 1.3 connection keeps its first answer; a TLS 1.2 one checks its handshake at every request', async () => {
    const tls13 = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
    const tls12 = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, maxVersion: 'TLSv1.2' });
    try {
      finishedReads = 0;
      for (let i = 0; i < 3; i++) assert.deepEqual(await get(tls13), { user: 'kubernetes-admin', groups: ['system:masters'] });
      assert.equal(finishedReads, 1);
      finishedReads = 0;
      for (let i = 0; i < 3; i++) assert.deepEqual(await get(tls12), { user: 'kubernetes-admin', groups: ['system:masters'] });
      assert.equal(finishedReads, 3);
    } finally {
      for (const a of [tls13, tls12]) a.destroy();
    }
  });
});

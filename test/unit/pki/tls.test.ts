// Real TLS handshakes against a node:https server using the generated PKI.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createClientCert, createCa } from '../../../src/pki/certs.js';
import { authenticatedPeer, type PeerIdentity } from '../../../src/pki/client-auth.js';
import { defaultServingNames, ensurePki, issueClientCertificate, type PkiFiles } from '../../../src/pki/pki.js';

interface Seen {
  authorized: boolean;
  error: string | null;
  identity: PeerIdentity | null;
}

interface ClientOpts {
  host?: string;
  servername?: string;
  cert?: string;
  key?: string;
  ca?: string;
}

function get(port: number, opts: ClientOpts): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        path: '/',
        servername: opts.servername,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(JSON.parse(body) as Seen));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('TLS with the generated PKI', () => {
  let pki: PkiFiles;
  let server: Server;
  let port: number;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k1s-pki-tls-'));
    pki = await ensurePki(dir, defaultServingNames());
    server = createServer(
      { cert: pki.server.certPem, key: pki.server.keyPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        const seen: Seen = {
          authorized: socket.authorized,
          error: socket.authorizationError ? String(socket.authorizationError) : null,
          identity: authenticatedPeer(socket),
        };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(seen));
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

  it('authenticates the admin client certificate as kubernetes-admin in system:masters', async () => {
    const seen = await get(port, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
    assert.equal(seen.authorized, true);
    assert.deepEqual(seen.identity, { user: 'kubernetes-admin', groups: ['system:masters'] });
  });

  it('authenticates an issued client certificate with several groups', async () => {
    const c = await issueClientCertificate(pki, { commonName: 'system:node:n1', organizations: ['system:nodes', 'x'] });
    const seen = await get(port, { ca: pki.ca.certPem, cert: c.certPem, key: c.keyPem });
    assert.deepEqual(seen.identity, { user: 'system:node:n1', groups: ['system:nodes', 'x'] });
  });

  it('sees a client without a certificate as unauthorized', async () => {
    const seen = await get(port, { ca: pki.ca.certPem });
    assert.equal(seen.authorized, false);
    assert.equal(seen.identity, null);
  });

  it('rejects a client certificate from another CA', async () => {
    const foreign = await createClientCert(await createCa(), { commonName: 'mallory', organizations: ['system:masters'] });
    const seen = await get(port, { ca: pki.ca.certPem, cert: foreign.certPem, key: foreign.keyPem });
    assert.equal(seen.authorized, false);
    assert.equal(seen.identity, null);
  });

  it('rejects the serving certificate used as a client certificate (no clientAuth usage)', async () => {
    const seen = await get(port, { ca: pki.ca.certPem, cert: pki.server.certPem, key: pki.server.keyPem });
    assert.equal(seen.authorized, false);
    assert.equal(seen.identity, null);
  });

  it('is trusted by clients under every default DNS name, and not under others', async () => {
    for (const name of defaultServingNames().hostnames) {
      const seen = await get(port, { servername: name, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
      assert.equal(seen.authorized, true, name);
    }
    await assert.rejects(get(port, { servername: 'evil.example', ca: pki.ca.certPem }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    // Without the CA a client cannot verify the server (OpenSSL's code depends on the chain sent).
    await assert.rejects(get(port, {}), { code: /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/ });
  });
});

// The cluster's bootstrap data in etcd (shared-bootstrap.ts), against a real etcd member: the first server with a
// token saves its CA and keys encrypted with it, a second one gets them, a wrong token is refused, a server without
// a token keeps its own and is told how to join; and the --token / --advertise-address flags.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterPki } from '../../../src/cluster/cluster-pki.js';
import { openBootstrap, resolveToken, sealBootstrap } from '../../../src/cluster/shared-bootstrap.js';
import { StartRefused } from '../../../src/cluster/start-refused.js';
import { controlPlaneFlags } from '../../../src/cli/control-plane-flags.js';
import { isSignedBy } from '../../../src/pki/certs.js';
import { EtcdCluster } from '../../etcd-member.js';

describe('sealed bootstrap data', () => {
  it('opens with the token it was sealed with, never shows the keys, refuses another token', async () => {
    const files = { 'tls/ca.key': '-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n' };
    const sealed = await sealBootstrap(files, 'right');
    assert.doesNotMatch(sealed, /secret|PRIVATE/);
    assert.notEqual(await sealBootstrap(files, 'right'), sealed, 'a fresh salt and IV each time');
    assert.deepEqual(await openBootstrap(sealed, 'right'), files);
    await assert.rejects(openBootstrap(sealed, 'wrong'), (e: Error) => e instanceof StartRefused && /token does not match the one the cluster was created with: pass the first server's --token/.test(e.message));
    await assert.rejects(openBootstrap('{"version":7}', 'right'), /not k1s'.*--etcd-prefix/);
  });
});

describe('servers sharing one etcd', () => {
  let etcd: EtcdCluster;
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'k1s-bootstrap-'));
    dirs.push(d);
    return d;
  };
  before(async () => {
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    await etcd?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const pkiOf = (dataDir: string, opts: { token?: string; secretsEncryption?: boolean; advertise?: string; log?: string[] } = {}) =>
    clusterPki({
      dataDir, bindAddress: '127.0.0.1', advertiseAddress: opts.advertise, serviceIP: '10.43.0.1', datastore: { endpoints: etcd.endpoints, prefix: '/bs' },
      token: opts.token, secretsEncryption: opts.secretsEncryption, log: (l) => opts.log?.push(l),
    });

  it('the first server saves its CA and keys, the second gets them and its own serving certificate, a wrong token is refused', async () => {
    const [a, b, c, d] = [dir(), dir(), dir(), dir()];
    const logA: string[] = [];
    const pa = await pkiOf(a, { token: 't0ken', secretsEncryption: true, advertise: '10.0.0.1', log: logA });
    assert.ok(pa.shared);
    assert.ok(logA.some((l) => /bootstrap data .* saved in the datastore/.test(l)), logA.join('\n'));
    const stored = await etcd.etcdctl('get', '--print-value-only', '/bs/_k1s/bootstrap');
    assert.doesNotMatch(stored, /PRIVATE KEY/, 'encrypted in etcd');

    const pb = await pkiOf(b, { token: 't0ken', secretsEncryption: true, advertise: '10.0.0.2' });
    assert.equal(pb.pki.ca.certPem, pa.pki.ca.certPem);
    assert.equal(pb.pki.serviceAccount.keyPem, pa.pki.serviceAccount.keyPem);
    assert.equal(pb.frontProxy.ca.certPem, pa.frontProxy.ca.certPem);
    assert.equal(readFileSync(join(b, 'cred', 'encryption-config.json'), 'utf8'), readFileSync(join(a, 'cred', 'encryption-config.json'), 'utf8'));
    assert.notEqual(pb.pki.server.certPem, pa.pki.server.certPem);
    assert.ok(isSignedBy(pb.pki.server.certPem, pa.pki.ca.certPem), "B's serving certificate is issued by the shared CA");
    for (const f of ['tls/ca.key', 'tls/service-account.key', 'tls/front-proxy-ca.key', 'cred/encryption-config.json', 'cred/token']) {
      assert.equal(statSync(join(b, f)).mode & 0o777, 0o600, f);
    }
    // a restart without --token uses the one it saved
    assert.equal(await resolveToken(b, undefined), 't0ken');

    await assert.rejects(pkiOf(c, { token: 'other', secretsEncryption: true }), /token does not match/);
    await assert.rejects(pkiOf(c, { token: 't0ken' }), /encrypts Secrets at rest .* --secrets-encryption too/);

    // without a token: its own CA, and a hint
    const logD: string[] = [];
    const pd = await pkiOf(d, { log: logD });
    assert.equal(pd.shared, false);
    assert.notEqual(pd.pki.ca.certPem, pa.pki.ca.certPem);
    assert.ok(logD.some((l) => /pass the same --token to join them/.test(l)), logD.join('\n'));
  });

  it('servers started at the same moment end up with one CA: the first write wins, the others take it', async () => {
    const started = await Promise.all([dir(), dir(), dir()].map((d) => clusterPki({ dataDir: d, bindAddress: '127.0.0.1', serviceIP: '10.43.0.1', datastore: { endpoints: etcd.endpoints, prefix: '/bs3' }, token: 'same', log: () => {} })));
    assert.equal(new Set(started.map((p) => p.pki.ca.certPem)).size, 1);
    assert.equal(new Set(started.map((p) => p.pki.serviceAccount.publicKeyPem)).size, 1);
    for (const p of started) assert.ok(isSignedBy(p.pki.server.certPem, started[0]!.pki.ca.certPem));
  });

  it('a server that had its own CA takes the cluster\'s when it joins', async () => {
    const [e, f] = [dir(), dir()];
    const prefix = { endpoints: etcd.endpoints, prefix: '/bs2' };
    const first = await clusterPki({ dataDir: e, bindAddress: '127.0.0.1', serviceIP: '10.43.0.1', datastore: prefix, token: 'x', log: () => {} });
    const own = await clusterPki({ dataDir: f, bindAddress: '127.0.0.1', serviceIP: '10.43.0.1', log: () => {} });
    assert.notEqual(own.pki.ca.certPem, first.pki.ca.certPem);
    const log: string[] = [];
    const joined = await clusterPki({ dataDir: f, bindAddress: '127.0.0.1', serviceIP: '10.43.0.1', datastore: prefix, token: 'x', log: (l) => log.push(l) });
    assert.equal(joined.pki.ca.certPem, first.pki.ca.certPem);
    assert.ok(isSignedBy(joined.pki.admin.certPem, first.pki.ca.certPem), 'leaves issued again by the shared CA');
    assert.ok(log.some((l) => /ca\.crt replaced by the cluster's/.test(l)), log.join('\n'));
  });
});

describe('--token, --token-file, K1S_TOKEN, --advertise-address', () => {
  const etcdArgs = ['--datastore-endpoint', 'http://127.0.0.1:2379'];
  it('are taken out of the arguments and checked', () => {
    assert.deepEqual(controlPlaneFlags([...etcdArgs, '--token', 's', '--advertise-address=10.0.0.5', '--disable-agent'], {}), { rest: [...etcdArgs, '--disable-agent'], token: 's', advertiseAddress: '10.0.0.5' });
    assert.equal((controlPlaneFlags(etcdArgs, { K1S_TOKEN: 'from-env' }) as { token?: string }).token, 'from-env');
    assert.equal((controlPlaneFlags([], { K1S_TOKEN: 'from-env' }) as { token?: string }).token, undefined, 'K1S_TOKEN alone does not refuse SQLite');
    const tmp = mkdtempSync(join(tmpdir(), 'k1s-token-'));
    try {
      writeFileSync(join(tmp, 'token'), 'from-file\n');
      assert.equal((controlPlaneFlags([...etcdArgs, '--token-file', join(tmp, 'token')], {}) as { token?: string }).token, 'from-file');
      assert.match(controlPlaneFlags([...etcdArgs, '--token-file', join(tmp, 'none')], {}) as string, /no such file/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    assert.match(controlPlaneFlags(['--token', 's'], {}) as string, /--token needs --datastore-endpoint/);
    assert.match(controlPlaneFlags([...etcdArgs, '--token'], {}) as string, /flag needs an argument: --token/);
    assert.match(controlPlaneFlags([...etcdArgs, '--token', 'a', '--token-file', 'f'], {}) as string, /go alone/);
    assert.match(controlPlaneFlags(['--advertise-address', 'host.example'], {}) as string, /must be an IP address/);
    assert.match(controlPlaneFlags(['--advertise-address', '127.0.0.1'], {}) as string, /cannot be in the kubernetes Endpoints/);
  });
});

import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { kubeconfigYaml, mergeKubeconfig, writeKubeconfig } from '../../../src/pki/kubeconfig.js';
import { defaultServingNames, ensurePki } from '../../../src/pki/pki.js';
import { KUBECTL, run, withTempDir } from './helpers.js';

const fake = { server: 'https://127.0.0.1:6443', caPem: 'CA', clientCertPem: 'CERT', clientKeyPem: 'KEY' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('kubeconfig', () => {
  it('renders a kubeconfig with embedded credentials, all entries named k1s', () => {
    const cfg = parse(kubeconfigYaml(fake));
    assert.equal(cfg.apiVersion, 'v1');
    assert.equal(cfg.kind, 'Config');
    assert.equal(cfg['current-context'], 'k1s');
    assert.deepEqual(cfg.clusters, [{ name: 'k1s', cluster: { server: fake.server, 'certificate-authority-data': b64('CA') } }]);
    assert.deepEqual(cfg.users, [{ name: 'k1s', user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') } }]);
    assert.deepEqual(cfg.contexts, [{ name: 'k1s', context: { cluster: 'k1s', user: 'k1s' } }]);
    assert.equal(parse(kubeconfigYaml({ ...fake, name: 'other' }))['current-context'], 'other');
  });

  it('writes exactly what the yaml package would, with or without the fast path', () => {
    const doc = (o: typeof fake & { name?: string }) => {
      const name = o.name ?? 'k1s';
      return {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name, cluster: { server: o.server, 'certificate-authority-data': b64(o.caPem) } }],
        users: [{ name, user: { 'client-certificate-data': b64(o.clientCertPem), 'client-key-data': b64(o.clientKeyPem) } }],
        contexts: [{ name, context: { cluster: name, user: name } }],
        'current-context': name,
        preferences: {},
      };
    };
    const longPem = `-----BEGIN CERTIFICATE-----\n${'MIIBkTCB+wIJAK/x'.repeat(60)}\n-----END CERTIFICATE-----\n`;
    const cases: (typeof fake & { name?: string })[] = [
      fake,
      { ...fake, caPem: longPem, clientCertPem: longPem, clientKeyPem: longPem + '?>' },
      { ...fake, server: 'https://[::1]:6443' },
      { ...fake, server: 'https://my-host.example.com:443/prefix' },
      { ...fake, name: 'other' },
      ...['true', 'Null', 'yes', 'on', '0x1f', '123', '1e3', '.inf', 'a: b', 'a:', '- x', '#x', 'x #y', "it's", '"q"', '*a', '&a', '!t', '%x', '@x', '`x', '', ' x', 'x ', '{a}', '[a]', 'a,b', 'k1s@prod', 'ctx/name', 'ü'].map(
        (name) => ({ ...fake, name }),
      ),
    ];
    for (const c of cases) assert.equal(kubeconfigYaml(c), stringify(doc(c)), JSON.stringify(c.name ?? c.server));
  });

  it('writes mode 0600, creating parent dirs and tightening an existing file', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'a', 'b', 'kubeconfig');
      await writeKubeconfig(path, kubeconfigYaml(fake));
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      await writeFile(path, 'old', { mode: 0o644 });
      await writeKubeconfig(path, 'new: 1\n');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.equal(await readFile(path, 'utf8'), 'new: 1\n');
    });
  });

  it('merges into an existing config, replacing same-named entries', () => {
    const fromEmpty = parse(mergeKubeconfig('', kubeconfigYaml({ ...fake, name: 'kind' })));
    assert.deepEqual(fromEmpty.users.map((u: { name: string }) => u.name), ['kind']);
    const withPrefs = kubeconfigYaml({ ...fake, name: 'kind' }).replace('preferences: {}', 'preferences:\n  colors: true');
    assert.match(withPrefs, /colors: true/);
    const once = mergeKubeconfig(withPrefs, kubeconfigYaml(fake));
    const twice = parse(mergeKubeconfig(once, kubeconfigYaml({ ...fake, server: 'https://127.0.0.1:7443' })));
    assert.deepEqual(twice.clusters.map((c: { name: string }) => c.name), ['kind', 'k1s']);
    assert.equal(twice.clusters[1].cluster.server, 'https://127.0.0.1:7443');
    assert.equal(twice.users.length, 2);
    assert.equal(twice.contexts.length, 2);
    assert.equal(twice['current-context'], 'k1s');
    assert.deepEqual(twice.preferences, { colors: true });
  });

  it('is understood by kubectl', async () => {
    await withTempDir(async (dir) => {
      const pki = await ensurePki(join(dir, 'pki'), defaultServingNames());
      const path = join(dir, 'kubeconfig');
      await writeKubeconfig(
        path,
        kubeconfigYaml({ server: 'https://127.0.0.1:6443', caPem: pki.ca.certPem, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem }),
      );
      const view = (jsonpath: string) => run(KUBECTL!, ['--kubeconfig', path, 'config', 'view', '--raw', '-o', `jsonpath=${jsonpath}`]);
      assert.equal(view('{.users[0].name}'), 'k1s');
      assert.equal(view('{.current-context}'), 'k1s');
      assert.equal(Buffer.from(view('{.users[0].user.client-key-data}'), 'base64').toString(), pki.admin.keyPem);
    });
  });
});

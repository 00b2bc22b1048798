import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasContext, mergeKubeconfig, removeKubeconfigEntries, userKubeconfigPath } from '../../../src/cli/kubeconfig-merge.js';
import { kubeconfigYaml } from '../../../src/pki/kubeconfig.js';
import { YAML } from '../../../src/machinery/yaml.js';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-kcfg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const clusterKubeconfig = (server: string) => kubeconfigYaml({ server, caPem: 'CA', clientCertPem: 'CERT', clientKeyPem: 'KEY' });

const existing = `apiVersion: v1
kind: Config
clusters:
  - name: prod
    cluster:
      server: https://prod.example:6443
users:
  - name: prod-admin
    user:
      token: secret
contexts:
  - name: prod
    context:
      cluster: prod
      user: prod-admin
      namespace: web
current-context: prod
preferences: {}
extensions:
  - name: kept
    extension: {}
`;

test('merge adds k1s entries, makes them current, keeps every other entry, and writes mode 0600', (t) => {
  const dir = tempDir(t);
  const target = join(dir, 'nested', 'config');
  const src = join(dir, 'src.yaml');
  writeFileSync(src, clusterKubeconfig('https://127.0.0.1:6444'));
  mergeKubeconfig(target, src, { name: 'k1s-dev' }); // a missing file and directory are created
  writeFileSync(target, existing, { mode: 0o644 });
  mergeKubeconfig(target, src, { name: 'k1s-dev' });
  assert.equal(statSync(target).mode & 0o777, 0o600);
  const doc = YAML.parse(readFileSync(target, 'utf8'));
  assert.equal(doc['current-context'], 'k1s-dev');
  assert.deepEqual(doc.clusters.map((c: { name: string }) => c.name), ['prod', 'k1s-dev']);
  assert.equal(doc.clusters[1].cluster.server, 'https://127.0.0.1:6444');
  assert.equal(doc.users[1].user['client-key-data'], Buffer.from('KEY').toString('base64'));
  assert.deepEqual(doc.contexts[0].context, { cluster: 'prod', user: 'prod-admin', namespace: 'web' });
  assert.deepEqual(doc.contexts[1].context, { cluster: 'k1s-dev', user: 'k1s-dev' });
  assert.equal(doc.extensions[0].name, 'kept');

  // merging again (new port after a restart) replaces, not duplicates
  writeFileSync(src, clusterKubeconfig('https://127.0.0.1:7000'));
  mergeKubeconfig(target, src, { name: 'k1s-dev', setCurrent: false });
  const again = YAML.parse(readFileSync(target, 'utf8'));
  assert.equal(again.clusters.length, 2);
  assert.equal(again.clusters[1].cluster.server, 'https://127.0.0.1:7000');
  assert.equal(again['current-context'], 'k1s-dev');
  assert.ok(hasContext(target, 'k1s-dev'));

  assert.equal(removeKubeconfigEntries(target, 'k1s-dev'), true);
  const after = YAML.parse(readFileSync(target, 'utf8'));
  assert.deepEqual(after.clusters.map((c: { name: string }) => c.name), ['prod']);
  assert.deepEqual(after.users.map((c: { name: string }) => c.name), ['prod-admin']);
  assert.deepEqual(after.contexts.map((c: { name: string }) => c.name), ['prod']);
  assert.equal(after['current-context'], '');
  assert.equal(removeKubeconfigEntries(target, 'k1s-dev'), false);
  assert.equal(removeKubeconfigEntries(join(dir, 'absent'), 'k1s'), false);
});

test('the current context of another cluster is left alone on remove', (t) => {
  const dir = tempDir(t);
  const target = join(dir, 'config');
  const src = join(dir, 'src.yaml');
  writeFileSync(target, existing);
  writeFileSync(src, clusterKubeconfig('https://127.0.0.1:6443'));
  mergeKubeconfig(target, src, { name: 'k1s', setCurrent: false });
  assert.equal(YAML.parse(readFileSync(target, 'utf8'))['current-context'], 'prod');
  removeKubeconfigEntries(target, 'k1s');
  assert.equal(YAML.parse(readFileSync(target, 'utf8'))['current-context'], 'prod');
});

test('the target file is $KUBECONFIG first entry, else ~/.kube/config; a non-mapping file is refused', (t) => {
  assert.equal(userKubeconfigPath({ KUBECONFIG: ':/a/one:/b/two', HOME: '/h' }), '/a/one');
  assert.equal(userKubeconfigPath({ HOME: '/h' }), '/h/.kube/config');
  const dir = tempDir(t);
  const target = join(dir, 'config');
  const src = join(dir, 'src.yaml');
  writeFileSync(src, clusterKubeconfig('https://127.0.0.1:6443'));
  writeFileSync(target, '- a\n- b\n');
  assert.throws(() => mergeKubeconfig(target, src, { name: 'k1s' }), /not a kubeconfig/);
  assert.equal(readFileSync(target, 'utf8'), '- a\n- b\n');
});

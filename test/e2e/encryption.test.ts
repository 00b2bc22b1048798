// Encryption at rest end to end with real kubectl: the database file holds only ciphertext after kube's prefix,
// kubectl reads the value back, data written before encryption stays readable and is encrypted when replaced, a
// rotated key takes over with `kubectl replace`, a restart reads everything back; --secrets-encryption with
// `k1s secrets-encrypt status|rotate|reencrypt|prune`; a bad configuration refuses the start.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { storedSecretsByKey } from '../../src/cli/secrets-encrypt.js';
import { storedBytes } from './datastore.js';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

const plaintext = 'hunter2-correct-horse-battery';
const base64 = Buffer.from(plaintext).toString('base64');


function aescbcConfig(keys: { name: string; secret: string }[], identity = true): string {
  const ks = keys.map((k) => `      - name: ${k.name}\n        secret: ${k.secret}\n`).join('');
  return `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n${ks}${identity ? '  - identity: {}\n' : ''}`;
}

const servers: K1sServer[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) removeDir(d);
});

async function server(dataDir: string, extraArgs: string[]): Promise<K1sServer> {
  const s = await startServer({ dataDir, extraArgs });
  servers.push(s);
  return s;
}

describe('--encryption-provider-config (aescbc)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-enc-e2e-'));
  dirs.push(dir);
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'enc.yaml');
  const key1 = { name: 'key1', secret: randomBytes(32).toString('base64') };
  const key2 = { name: 'key2', secret: randomBytes(32).toString('base64') };
  let s: K1sServer;
  let k: ReturnType<typeof kubectl>;

  it('keeps a Secret written before encryption readable, and encrypts new ones', async () => {
    const plain = await server(dataDir, []);
    await kubectl(plain, '1.33').ok(['create', 'secret', 'generic', 'before', `--from-literal=password=${plaintext}`]);
    await plain.stop();
    writeFileSync(configFile, aescbcConfig([key1]));
    s = await server(dataDir, ['--encryption-provider-config', configFile, '--encryption-provider-config-automatic-reload']);
    k = kubectl(s, '1.33');
    assert.equal(Buffer.from(await k.ok(['get', 'secret', 'before', '-o', 'jsonpath={.data.password}']), 'base64').toString(), plaintext);
    await k.ok(['create', 'secret', 'generic', 's1', `--from-literal=password=${plaintext}`]);
    assert.equal(Buffer.from(await k.ok(['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']), 'base64').toString(), plaintext);
    // "before" and the server's join token (kube-system/bootstrap-token-…) were written in the clear
    assert.deepEqual(Object.fromEntries(await storedSecretsByKey(dataDir)), { identity: 2, 'aescbc:key1': 1 });
  });

  it('the database file holds neither the value nor its base64 once every Secret is replaced, only the prefix', async () => {
    const list = await k.ok(['get', 'secrets', '-A', '-o', 'json']);
    await k.ok(['replace', '-f', '-'], { input: list });
    assert.deepEqual(Object.fromEntries(await storedSecretsByKey(dataDir)), { 'aescbc:key1': 3 });
    // the history of "before" still holds its plain revision until compaction; s1 never was plain
    await k.ok(['create', 'secret', 'generic', 's2', '--from-literal=token=never-stored-in-the-clear-42']);
    const bytes = await storedBytes(dataDir);
    assert.ok(!bytes.includes('never-stored-in-the-clear-42'), 'no plaintext in the file');
    assert.ok(!bytes.includes(Buffer.from('never-stored-in-the-clear-42').toString('base64')), 'no base64 of it either');
    assert.ok(bytes.includes('k8s:enc:aescbc:v1:key1:'));
    assert.ok(!bytes.includes('k8s:enc:aescbc:v1:key2:'));
  });

  it('serves watches with plain objects', async () => {
    const rv = JSON.parse(await k.ok(['get', 'secrets', '-o', 'json'])).metadata.resourceVersion as string;
    const watching = k.run(['get', '--raw', `/api/v1/namespaces/default/secrets?watch=1&resourceVersion=${rv}&timeoutSeconds=3`]);
    await k.ok(['create', 'secret', 'generic', 'watched', '--from-literal=k=watched-value']);
    const out = (await watching).stdout;
    assert.match(out, new RegExp(Buffer.from('watched-value').toString('base64')));
  });

  it('a rotated key writes, the old one reads, and replacing every Secret moves them all to it', async () => {
    writeFileSync(configFile, aescbcConfig([key2, key1]));
    await until(async () => /encryption configuration reloaded/.test(s.log()), 'reload', 10_000);
    assert.equal(Buffer.from(await k.ok(['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']), 'base64').toString(), plaintext);
    const list = await k.ok(['get', 'secrets', '-A', '-o', 'json']);
    await k.ok(['replace', '-f', '-'], { input: list });
    const counts = Object.fromEntries(await storedSecretsByKey(dataDir));
    assert.deepEqual(Object.keys(counts), ['aescbc:key2']);
  });

  it('a restart reads everything back', async () => {
    await s.stop();
    s = await server(dataDir, ['--encryption-provider-config', configFile]);
    k = kubectl(s, '1.33');
    for (const name of ['before', 's1']) {
      assert.equal(Buffer.from(await k.ok(['get', 'secret', name, '-o', 'jsonpath={.data.password}']), 'base64').toString(), plaintext);
    }
    assert.equal(await k.ok(['get', 'secret', 's2', '-o', 'jsonpath={.data.token}']), Buffer.from('never-stored-in-the-clear-42').toString('base64'));
  });

  it('a value no key can read is an internal error, as kube answers', async () => {
    await s.stop();
    writeFileSync(configFile, aescbcConfig([{ name: 'key3', secret: randomBytes(32).toString('base64') }], false));
    s = await server(dataDir, ['--encryption-provider-config', configFile]);
    k = kubectl(s, '1.33');
    const r = await k.run(['get', 'secret', 's1']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Internal error occurred: no matching key was found for the provided AES transformer/, s.log());
  });
});

describe('bad configurations', () => {
  it('refuse the start with kube’s message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-enc-bad-'));
    dirs.push(dir);
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, aescbcConfig([{ name: 'k', secret: Buffer.from('short').toString('base64') }]));
    const r = await run(process.execPath, [k1sBin, 'server', '--data-dir', join(dir, 'd'), '--disable-agent', '--encryption-provider-config', f]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error while parsing file: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of \[16 24 32\]/);
  });
});

describe('--secrets-encryption and k1s secrets-encrypt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-secenc-e2e-'));
  dirs.push(dir);
  const k1s = (...args: string[]) => run(process.execPath, [k1sBin, 'secrets-encrypt', ...args, '--data-dir', dir]);
  let s: K1sServer;
  let k: ReturnType<typeof kubectl>;

  it('generates a key file (0600) and encrypts Secrets with it', async () => {
    s = await server(dir, ['--secrets-encryption']);
    k = kubectl(s, '1.33');
    const cfg = join(dir, 'cred', 'encryption-config.json');
    assert.equal(statSync(cfg).mode & 0o777, 0o600);
    await k.ok(['create', 'secret', 'generic', 'a', `--from-literal=p=${plaintext}`]);
    await k.ok(['create', 'secret', 'generic', 'b', `--from-literal=p=${plaintext}`]);
    const st = await k1s('status');
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /Encryption Status: Enabled/);
    assert.match(st.stdout, /Active Key: aescbckey\n/);
    // a, b and the server's join token
    assert.match(st.stdout, / \*\s+AES-CBC\s+aescbckey\s+3/);
    assert.ok(!(await storedBytes(dir)).includes(base64));
    assert.match(await k.ok(['get', '--raw', '/healthz?verbose']), /\[\+\]kms-providers ok/);
  });

  it('rotate, reencrypt and prune move every Secret to a new key and drop the old one', async () => {
    const rot = await k1s('rotate');
    assert.equal(rot.code, 0, rot.stderr);
    const active = /new key (\S+) is active/.exec(rot.stdout)![1]!;
    const re = await k1s('reencrypt');
    assert.equal(re.code, 0, re.stderr + re.stdout);
    assert.deepEqual(Object.fromEntries(await storedSecretsByKey(dir)), { [`aescbc:${active}`]: 3 });
    const pr = await k1s('prune');
    assert.equal(pr.code, 0, pr.stderr);
    assert.match(pr.stdout, /dropped aescbckey;/);
    const st = await k1s('status');
    assert.match(st.stdout, new RegExp(` \\*\\s+AES-CBC\\s+${active}\\s+3`));
    assert.ok(!st.stdout.includes('aescbckey  '));
    assert.equal(Buffer.from(await k.ok(['get', 'secret', 'a', '-o', 'jsonpath={.data.p}']), 'base64').toString(), plaintext);
  });
});

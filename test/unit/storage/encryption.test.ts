// The encryption-at-rest providers: round trips, kube's layouts and prefixes, key order, and kube's error texts for
// values that do not open.
import assert from 'node:assert/strict';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { loadEncryptionConfig } from '../../../src/apiserver/encryption/config.js';
import { KeyTransformers } from '../../../src/storage/encryption/key-transformers.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import { readHistory } from '../../../src/cli/history.js';
import { openStoreReadonly } from '../../../src/cli/snapshot.js';

const key = (n = 32) => randomBytes(n).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'k1s-enc-unit-'));
let files = 0;

function config(providers: string, resources = '[secrets]'): string {
  const path = join(dir, `c${files++}.yaml`);
  writeFileSync(path, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: ${resources}\n  providers:\n${providers}`);
  return path;
}

function transformers(providers: string, resources?: string): KeyTransformers {
  return new KeyTransformers(loadEncryptionConfig(config(providers, resources)).overrides);
}

const K = '/registry/core/secrets/default/s1';
const value = JSON.stringify({ kind: 'Secret', data: { password: Buffer.from('hunter2').toString('base64') } });

describe('providers', () => {
  for (const [provider, n, layout] of [['aescbc', 32, 16], ['aesgcm', 16, 12], ['aesgcm', 24, 12], ['aesgcm', 32, 12], ['secretbox', 32, 24]] as const) {
    it(`${provider} (${n}-byte key): round trip with k8s:enc:${provider}:v1:key1: and a fresh ${layout}-byte nonce each write`, () => {
      const t = transformers(`  - ${provider}:\n      keys:\n      - name: key1\n        secret: ${key(n)}\n`);
      const a = t.encode(K, value) as Buffer;
      const b = t.encode(K, value) as Buffer;
      assert.ok(Buffer.isBuffer(a));
      assert.ok(a.toString('latin1').startsWith(`k8s:enc:${provider}:v1:key1:`));
      assert.ok(!a.includes('hunter2') && !a.includes(Buffer.from('hunter2').toString('base64')));
      assert.notDeepEqual(a, b);
      assert.equal(t.decode(K, a), value);
      assert.deepEqual(t.read(K, a), { value, stale: false });
    });
  }

  it("aescbc stores kube's bytes: IV, then AES-256-CBC with PKCS#7 padding", () => {
    const secret = randomBytes(32);
    const t = transformers(`  - aescbc:\n      keys:\n      - name: k\n        secret: ${secret.toString('base64')}\n`);
    const body = (t.encode(K, value) as Buffer).subarray('k8s:enc:aescbc:v1:k:'.length);
    assert.equal((body.length - 16) % 16, 0);
    const d = createDecipheriv('aes-256-cbc', secret, body.subarray(0, 16));
    assert.equal(Buffer.concat([d.update(body.subarray(16)), d.final()]).toString(), value);
  });

  it('aesgcm binds a value to its key (authenticated data) and stores nonce, ciphertext, tag', () => {
    const secret = randomBytes(32);
    const t = transformers(`  - aesgcm:\n      keys:\n      - name: k\n        secret: ${secret.toString('base64')}\n`);
    const stored = t.encode(K, value) as Buffer;
    const body = stored.subarray('k8s:enc:aesgcm:v1:k:'.length);
    assert.equal(body.length, 12 + Buffer.byteLength(value) + 16);
    assert.throws(() => t.decode('/registry/core/secrets/default/other', stored), { message: 'cipher: message authentication failed' });
  });

  it('secretbox stores nonce then NaCl secretbox (tag, ciphertext)', () => {
    const secret = randomBytes(32);
    const t = transformers(`  - secretbox:\n      keys:\n      - name: k\n        secret: ${secret.toString('base64')}\n`);
    const body = (t.encode(K, value) as Buffer).subarray('k8s:enc:secretbox:v1:k:'.length);
    assert.equal(Buffer.from(xsalsa20poly1305(secret, body.subarray(0, 24)).decrypt(body.subarray(24))).toString(), value);
  });

  for (const [provider, n, message] of [
    ['aescbc', 32, /invalid padding on input|invalid PKCS7 data|Unexpected token|not valid JSON/],
    ['aesgcm', 32, /^cipher: message authentication failed$/],
    ['secretbox', 32, /^output array was not large enough for encryption$/],
  ] as const) {
    it(`${provider}: a tampered value fails with kube's text`, () => {
      const t = transformers(`  - ${provider}:\n      keys:\n      - name: key1\n        secret: ${key(n)}\n`);
      const stored = Buffer.from(t.encode(K, value) as Buffer);
      stored[stored.length - 1]! ^= 0x01;
      assert.throws(() => JSON.parse(t.decode(K, stored)), { message });
    });
  }
});

describe('order of providers and keys', () => {
  const k1 = key();
  const k2 = key();
  const old = transformers(`  - aescbc:\n      keys:\n      - name: key1\n        secret: ${k1}\n  - identity: {}\n`);
  const rotated = transformers(`  - aescbc:\n      keys:\n      - name: key2\n        secret: ${k2}\n      - name: key1\n        secret: ${k1}\n  - identity: {}\n`);

  it('the first key writes, the others read, and what they read is stale', () => {
    const before = old.encode(K, value) as Buffer;
    assert.deepEqual(rotated.read(K, before), { value, stale: true });
    const after = rotated.encode(K, value) as Buffer;
    assert.ok(after.toString('latin1').startsWith('k8s:enc:aescbc:v1:key2:'));
    assert.deepEqual(rotated.read(K, after), { value, stale: false });
    assert.equal(rotated.writePrefix(K), 'k8s:enc:aescbc:v1:key2:');
  });

  it('plain values (written before) are read by identity, stale; without identity: no matching prefix found', () => {
    assert.deepEqual(old.read(K, value), { value, stale: true });
    const strict = transformers(`  - aescbc:\n      keys:\n      - name: key1\n        secret: ${k1}\n`);
    assert.throws(() => strict.decode(K, value), { message: 'no matching prefix found' });
  });

  it('a key name no provider has: no matching key was found', () => {
    const other = transformers(`  - aescbc:\n      keys:\n      - name: other\n        secret: ${k1}\n`);
    assert.throws(() => other.decode(K, old.encode(K, value)), { message: 'no matching key was found for the provided AES transformer' });
  });

  it('identity first writes plain text and still reads encrypted values (decrypting back)', () => {
    const back = transformers(`  - identity: {}\n  - aescbc:\n      keys:\n      - name: key1\n        secret: ${k1}\n`);
    assert.equal(back.encode(K, value), value);
    assert.deepEqual(back.read(K, old.encode(K, value)), { value, stale: true });
  });

  it('resources: exact, then *.group, then *.*; others are stored as they are and refuse encrypted values', () => {
    const path = join(dir, 'wild.yaml');
    writeFileSync(path, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [events]
  providers: [{identity: {}}]
- resources: ['*.apps']
  providers: [{aesgcm: {keys: [{name: apps, secret: ${key()}}]}}]
- resources: ['*.*']
  providers: [{secretbox: {keys: [{name: all, secret: ${key()}}]}}]
`);
    const t = new KeyTransformers(loadEncryptionConfig(path).overrides);
    assert.equal(t.writePrefix('/registry/core/events/ns/e'), '');
    assert.equal(t.writePrefix('/registry/apps/deployments/ns/d'), 'k8s:enc:aesgcm:v1:apps:');
    assert.equal(t.writePrefix('/registry/core/configmaps/ns/c'), 'k8s:enc:secretbox:v1:all:');
    const none = new KeyTransformers(new Map());
    assert.throws(() => none.decode(K, old.encode(K, value)), { message: 'identity transformer tried to read encrypted data' });
  });
});

describe('the configuration file', () => {
  const fails = (text: string, message: RegExp) => {
    const path = join(dir, `bad${files++}.yaml`);
    writeFileSync(path, text);
    assert.throws(() => loadEncryptionConfig(path), { message });
  };
  const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';

  it("is checked with kube's texts", () => {
    fails(head, /^error while parsing file: resources: Required value: at least one resources is required$/);
    fails(head + 'resources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: c2VjcmV0}]}}]\n',
      /secret: Invalid value: "REDACTED": secret is not of the expected length, got 6, expected one of \[16 24 32\]/);
    fails(head + 'resources:\n- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k, secret: "not base64!"}]}}]\n', /secrets must be base64 encoded/);
    fails(head + 'resources:\n- resources: [Secrets]\n  providers: [{identity: {}}]\n', /resource name should not contain capital letters/);
    fails(head + 'resources:\n- resources: [secrets]\n  providers: [{identity: {}, aescbc: {keys: []}}]\n', /more than one provider specified in a single element/);
    fails(head + 'resources:\n- resources: [secrets]\n  providers: [{aescbc: {key: []}}]\n', /strict decoding error: unknown field "resources\[0\]\.providers\[0\]\.aescbc\.key"/);
    fails(head + "resources:\n- resources: ['*.*']\n  providers: [{identity: {}}]\n- resources: [secrets]\n  providers: [{identity: {}}]\n",
      /^error while building transformers: resource "secrets" is masked by earlier rule "\*\.\*"$/);
    fails('apiVersion: v1\nkind: Pod\n', /no kind "Pod" is registered for version "v1"/);
    fails('', /is empty/);
    fails(head + 'resources:\n- resources: [secrets]\n  providers: [{kms: {name: x, endpoint: "unix:///k.sock", apiVersion: v2}}]\n', /kms providers are not supported by k1s/);
  });

  it('takes the legacy v1 EncryptionConfig too', () => {
    const path = join(dir, 'legacy.yaml');
    writeFileSync(path, `kind: EncryptionConfig\napiVersion: v1\nresources:\n- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k, secret: ${key()}}]}}]\n`);
    assert.equal(loadEncryptionConfig(path).overrides.size, 1);
  });
});

describe('the SQLite store with encryption at rest', () => {
  it('with the writer thread too: the thread stores the ciphertext, watchers get the value', async () => {
    const t = transformers(`  - secretbox:\n      keys:\n      - name: k\n        secret: ${key()}\n`);
    const store = SqliteStore.open({ path: join(dir, 'thread.db'), transformers: t, writer: 'thread' });
    const seen: string[] = [];
    const w = store.watch('/registry/core/secrets/', { afterRevision: 0 }, (ev) => seen.push(`${ev.type} ${ev.kv.value}`));
    const c = await store.create(K, value);
    assert.ok(c.ok);
    const u = await store.update(K, value.replace('Secret', 'Secret '), c.kv.modRevision);
    assert.ok(u.ok);
    const conflict = await store.update(K, value, c.kv.modRevision);
    assert.ok(!conflict.ok && conflict.current!.value === value.replace('Secret', 'Secret '));
    assert.equal((await store.get(K, { revision: c.kv.modRevision }))!.value, value);
    await store.delete(K);
    w.stop();
    assert.deepEqual(seen.map((l) => l.split(' ')[0]), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.equal(seen[2], `DELETED ${value.replace('Secret', 'Secret ')}`);
    await store.close();
    const db = openStoreReadonly(join(dir, 'thread.db'));
    try {
      const rows = db.prepare('SELECT value FROM log WHERE key = ?').pluck().all(K) as Buffer[];
      assert.ok(rows.length === 3 && rows.every((v) => Buffer.isBuffer(v) && v.toString('latin1').startsWith('k8s:enc:secretbox:v1:k:')));
    } finally {
      db.close();
    }
  });

  it('stores ciphertext, serves plain values to get, list and watch, and marks values of an older key stale', async () => {
    const k1 = key();
    const t = transformers(`  - aescbc:\n      keys:\n      - name: key1\n        secret: ${k1}\n  - identity: {}\n`);
    const store = SqliteStore.open({ path: join(dir, 'store.db'), transformers: t, checkpointer: 'inline' });
    const seen: string[] = [];
    const w = store.watch('/registry/core/secrets/', { afterRevision: 0 }, (ev) => seen.push(`${ev.type} ${ev.kv.value}`));
    const c = await store.create(K, value);
    assert.ok(c.ok);
    assert.equal((await store.get(K))!.value, value);
    assert.equal((await store.list('/registry/core/secrets/')).kvs[0]!.value, value);
    assert.equal(await store.stale(K, c.kv.modRevision), false);
    t.set(loadEncryptionConfig(config(`  - aescbc:\n      keys:\n      - name: key2\n        secret: ${key()}\n      - name: key1\n        secret: ${k1}\n`)).overrides);
    assert.equal(await store.stale(K, c.kv.modRevision), true);
    const d = await store.delete(K);
    assert.ok(d.ok && d.kv.value === value);
    w.stop();
    assert.deepEqual(seen, [`ADDED ${value}`, `DELETED ${value}`]);
    await store.close();
    // k1s history reads the log itself: decrypted with the configuration, else it names the key
    const db = openStoreReadonly(join(dir, 'store.db'));
    try {
      assert.deepEqual(readHistory(db, K, (k, v) => t.decode(k, v)).map((r) => r.object), [JSON.parse(value), JSON.parse(value)]);
      assert.deepEqual(readHistory(db, K)[0]!.object, { encrypted: 'k8s:enc:aescbc:v1:key1' });
    } finally {
      db.close();
    }
  });
});

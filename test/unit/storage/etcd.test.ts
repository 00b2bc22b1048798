import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadEncryptionConfig } from '../../../src/apiserver/encryption/config.js';
import { KeyTransformers } from '../../../src/storage/encryption/key-transformers.js';
import { EtcdStore } from '../../../src/storage/etcd/store.js';
import { StoreError, type Store } from '../../../src/storage/types.js';
import { EtcdCluster } from '../../etcd-member.js';
import { mustOk, rejectsWith } from './contract-helpers.js';
import { runStoreContract } from './contract.js';

// Each store gets a root of its own, so that the contract's tests do not see each other's keys.
let seq = 0;
const single: { c?: EtcdCluster } = {};
const triple: { c?: EtcdCluster } = {};
before(async () => {
  [single.c, triple.c] = await Promise.all([EtcdCluster.start(1), EtcdCluster.start(3)]);
});
after(async () => {
  await Promise.all([single.c?.stop(), triple.c?.stop()]);
});

const open = (c: { c?: EtcdCluster }, prefix = `/t${++seq}`) => EtcdStore.open({ endpoints: c.c!.endpoints, prefix, timeoutMs: 5000 });

runStoreContract('etcd', () => open(single), {
  reopen: async (closed) => open(single, (closed as EtcdStore).layout.root.slice(0, -1)),
});
runStoreContract('etcd, 3 members', () => open(triple));

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function withStore(s: Store, fn: (s: Store) => Promise<void>): Promise<void> {
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

describe('EtcdStore', () => {
  it("lays keys out as kube-apiserver does, under --etcd-prefix, and lists them back in k1s' order", async () =>
    withStore(await open(single, '/kube'), async (s) => {
      mustOk(await s.create('/registry/core/pods/default/p1', '{"kind":"Pod"}'));
      mustOk(await s.create('/registry/core/nodes/n1', '{"kind":"Node"}'));
      mustOk(await s.create('/registry/core/services/default/svc', '{"kind":"Service"}'));
      mustOk(await s.create('/registry/core/endpoints/default/svc', '{"kind":"Endpoints"}'));
      mustOk(await s.create('/registry/apps/deployments/default/d1', '{"kind":"Deployment"}'));
      mustOk(await s.create('/registry/stable.example.com/crontabs/default/c1', '{"kind":"CronTab"}'));
      mustOk(await s.create('/elsewhere/x', 'x'));
      const keys = (await single.c!.etcdctl('get', '--prefix', '/kube/', '--keys-only')).split('\n').filter(Boolean);
      assert.deepEqual(keys.sort(), [
        '/kube/_k1s/elsewhere/x',
        '/kube/deployments/default/d1',
        '/kube/minions/n1',
        '/kube/pods/default/p1',
        '/kube/services/endpoints/default/svc',
        '/kube/services/specs/default/svc',
        '/kube/stable.example.com/crontabs/default/c1',
      ]);
      assert.equal((await single.c!.etcdctl('get', '--print-value-only', '/kube/pods/default/p1')).trim(), '{"kind":"Pod"}');
      // a list of everything merges the translations back into k1s' key order
      const all = await s.list('/registry/', { limit: 4 });
      assert.deepEqual(all.kvs.map((kv) => kv.key), [
        '/registry/apps/deployments/default/d1',
        '/registry/core/endpoints/default/svc',
        '/registry/core/nodes/n1',
        '/registry/core/pods/default/p1',
      ]);
      assert.deepEqual([all.more, all.remaining], [true, 2]);
      assert.equal(await s.count('/registry/core/'), 4);
      // a key written by another program under a translated name is not one of k1s'
      await single.c!.etcdctl('put', '/kube/core/pods/x', 'foreign');
      assert.equal(await s.count('/registry/'), 6);
    }));

  it('refuses a compacted revision with its oldest available one (410 Gone upstairs), also after a restart', async () => {
    const prefix = `/cmp${++seq}`;
    await withStore(await open(single, prefix), async (s) => {
      const a = mustOk(await s.create('/registry/core/configmaps/ns/a', '1'));
      const b = mustOk(await s.update(a.key, '2', a.modRevision));
      await s.compact(b.modRevision);
      const e = await rejectsWith(s.get(a.key, { revision: a.modRevision }), 'Compacted');
      assert.equal(e.revision, b.modRevision);
    });
    // etcd does not tell the compacted revision: a new store finds it
    await withStore(await open(single, prefix), async (s) => {
      assert.ok(s.compactedRevision() >= 2);
      await rejectsWith(() => s.watch('/registry/', { afterRevision: s.compactedRevision() - 1 }, () => {}), 'Compacted');
      assert.equal((await s.get('/registry/core/configmaps/ns/a'))?.value, '2');
    });
  });

  it('a watch from before the store opened gets its own etcd watcher, in order, with previous values', async () => {
    const prefix = `/old${++seq}`;
    let first: number;
    await withStore(await open(single, prefix), async (s) => {
      const a = mustOk(await s.create('/w/a', 'a1'));
      first = a.modRevision;
      mustOk(await s.update('/w/a', 'a2', a.modRevision));
    });
    await withStore(await open(single, prefix), async (s) => {
      const got: string[] = [];
      const w = s.watch('/w/', { afterRevision: first! - 1 }, (ev) => got.push(`${ev.type} ${ev.kv.value} ${ev.prev?.value ?? ''}`));
      const cur = (await s.get('/w/a'))!;
      mustOk(await s.delete('/w/a', { expectedRevision: cur.modRevision }));
      await until('3 events', () => got.length >= 3);
      w.stop();
      assert.deepEqual(got, ['ADDED a1 ', 'MODIFIED a2 a1', 'DELETED a2 a2']);
    });
  });

  it('keeps serving, watch included, while one member of three is down', async () => {
    const c = await EtcdCluster.start(3);
    try {
      const s = await EtcdStore.open({ endpoints: c.endpoints, timeoutMs: 5000 });
      await withStore(s, async () => {
        const seen: number[] = [];
        const w = s.watch('/ha/', { afterRevision: s.currentRevision() }, (ev) => seen.push(ev.kv.modRevision));
        const before = mustOk(await s.create('/ha/before', 'x'));
        // the member every call and the watch went to first
        await c.members[0]!.kill();
        const after = [];
        for (let i = 0; i < 5; i++) after.push(mustOk(await s.create(`/ha/after${i}`, 'y')));
        assert.equal((await s.list('/ha/')).kvs.length, 6);
        await until('the watch to resume on another member', () => seen.length >= 6, 15_000);
        assert.deepEqual(seen, [before.modRevision, ...after.map((kv) => kv.modRevision)]);
        w.stop();
      });
    } finally {
      await c.stop();
    }
  });

  it('fails calls promptly while its only member is down, and reconnects (watch too) once it is back', async () => {
    const c = await EtcdCluster.start(1);
    try {
      const s = await EtcdStore.open({ endpoints: c.endpoints, timeoutMs: 1000 });
      await withStore(s, async () => {
        const seen: string[] = [];
        const w = s.watch('/rc/', { afterRevision: s.currentRevision() }, (ev) => seen.push(ev.kv.key));
        mustOk(await s.create('/rc/a', 'x'));
        await c.members[0]!.kill();
        const t0 = Date.now();
        const e = await rejectsWith(s.create('/rc/b', 'x'), 'Unavailable');
        assert.ok(Date.now() - t0 < 3000, `failed after ${Date.now() - t0} ms`);
        assert.match(e.message, /etcd http:\/\/127\.0\.0\.1:\d+/);
        assert.equal(s.currentRevision() > 0, true, 'the revision is still answered');
        c.members[0]!.start();
        await c.members[0]!.healthy();
        await until('a write to succeed again', async () => (await s.create('/rc/c', 'x').catch(() => ({ ok: false }))).ok);
        await until('the watch to deliver the write after the restart', () => seen.includes('/rc/c'), 15_000);
        assert.deepEqual(seen, ['/rc/a', '/rc/c']);
        w.stop();
      });
    } finally {
      await c.stop();
    }
  });
});

describe('EtcdStore over TLS', () => {
  it('talks to https members with a client certificate, and refuses without the CA', async () => {
    const c = await EtcdCluster.start(1, { tls: true });
    try {
      const t = c.members[0]!.tls!;
      const s = await EtcdStore.open({ endpoints: c.endpoints, caFile: t.ca, certFile: t.clientCert, keyFile: t.clientKey, timeoutMs: 5000 });
      await withStore(s, async () => {
        const seen: string[] = [];
        const w = s.watch('/registry/core/secrets/', { afterRevision: s.currentRevision() }, (ev) => seen.push(ev.kv.value));
        mustOk(await s.create('/registry/core/secrets/ns/s', 'tls'));
        await until('the event', () => seen.length === 1);
        w.stop();
        assert.equal((await c.etcdctl('get', '--print-value-only', '/registry/secrets/ns/s')).trim(), 'tls');
      });
      await assert.rejects(EtcdStore.open({ endpoints: c.endpoints, timeoutMs: 1000 }), (e: Error) => e instanceof StoreError && e.code === 'Unavailable');
    } finally {
      await c.stop();
    }
  });
});

describe('EtcdStore with encryption at rest', () => {
  it('stores k8s:enc: bytes in etcd and gives callers the plain values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-etcd-enc-'));
    try {
      const cfg = join(dir, 'enc.yaml');
      const secret = randomBytes(32).toString('base64');
      writeFileSync(cfg, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: key1\n        secret: ${secret}\n`);
      const transformers = new KeyTransformers(loadEncryptionConfig(cfg).overrides);
      const prefix = `/enc${++seq}`;
      const s = await EtcdStore.open({ endpoints: single.c!.endpoints, prefix, transformers });
      await withStore(s, async () => {
        const a = mustOk(await s.create('/registry/core/secrets/ns/s', '{"data":"hunter2"}'));
        mustOk(await s.create('/registry/core/configmaps/ns/c', '{"data":"plain"}'));
        assert.equal((await s.get(a.key))?.value, '{"data":"hunter2"}');
        assert.equal(await s.stale!(a.key, a.modRevision), false);
        const raw = await single.c!.etcdctl('get', '--print-value-only', `${prefix}/secrets/ns/s`);
        assert.ok(raw.startsWith('k8s:enc:aescbc:v1:key1:') && !raw.includes('hunter2'));
        assert.equal((await single.c!.etcdctl('get', '--print-value-only', `${prefix}/configmaps/ns/c`)).trim(), '{"data":"plain"}');
      });
      // without the configuration the value is refused, as kube's identity transformer refuses it
      await withStore(await EtcdStore.open({ endpoints: single.c!.endpoints, prefix }), async (s) => {
        await assert.rejects(s.get('/registry/core/secrets/ns/s'), /encrypted/);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('EtcdStore revision', () => {
  it("follows etcd's revision through progress notifications when others write outside its prefix", async () => {
    const s = await EtcdStore.open({ endpoints: single.c!.endpoints, prefix: `/prog${++seq}`, progressIntervalMs: 100 });
    await withStore(s, async () => {
      const before = s.currentRevision();
      await single.c!.etcdctl('put', '/not-k1s/x', 'y');
      await until('the revision to move', () => s.currentRevision() > before, 5000);
      // a watch from that revision starts there: only later changes of its prefix arrive
      const seen: number[] = [];
      const w = s.watch('/p/', { afterRevision: s.currentRevision() }, (ev) => seen.push(ev.kv.modRevision));
      const a = mustOk(await s.create('/p/a', '1'));
      await until('the event', () => seen.length === 1);
      w.stop();
      assert.deepEqual(seen, [a.modRevision]);
    });
  });
});

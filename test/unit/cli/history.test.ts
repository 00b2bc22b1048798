import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatHistory, lineDiff, readHistory, resolveResource } from '../../../src/cli/history.js';
import { openStoreReadonly } from '../../../src/cli/snapshot.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

const cm = (data: Record<string, string>, managers: { manager: string; time: string }[]) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'shop', managedFields: managers.map((m) => ({ ...m, operation: 'Update', apiVersion: 'v1' })) },
    data,
  });

test('history reads every revision of a live store, across delete and re-create, with diffs and managers', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-history-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.db');
  const store = SqliteStore.open({ path, writer: 'thread', durability: 'normal' });
  t.after(() => store.close());
  const key = '/registry/core/configmaps/shop/cfg';
  const c1 = await store.create(key, cm({ a: '1' }, [{ manager: 'kubectl-create', time: 't1' }]));
  assert.ok(c1.ok);
  await store.create('/registry/core/configmaps/shop/other', '{}');
  const u1 = await store.update(key, cm({ a: '2', b: '3' }, [{ manager: 'kubectl-create', time: 't1' }, { manager: 'kubectl-patch', time: 't2' }]), c1.kv.modRevision);
  assert.ok(u1.ok);
  const d = await store.delete(key);
  assert.ok(d.ok);
  await store.create(key, cm({ c: '4' }, [{ manager: 'helm', time: 't3' }]));

  // read while the store is open (another connection, as `k1s history` from another process)
  const db = openStoreReadonly(path);
  t.after(() => db.close());
  const ref = resolveResource('cm', db)!;
  assert.deepEqual(ref, { prefix: '/registry/core/configmaps/', namespaced: true, kind: 'ConfigMap' });
  const revs = readHistory(db, `${ref.prefix}shop/cfg`);
  assert.deepEqual(revs.map((r) => r.type), ['ADDED', 'MODIFIED', 'DELETED', 'ADDED']);
  assert.deepEqual(revs.map((r) => r.revision), [c1.kv.modRevision, c1.kv.modRevision + 2, c1.kv.modRevision + 3, c1.kv.modRevision + 4]);
  const text = formatHistory(revs);
  assert.match(text, new RegExp(`=== revision ${c1.kv.modRevision} ADDED by kubectl-create \\(Update\\)\\n  apiVersion: v1`));
  // only the manager that acted is named, and the diff shows the data change (managedFields hidden)
  assert.match(text, /=== revision \d+ MODIFIED by kubectl-patch \(Update\)\n/);
  assert.match(text, /-   a: "1"\n\+   a: "2"\n\+   b: "3"/);
  assert.doesNotMatch(text, /managedFields/);
  assert.match(text, /=== revision \d+ DELETED\n=== revision \d+ ADDED by helm \(Update\)\n(  .*\n)*  data:\n    c: "4"/);
  assert.match(formatHistory(revs, { managedFields: true }), /managedFields/);
});

test('resource words resolve like kubectl: plural, singular, kind, short name, group-qualified, stored-as', () => {
  assert.equal(resolveResource('deployments')?.prefix, '/registry/apps/deployments/');
  assert.equal(resolveResource('Deployment')?.prefix, '/registry/apps/deployments/');
  assert.equal(resolveResource('deploy.apps')?.prefix, '/registry/apps/deployments/');
  assert.equal(resolveResource('deploy.batch'), undefined);
  assert.deepEqual(resolveResource('no'), { prefix: '/registry/core/nodes/', namespaced: false, kind: 'Node' });
  assert.equal(resolveResource('events.events.k8s.io')?.prefix, '/registry/core/events/');
  assert.equal(resolveResource('nosuchthing'), undefined);
});

test('lineDiff keeps context and marks skipped lines', () => {
  const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  const b = ['1', '2', '3', '4', 'five', '6', '7', '8', '9'];
  assert.deepEqual(lineDiff(a, b, 1), ['  ...', '  4', '- 5', '+ five', '  6', '  ...']);
  assert.deepEqual(lineDiff(a, a), []);
});

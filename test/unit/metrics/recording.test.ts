// Recording at the edges: a work queue's adds, depth, latencies and retries as client-go counts them, and the
// storage layer's operation and type labels over a real SQLite store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Metrics } from '../../../src/metrics/metrics.js';
import { WorkQueue } from '../../../src/client/workqueue.js';
import { instrumentStore, keyType } from '../../../src/storage/instrumented.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import { parsePrometheusText, sampleValue } from '../../prometheus-text.js';

const scrape = async (m: Metrics) => parsePrometheusText((await m.render(undefined)).body);

describe('work queue metrics', () => {
  it('counts adds once per pending key, depth, latencies and retries', async () => {
    const m = new Metrics({ version: {}, processMetrics: false });
    let fail = true;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(async (key) => {
      if (key === 'slow') await gate;
      if (key === 'bad' && fail) {
        fail = false;
        throw new Error('once');
      }
    }, { baseDelayMs: 1, workers: 1 });
    q.useMetrics(m.workqueue.queue('deployment'));
    q.add('slow');
    q.add('a');
    q.add('a'); // merged with the queued one
    q.add('slow'); // while processing: counted once, runs again afterwards
    q.add('slow');
    let f = await scrape(m);
    assert.equal(sampleValue(f, 'workqueue_adds_total', { name: 'deployment' }), 3);
    assert.equal(sampleValue(f, 'workqueue_depth', { name: 'deployment' }), 2);
    assert.ok(sampleValue(f, 'workqueue_longest_running_processor_seconds', { name: 'deployment' })! >= 0);
    release();
    q.add('bad');
    await new Promise((r) => setTimeout(r, 50));
    f = await scrape(m);
    assert.equal(sampleValue(f, 'workqueue_depth', { name: 'deployment' }), 0);
    assert.equal(sampleValue(f, 'workqueue_retries_total', { name: 'deployment' }), 1);
    // slow twice, a, bad twice
    assert.equal(sampleValue(f, 'workqueue_work_duration_seconds', { name: 'deployment' }), 5);
    assert.equal(sampleValue(f, 'workqueue_queue_duration_seconds', { name: 'deployment' }), 5);
    assert.equal(sampleValue(f, 'workqueue_unfinished_work_seconds', { name: 'deployment' }), 0);
    q.stop();
  });
});

describe('storage metrics', () => {
  it('names the type after the group-resource of the key', () => {
    assert.equal(keyType('/registry/core/pods/default/web'), 'pods');
    assert.equal(keyType('/registry/apps/deployments/default/web'), 'deployments.apps');
    assert.equal(keyType('/registry/core/namespaces/'), 'namespaces');
    assert.equal(keyType('/registry/rbac.authorization.k8s.io/clusterroles/admin'), 'clusterroles.rbac.authorization.k8s.io');
  });

  it('times each request of a real store by operation and type', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-metrics-store-'));
    const raw = SqliteStore.open({ path: join(dir, 'state.db') });
    try {
      const m = new Metrics({ version: {}, processMetrics: false });
      const store = instrumentStore(raw, m.storage);
      const created = await store.create('/registry/apps/deployments/default/web', '{}');
      assert.ok(created.ok);
      await store.get('/registry/apps/deployments/default/web');
      await store.list('/registry/apps/deployments/');
      await store.update('/registry/apps/deployments/default/web', '{"a":1}', created.kv.modRevision);
      const f = await scrape(m);
      for (const op of ['create', 'get', 'list', 'update']) assert.equal(sampleValue(f, 'etcd_request_duration_seconds', { operation: op, type: 'deployments.apps' }), 1, op);
      assert.equal(sampleValue(f, 'etcd_requests_total', { operation: 'create', type: 'deployments.apps' }), 1);
      // the store's optional methods stay: without stale() an unchanged update would never re-encrypt a value
      for (const name of ['revision', 'watched', 'stale'] as const) assert.equal(typeof store[name], typeof raw[name], name);
      assert.equal(await store.stale!('/registry/apps/deployments/default/web', created.kv.modRevision + 1), false);
    } finally {
      await raw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

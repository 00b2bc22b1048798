import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Informer } from '../../../../src/client/informer.js';
import { Reconciler, type ControllerContext } from '../../../../src/client/controller.js';
import { ControllerManager } from '../../../../src/controllers/framework/manager.js';
import { controllerCluster, waitFor } from '../harness.js';
import type { KObject } from '../../../../src/api/types.js';

const cm = (name: string, data: Record<string, string> = {}): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data }) as KObject;

class CopyController extends Reconciler {
  readonly name = 'copy';
  seen: string[] = [];
  constructor(ctx: ControllerContext) {
    super(ctx);
  }
  setup(): void {
    this.watchOwn(this.informer('v1', 'configmaps'));
  }
  async reconcile(key: string): Promise<void> {
    this.seen.push(key);
  }
}

describe('informers and the controller manager', () => {
  it('an informer lists, follows adds, updates and deletes, and keeps indexes current', async () => {
    const c = await controllerCluster([]);
    try {
      const rc = c.client.resource('v1', 'configmaps');
      await rc.create('default', cm('a'));
      const inf = new Informer(c.client, 'v1', 'configmaps');
      inf.addIndex('color', (o) => [((o as { data?: Record<string, string> }).data ?? {}).color ?? '']);
      const events: string[] = [];
      inf.addHandler({ add: (o) => events.push(`add ${o.metadata.name}`), update: (_, o) => events.push(`update ${o.metadata.name}`), delete: (o) => events.push(`delete ${o.metadata.name}`) });
      await inf.start();
      assert.ok(inf.hasSynced());
      assert.ok(inf.get('default', 'a'));
      await rc.create('default', cm('b', { color: 'red' }));
      await rc.patch('default', 'a', 'merge', { data: { color: 'red' } });
      await rc.delete('default', 'b');
      await waitFor('delete event', () => events.includes('delete b'));
      assert.deepEqual(events, ['add a', 'add b', 'update a', 'delete b']);
      assert.deepEqual(inf.byIndex('color', 'red').map((o) => o.metadata.name), ['a']);
      assert.equal(inf.list('default').filter((o) => o.kind === 'ConfigMap').length, inf.list('default').length);
      inf.stop();
    } finally {
      await c.close();
    }
  });

  it('controllers run once informers have synced and see every key', async () => {
    let ctl: CopyController | undefined;
    const c = await controllerCluster([(ctx) => (ctl = new CopyController(ctx))]);
    try {
      await c.client.resource('v1', 'configmaps').create('default', cm('x'));
      await waitFor('reconcile of default/x', () => ctl!.seen.includes('default/x'));
    } finally {
      await c.close();
    }
  });

  it('only one of two managers leads; the other takes over when the leader stops', async () => {
    const c = await controllerCluster([]);
    try {
      let running = { a: 0, b: 0 };
      const mk = (id: 'a' | 'b') =>
        new ControllerManager({
          client: c.client,
          identity: id,
          log: () => {},
          controllers: [
            () => ({ name: 'n', setup() {}, run() { running[id]++; }, stop() { running[id]--; } }),
          ],
        });
      const a = mk('a');
      await a.start();
      await waitFor('a leads', () => running.a === 1);
      const b = mk('b');
      await b.start();
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(running, { a: 1, b: 0 });
      const lease = (await c.client.resource('coordination.k8s.io/v1', 'leases').get('kube-system', 'kube-controller-manager')) as KObject & { spec: { holderIdentity: string } };
      assert.equal(lease.spec.holderIdentity, 'a');
      await a.stop();
      assert.equal(running.a, 0);
      await waitFor('b takes over', () => running.b === 1, 5000);
      await b.stop();
      running = { a: 0, b: 0 };
    } finally {
      await c.close();
    }
  });
});

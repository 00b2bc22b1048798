import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { IndexedCache } from '../../../src/client/indexed-cache.js';

class Cache extends IndexedCache {
  put(obj: KObject): void {
    this.store(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  }
  remove(obj: KObject): void {
    this.drop(`${obj.metadata.namespace}/${obj.metadata.name}`);
  }
}

const pod = (name: string, node: string, labels: string[] = [], phase = 'Pending'): KObject =>
  ({ metadata: { name, namespace: 'd', labels: Object.fromEntries(labels.map((l) => [l, 'x'])) }, spec: { nodeName: node }, status: { phase } }) as unknown as KObject;

describe('IndexedCache', () => {
  it('keeps its indexes exact through updates that keep, move, add and drop index values, against a rebuilt index', () => {
    const c = new Cache();
    const byNode = (o: KObject) => {
      const n = (o as { spec?: { nodeName?: string } }).spec?.nodeName;
      return n ? [n] : [];
    };
    const byLabel = (o: KObject) => Object.keys(o.metadata.labels ?? {});
    c.addIndex('node', byNode);
    c.addIndex('label', byLabel);
    let seed = 3;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const live = new Map<string, KObject>();
    for (let i = 0; i < 3000; i++) {
      const name = `p${rnd(40)}`;
      if (rnd(6) === 0) {
        if (live.has(name)) c.remove(live.get(name)!);
        live.delete(name);
        continue;
      }
      // mostly status-only changes (index values kept), sometimes a new node or labels
      const before = live.get(name);
      const node = before && rnd(4) ? (before as unknown as { spec: { nodeName: string } }).spec.nodeName : ['', 'n1', 'n2'][rnd(3)]!;
      const labels = before && rnd(4) ? Object.keys(before.metadata.labels ?? {}) : ['a', 'b', 'c'].filter(() => rnd(2) === 0);
      const p = pod(name, node, labels, ['Pending', 'Running'][rnd(2)]);
      c.put(p);
      live.set(name, p);
    }
    const names = (objs: KObject[]) => objs.map((o) => o.metadata.name).sort();
    const want = (fn: (o: KObject) => string[], v: string) => [...live.values()].filter((o) => fn(o).includes(v)).map((o) => o.metadata.name).sort();
    for (const v of ['n1', 'n2', '']) assert.deepEqual(names(c.byIndex('node', v)), want(byNode, v), `node ${v}`);
    for (const v of ['a', 'b', 'c']) assert.deepEqual(names(c.byIndex('label', v)), want(byLabel, v), `label ${v}`);
    // the objects the index gives are the latest ones
    for (const o of c.byIndex('node', 'n1')) assert.equal(o, live.get(o.metadata.name!));
  });
});

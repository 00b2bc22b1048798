import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import {
  interPodAffinityFilter,
  interPodAffinityScores,
  REASON_AFFINITY,
  REASON_ANTI_AFFINITY,
  REASON_EXISTING_ANTI_AFFINITY,
} from '../../../src/scheduler/plugins/inter-pod-affinity.js';
import { findPlacement } from '../../../src/scheduler/scheduler.js';
import { feasible, HOST, labelled, place, ZONE, zonedCluster } from './topology-spread-fixtures.js';

const term = (labels: Record<string, string>, topologyKey = HOST, extra: Record<string, unknown> = {}) => ({
  labelSelector: { matchExpressions: Object.entries(labels).map(([key, v]) => ({ key, operator: 'In', values: [v] })) },
  topologyKey,
  ...extra,
});
const required = (kind: 'podAffinity' | 'podAntiAffinity', ...terms: unknown[]) => ({ [kind]: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const preferred = (kind: 'podAffinity' | 'podAntiAffinity', ...terms: [number, unknown][]) => ({
  [kind]: { preferredDuringSchedulingIgnoredDuringExecution: terms.map(([weight, podAffinityTerm]) => ({ weight, podAffinityTerm })) },
});
const withAffinity = (name: string, labels: Record<string, string>, affinity: Record<string, unknown>, namespace?: string) =>
  labelled(name, labels, { namespace, spec: { affinity } });

// the "always co-located in the same node" example: a redis cache and a web store, three replicas each
const redis = (i: number) => withAffinity(`redis-cache-${i}`, { app: 'store' }, required('podAntiAffinity', term({ app: 'store' })));
const web = (i: number) =>
  withAffinity(`web-store-${i}`, { app: 'web-store' }, { ...required('podAntiAffinity', term({ app: 'web-store' })), ...required('podAffinity', term({ app: 'store' })) });

function schedule(cache: ReturnType<typeof zonedCluster>, p: KObject): string | undefined {
  const r = findPlacement(podInfo(p), cache.nodes(), { random: () => 0 });
  if (r.host) place(cache, p, r.host.name);
  return r.host?.name;
}

describe('InterPodAffinity filter (kubernetes.io web-store / redis-cache example)', () => {
  it('places one cache and one web server per node; the fourth replicas stay out', () => {
    const cache = zonedCluster({ node1: 'z', node2: 'z', node3: 'z' });
    // a web server before any cache: its affinity matches nothing and not itself
    const early = feasible(cache, web(0));
    assert.deepEqual(early.fits, []);
    assert.deepEqual(early.statuses.node1, { plugin: 'InterPodAffinity', code: 'UnschedulableAndUnresolvable', reasons: [REASON_AFFINITY] });
    assert.equal(REASON_AFFINITY, "node(s) didn't match pod affinity rules");

    const caches = [1, 2, 3].map((i) => schedule(cache, redis(i)));
    assert.deepEqual([...caches].sort(), ['node1', 'node2', 'node3']);
    const webs = [1, 2, 3].map((i) => schedule(cache, web(i)));
    assert.deepEqual([...webs].sort(), ['node1', 'node2', 'node3']);
    for (const ni of cache.nodes()) {
      assert.deepEqual([...ni.pods.values()].map((e) => e.pod.metadata.labels!.app).sort(), ['store', 'web-store']);
    }
    const extraCache = feasible(cache, redis(4));
    assert.deepEqual(extraCache.statuses.node1, { plugin: 'InterPodAffinity', code: 'Unschedulable', reasons: [REASON_ANTI_AFFINITY] });
    assert.equal(REASON_ANTI_AFFINITY, "node(s) didn't match pod anti-affinity rules");
    assert.equal(feasible(cache, web(4)).statuses.node2.reasons[0], REASON_ANTI_AFFINITY);
  });

  it('existing pods\' anti-affinity keeps matching pods out of their zone (symmetry)', () => {
    const cache = zonedCluster({ a1: 'zoneA', a2: 'zoneA', b1: 'zoneB' });
    place(cache, withAffinity('guard', { app: 'guard' }, required('podAntiAffinity', term({ app: 'web' }, ZONE))), 'a1');
    const { fits, statuses } = feasible(cache, labelled('w', { app: 'web' }));
    assert.deepEqual(fits, ['b1']);
    assert.deepEqual(statuses.a2, { plugin: 'InterPodAffinity', code: 'Unschedulable', reasons: [REASON_EXISTING_ANTI_AFFINITY] });
    assert.equal(REASON_EXISTING_ANTI_AFFINITY, "node(s) didn't satisfy existing pods anti-affinity rules");
    // another namespace is not selected by the guard's term (its own namespace by default)
    assert.deepEqual(feasible(cache, labelled('w2', { app: 'web' }, { namespace: 'other' })).fits, ['a1', 'a2', 'b1']);
  });

  it('the first pod of a self-affine group may go to any node carrying the topology key', () => {
    const cache = zonedCluster({ a1: 'zoneA', b1: 'zoneB', bare: undefined });
    const first = withAffinity('g1', { group: 'g' }, required('podAffinity', term({ group: 'g' }, ZONE)));
    assert.deepEqual(feasible(cache, first).fits, ['a1', 'b1']);
    place(cache, first, 'b1');
    assert.deepEqual(feasible(cache, withAffinity('g2', { group: 'g' }, required('podAffinity', term({ group: 'g' }, ZONE)))).fits, ['b1']);
  });

  it('namespaces and namespaceSelector choose where matching pods are looked for', () => {
    const cache = zonedCluster({ a1: 'zoneA', b1: 'zoneB' });
    place(cache, labelled('db', { app: 'db' }, { namespace: 'data' }), 'a1');
    const near = (extra: Record<string, unknown>) => withAffinity('app', { app: 'api' }, required('podAffinity', term({ app: 'db' }, ZONE, extra)));
    assert.deepEqual(feasible(cache, near({})).fits, []);
    assert.deepEqual(feasible(cache, near({ namespaces: ['data'] })).fits, ['a1']);
    assert.deepEqual(feasible(cache, near({ namespaceSelector: {} })).fits, ['a1']);
    // without a namespace lister only the automatic name label is known
    assert.deepEqual(feasible(cache, near({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'data' } } })).fits, ['a1']);
    assert.deepEqual(feasible(cache, near({ namespaceSelector: { matchLabels: { team: 'storage' } } })).fits, []);
    cache.lookups = { namespaceLabels: (ns): Record<string, string> => (ns === 'data' ? { team: 'storage' } : {}) };
    assert.deepEqual(feasible(cache, near({ namespaceSelector: { matchLabels: { team: 'storage' } } })).fits, ['a1']);
  });

  it('preemption copies of a node see the removed pods gone', () => {
    const cache = zonedCluster({ a1: 'zoneA' });
    place(cache, labelled('old', { app: 'x' }), 'a1');
    const info = podInfo(withAffinity('new', { app: 'y' }, required('podAntiAffinity', term({ app: 'x' }))));
    const a1 = cache.nodeInfo('a1')!;
    assert.equal(interPodAffinityFilter(info, a1)?.reasons[0], REASON_ANTI_AFFINITY);
    assert.equal(interPodAffinityFilter(info, a1.without(() => true)), undefined);
  });
});

describe('InterPodAffinity score', () => {
  it('weighs preferred terms per topology domain and normalises to 0–100', () => {
    const cache = zonedCluster({ a1: 'zoneA', a2: 'zoneA', b1: 'zoneB', c1: 'zoneC' });
    place(cache, labelled('cache', { app: 'cache' }), 'a1');
    place(cache, labelled('noisy', { app: 'noisy' }), 'b1');
    const p = withAffinity('p', { app: 'api' }, { ...preferred('podAffinity', [80, term({ app: 'cache' }, ZONE)]), ...preferred('podAntiAffinity', [40, term({ app: 'noisy' }, ZONE)]) });
    // raw: zoneA +80, zoneB −40, zoneC 0 → (s + 40) × 100 / 120
    assert.deepEqual(interPodAffinityScores(podInfo(p), cache.nodes()), [100, 100, 0, 33]);
    // nothing preferred and no placed pod with terms: the plugin abstains
    assert.equal(interPodAffinityScores(podInfo(labelled('plain', { app: 'api' })), cache.nodes()), undefined);
  });

  it('placed pods\' terms attract or repel the incoming pod (hard affinity weight 1)', () => {
    const cache = zonedCluster({ a1: 'zoneA', b1: 'zoneB', c1: 'zoneC' });
    place(cache, withAffinity('wants-api', { app: 'x' }, required('podAffinity', term({ app: 'api' }, ZONE))), 'a1');
    place(cache, withAffinity('hates-api', { app: 'y' }, preferred('podAntiAffinity', [5, term({ app: 'api' }, ZONE)])), 'b1');
    // raw 1, −5, 0 → (s + 5) × 100 / 6
    assert.deepEqual(interPodAffinityScores(podInfo(labelled('api', { app: 'api' })), cache.nodes()), [100, 0, 83]);
    assert.equal(findPlacement(podInfo(labelled('api', { app: 'api' })), cache.nodes()).host?.name, 'a1');
  });
});

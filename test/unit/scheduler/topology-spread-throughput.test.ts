import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { findPlacement } from '../../../src/scheduler/scheduler.js';
import { HOST, labelled, ZONE, zonedCluster } from './topology-spread-fixtures.js';

describe('PodTopologySpread and InterPodAffinity throughput', () => {
  it('places 5,000 spread and anti-affine replicas on 100 nodes, constraints held', () => {
    const zones: Record<string, string> = {};
    for (let i = 0; i < 100; i++) zones[`n${i}`] = `zone${i % 4}`;
    const cache = zonedCluster(zones);
    let start = 0;
    for (let i = 0; i < 5000; i++) {
      const app = `app${i % 10}`;
      const p = labelled(`p${i}`, { app }, {
        spec: {
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } },
            { maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app } } },
          ],
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { topologyKey: HOST, labelSelector: { matchLabels: { app } } } }] } },
        },
      });
      const r = findPlacement(podInfo(p), cache.nodes(), { start });
      start = r.nextStart;
      assert.ok(r.host, `p${i} placed`);
      cache.assume(p, r.host.name);
    }
    // every app is spread 125 per zone and 5 per node
    for (let a = 0; a < 10; a++) {
      const perZone = new Map<string, number>();
      for (const ni of cache.nodes()) {
        const n = [...ni.pods.values()].filter((e) => e.pod.metadata.labels!.app === `app${a}`).length;
        assert.equal(n, 5, `app${a} on ${ni.name}`);
        perZone.set(zones[ni.name], (perZone.get(zones[ni.name]) ?? 0) + n);
      }
      assert.deepEqual([...perZone.values()], [125, 125, 125, 125]);
    }
  });
});

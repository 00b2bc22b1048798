// A pod create normalises its encoding (normalizePodEncoding) in defaults() and again after admission, but not
// after prepareForCreate: these cases check that prepareForCreate leaves nothing that a normalisation pass there
// would still change, so that validation sees what it saw with that pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareNewPod } from '../../../../../src/api/core/pod/admission.js';
import { normalizePodEncoding } from '../../../../../src/api/core/pod/encoding.js';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import { pod, strategy } from './helpers.js';

const c = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: 'busybox:1.36', ...extra });

/** Pods that exercise everything prepareNewPod adds or drops. */
const cases: Pod[] = [
  pod({ containers: [c('a')] }),
  // image volumes are dropped (ImageVolume is off): alone, the list becomes empty
  pod({ containers: [c('a')], volumes: [{ name: 'i', image: { reference: 'x' } }] }),
  pod({ containers: [c('a')], volumes: [{ name: 'i', image: { reference: 'x' } }, { name: 'e', emptyDir: {} }] }),
  pod({ containers: [c('a')], volumes: [{ name: 'p', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'p' } }, { configMap: { name: 'c' } }] } }] }),
  pod({ containers: [c('a')], volumes: [{ name: 'p', projected: { sources: [{ clusterTrustBundle: { signerName: 's', path: 'p' } }] } }] }),
  // scheduling gates: a PodScheduled condition with a null lastProbeTime
  pod({ containers: [c('a')], schedulingGates: [{ name: 'g' }] }),
  // matchLabelKeys and mismatchLabelKeys become selector terms, with an empty label value too
  pod(
    {
      containers: [c('a')],
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k', labelSelector: {}, matchLabelKeys: ['app', 'none'], mismatchLabelKeys: ['empty'] }] },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'k', labelSelector: { matchLabels: { a: 'b' } }, matchLabelKeys: ['app'] } }] },
      },
    },
    { labels: { app: 'x', empty: '' } },
  ),
  // tolerations that already cover one key, a system priority class, a mirror pod, hostNetwork
  pod({ containers: [c('a')], tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }, { operator: 'Exists' }] }),
  pod({ containers: [c('a')], priorityClassName: 'system-node-critical', hostNetwork: true, serviceAccount: 'sa' }),
  pod({ containers: [c('a')] }, { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
  // fields of features that are off: pod-level resources, resource claims, stop signals, observedGeneration
  pod({
    containers: [c('a', { resources: { claims: [{ name: 'r' }], requests: { cpu: '1' } }, lifecycle: { stopSignal: 'SIGTERM' } }), c('b', { lifecycle: { stopSignal: 'SIGKILL', preStop: { exec: { command: ['x'] } } } })],
    initContainers: [c('i', { resources: { claims: [{ name: 'r' }] }, restartPolicy: 'Always' })],
    resourceClaims: [{ name: 'r', resourceClaimName: 'rc' }],
    resources: { limits: { cpu: '2' } },
  }),
  { ...pod({ containers: [c('a')] }), status: { observedGeneration: 3, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }], resourceClaimStatuses: [] } } as Pod,
  // zero values and nulls the decode pass drops, next to what prepareNewPod touches
  pod({ containers: [c('a', { ports: [{ containerPort: 80, hostPort: 0, name: '' }], env: [{ name: 'E', value: '' }], resources: { requests: { cpu: '100m', memory: '1Gi' }, limits: { cpu: '100m', memory: '1Gi' } } })], volumes: [], tolerations: [], nodeSelector: {}, affinity: null, hostname: '' }),
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' } } as Pod,
];

describe('pod create: no second normalisation after prepareForCreate', () => {
  it('prepareForCreate leaves the pod as normalising it once more would (same text, same validation)', () => {
    for (const p of cases) {
      const now = structuredClone(p);
      strategy.defaults(now);
      strategy.prepareForCreate(now);
      const before = structuredClone(p);
      strategy.defaults(before);
      prepareNewPod(before, '2026-01-01T00:00:00Z');
      normalizePodEncoding(before);
      // the gated condition's time is the clock's
      for (const cond of [...(now.status?.conditions ?? []), ...(before.status?.conditions ?? [])]) cond.lastTransitionTime = 'now';
      assert.equal(JSON.stringify(now), JSON.stringify(before), JSON.stringify(p));
      assert.deepEqual(strategy.validate(now), strategy.validate(before));
      // and normalising it again would change nothing
      const again = structuredClone(now);
      normalizePodEncoding(again);
      assert.equal(JSON.stringify(again), JSON.stringify(now));
    }
  });
});

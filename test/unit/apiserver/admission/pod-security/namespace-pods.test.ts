// The existing-pods warnings of a raised enforce level: grouping, order, and the pod count and time limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../../src/api/types.js';
import { Evaluator } from '../../../../../src/apiserver/admission/pod-security/evaluator.js';
import { LATEST } from '../../../../../src/apiserver/admission/pod-security/levels.js';
import { checkNamespacePods } from '../../../../../src/apiserver/admission/pod-security/namespace-pods.js';

const pod = (name: string, spec: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } }) as KObject;

const base = { namespace: 'ns', enforce: { level: 'baseline' as const, version: LATEST }, evaluator: new Evaluator(), exemptRuntimeClasses: new Set(['kata']) };

describe('existing pods against a new enforce level', () => {
  it('groups pods by their reasons under the lexically first name, lines sorted', async () => {
    const pods = [pod('z', { hostPID: true }), pod('m', { hostPID: true }), pod('q', { hostPID: true }), pod('b', { hostNetwork: true, volumes: [{ name: 'v', hostPath: { path: '/' } }] }), pod('ok')];
    assert.deepEqual(await checkNamespacePods({ ...base, list: async () => pods }), [
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      'b: host namespaces, hostPath volumes',
      'm (and 2 other pods): host namespaces',
    ]);
  });

  it('skips exempt runtime classes and says nothing when all pods pass', async () => {
    assert.deepEqual(await checkNamespacePods({ ...base, list: async () => [pod('k', { hostPID: true, runtimeClassName: 'kata' }), pod('ok')] }), []);
  });

  it('checks at most the first pods, and says so', async () => {
    const pods = [pod('a', { hostIPC: true }), pod('b', { hostIPC: true }), pod('c', { hostIPC: true })];
    assert.deepEqual(await checkNamespacePods({ ...base, maxPods: 2, list: async () => pods }), [
      'new PodSecurity enforce level only checked against the first 2 of 3 existing pods',
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      'a (and 1 other pod): host namespaces',
    ]);
    const timed = await checkNamespacePods({ ...base, timeoutMs: -1, list: async () => pods });
    assert.equal(timed[0], 'new PodSecurity enforce level only checked against the first 1 of 3 existing pods');
  });

  it('reports a failed list', async () => {
    assert.deepEqual(await checkNamespacePods({ ...base, list: async () => Promise.reject(new Error('x')) }), ['failed to list pods while checking new PodSecurity enforce level']);
  });
});

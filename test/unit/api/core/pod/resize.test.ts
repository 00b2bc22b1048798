import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import { validatePodResize } from '../../../../../src/api/core/pod/subresources.js';
import { defaultPod } from '../../../../../src/api/core/pod/defaults.js';
import { cluster, createPod, rejection, type Cluster } from './subresource-helpers.js';

const sub = { subresource: 'resize' };
const burstable = { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } };
const resources = (r: Record<string, unknown>, name = 'c') => ({ spec: { containers: [{ name, resources: r }] } });

describe('pods/resize', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());

  it('changes cpu and memory of a container in place, canonicalised, bumping the generation', async () => {
    const created = await createPod(c, 'r', { spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: burstable }] } });
    assert.equal(created.status?.qosClass, 'Burstable');
    const pod = (await c.pods.patch('default', 'r', 'strategic', resources({ requests: { cpu: '0.3' }, limits: { cpu: '1000m', memory: '256Mi' } }), sub)) as Pod;
    assert.deepEqual(pod.spec?.containers?.[0].resources, { limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '300m', memory: '64Mi' } });
    assert.equal(pod.metadata.generation, (created.metadata.generation ?? 1) + 1);
    assert.equal((await c.client.resource('v1', 'pods').get('default', 'r')).kind, 'Pod');
  });

  it('ignores everything but resources (and keeps metadata)', async () => {
    const cur = (await c.pods.get('default', 'r')) as Pod;
    const body = structuredClone(cur);
    body.metadata.labels = { x: 'y' };
    body.spec!.containers![0].image = 'nginx:1.28';
    body.spec!.containers![0].resources!.requests!.cpu = '400m';
    const out = (await c.pods.update('default', body, sub)) as Pod;
    assert.equal(out.metadata.labels, undefined);
    assert.equal(out.spec?.containers?.[0].image, 'nginx:1.27');
    assert.equal(out.spec?.containers?.[0].resources?.requests?.cpu, '400m');
  });

  it('keeps the QoS class', async () => {
    const e = await rejection(c.pods.patch('default', 'r', 'strategic', resources({ requests: { cpu: '1', memory: '256Mi' } }), sub));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'Pod "r" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing');
  });

  it('refuses removing requests or limits and shrinking or adding memory limits under NotRequired', async () => {
    await createPod(c, 'nolimit', { spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '1Mi' } } }] } });
    let e = await rejection(c.pods.patch('default', 'nolimit', 'json', [{ op: 'remove', path: '/spec/containers/0/resources/requests/memory' }], sub));
    assert.equal(e.message, 'Pod "nolimit" is invalid: spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed');
    // (a removed request with a limit left is defaulted back from the limit, as on decode in kube)
    e = await rejection(c.pods.patch('default', 'r', 'json', [{ op: 'remove', path: '/spec/containers/0/resources/limits/memory' }], sub));
    assert.equal(e.message, 'Pod "r" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed');
    e = await rejection(c.pods.patch('default', 'r', 'strategic', resources({ limits: { memory: '100Mi' } }), sub));
    assert.equal(e.message, 'Pod "r" is invalid: spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer');
    e = await rejection(c.pods.patch('default', 'nolimit', 'strategic', resources({ limits: { memory: '1Gi' } }), sub));
    assert.equal(e.message, 'Pod "nolimit" is invalid: spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be added unless resizePolicy is RestartContainer');
  });

  it('lets memory limits shrink under RestartContainer', async () => {
    const policy = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
    await createPod(c, 'restart', { spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: burstable, resizePolicy: policy }] } });
    const pod = (await c.pods.patch('default', 'restart', 'strategic', resources({ limits: { memory: '100Mi' } }), sub)) as Pod;
    assert.equal(pod.spec?.containers?.[0].resources?.limits?.memory, '100Mi');
  });

  it('only lets cpu and memory change', async () => {
    const e = await rejection(c.pods.patch('default', 'r', 'strategic', resources({ requests: { 'ephemeral-storage': '1Gi' } }), sub));
    assert.equal(e.message, 'Pod "r" is invalid: spec: Forbidden: only cpu and memory resources are mutable');
  });

  it('keeps init containers that are not sidecars, resizes sidecars', async () => {
    const init = (name: string, restartPolicy?: string) => ({ name, image: 'busybox:1.36', restartPolicy, resources: { requests: { cpu: '100m' } } });
    await createPod(c, 'inits', { spec: { initContainers: [init('setup'), init('side', 'Always')], containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } }] } });
    const e = await rejection(c.pods.patch('default', 'inits', 'strategic', { spec: { initContainers: [{ name: 'setup', resources: { requests: { cpu: '200m' } } }] } }, sub));
    assert.equal(e.message, 'Pod "inits" is invalid: spec: Forbidden: resources for non-sidecar init containers are immutable');
    const pod = (await c.pods.patch('default', 'inits', 'strategic', { spec: { initContainers: [{ name: 'side', resources: { requests: { cpu: '300m' } } }] } }, sub)) as Pod;
    assert.equal(pod.spec?.initContainers?.[1].resources?.requests?.cpu, '300m');
  });

  it('refuses pods whose running containers report no resources, static and pod-level-resource pods', () => {
    const base = { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }] } } as Pod;
    defaultPod(base);
    const running = { ...structuredClone(base), status: { qosClass: 'Burstable', containerStatuses: [{ name: 'c', state: { running: {} } }] } } as Pod;
    const next = structuredClone(running);
    next.spec!.containers![0].resources!.requests!.cpu = '2';
    assert.deepEqual(validatePodResize(next, running).map(String), ['spec: Forbidden: Pod running on node without support for resize']);
    running.status!.containerStatuses![0].resources = { requests: { cpu: '1' } };
    assert.deepEqual(validatePodResize(next, running).map(String), []);
    const mirror = structuredClone(base);
    mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'x' };
    assert.deepEqual(validatePodResize(mirror, mirror).map(String), [': Forbidden: static pods cannot be resized']);
    const podLevel = structuredClone(base);
    podLevel.spec!.resources = { requests: { cpu: '1' } };
    assert.deepEqual(validatePodResize(podLevel, podLevel).map(String), [': Forbidden: pods with pod-level resources cannot be resized']);
  });
});

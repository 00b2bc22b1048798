import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import { validateEphemeralContainersUpdate } from '../../../../../src/api/core/pod/subresources.js';
import type { KObject } from '../../../../../src/api/types.js';
import { cluster, createPod, rejection, type Cluster } from './subresource-helpers.js';

const sub = { subresource: 'ephemeralcontainers' };
const debug = (name = 'debugger', extra: Record<string, unknown> = {}) => ({ name, image: 'busybox:1.36', targetContainerName: 'c', ...extra });
const addPatch = (...containers: Record<string, unknown>[]) => ({ spec: { ephemeralContainers: containers } });

describe('pods/ephemeralcontainers', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());

  it('adds ephemeral containers (defaulted) through a strategic merge patch and bumps the generation', async () => {
    const created = await createPod(c, 'p', { labels: { app: 'p' } });
    const pod = (await c.pods.patch('default', 'p', 'strategic', addPatch(debug()), sub)) as Pod;
    assert.deepEqual(pod.spec?.ephemeralContainers, [
      { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'c', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' },
    ]);
    assert.equal(pod.metadata.generation, (created.metadata.generation ?? 1) + 1);
    // merged by name, in the order kubectl's $setElementOrder gives
    const patch = { spec: { '$setElementOrder/ephemeralContainers': [{ name: 'debugger' }, { name: 'second' }], ephemeralContainers: [debug('second')] } };
    const two = (await c.pods.patch('default', 'p', 'strategic', patch, sub)) as Pod;
    assert.deepEqual(two.spec?.ephemeralContainers?.map((x) => x.name), ['debugger', 'second']);
    const got = await c.client.resource('v1', 'pods').get('default', 'p');
    assert.equal(got.kind, 'Pod');
  });

  it('keeps everything else of the pod (PUT through the subresource)', async () => {
    const cur = (await c.pods.get('default', 'p')) as Pod;
    const body = structuredClone(cur) as Pod;
    body.metadata.labels = { app: 'changed' };
    body.spec!.containers![0].image = 'nginx:1.28';
    body.spec!.ephemeralContainers!.push(debug('third') as never);
    const out = (await c.pods.update('default', body as KObject, sub)) as Pod;
    assert.deepEqual(out.metadata.labels, { app: 'p' });
    assert.equal(out.spec?.containers?.[0].image, 'nginx:1.27');
    assert.equal(out.spec?.ephemeralContainers?.length, 3);
  });

  it('refuses changing or removing existing ephemeral containers', async () => {
    let e = await rejection(c.pods.patch('default', 'p', 'strategic', addPatch({ name: 'debugger', image: 'alpine:3' }), sub));
    assert.equal(e.code, 422);
    assert.match(
      e.message,
      /^Pod "p" is invalid: spec\.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed\n {2}core\.EphemeralContainer\{\n.*\n.*\n- \t\tImage: "busybox:1\.36",\n\+ \t\tImage: "alpine:3",\n/,
    );
    e = await rejection(c.pods.patch('default', 'p', 'json', [{ op: 'remove', path: '/spec/ephemeralContainers/0' }], sub));
    assert.equal(e.message, 'Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n');
  });

  it('validates new ephemeral containers with Kubernetes messages', async () => {
    await createPod(c, 'v');
    const msg = async (x: Record<string, unknown>) => (await rejection(c.pods.patch('default', 'v', 'strategic', addPatch(x), sub))).message;
    assert.equal(await msg(debug('d', { ports: [{ containerPort: 80 }] })), 'Pod "v" is invalid: spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container');
    assert.equal(
      await msg(debug('d', { readinessProbe: { exec: { command: ['true'] } }, lifecycle: { preStop: { exec: { command: ['x'] } } } })),
      'Pod "v" is invalid: [spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container, spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container]',
    );
    assert.equal(
      await msg(debug('d', { resources: { limits: { cpu: '1' } } })),
      'Pod "v" is invalid: spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
    );
    assert.equal(await msg(debug('c')), 'Pod "v" is invalid: spec.ephemeralContainers[0].name: Duplicate value: "c"');
    assert.equal(await msg(debug('d', { targetContainerName: 'nope' })), 'Pod "v" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "nope"');
    assert.equal(await msg({ name: 'd' }), 'Pod "v" is invalid: spec.ephemeralContainers[0].image: Required value');
  });

  it('refuses static pods', () => {
    const old = { metadata: { name: 's', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } as Pod;
    const next = structuredClone(old);
    next.spec!.ephemeralContainers = [debug() as never];
    assert.deepEqual(validateEphemeralContainersUpdate(next, old).map(String), [': Forbidden: static pods do not support ephemeral containers']);
  });

  it('is not reachable through a plain pod update', async () => {
    const e = await rejection(c.pods.patch('default', 'v', 'strategic', addPatch(debug('d'))));
    assert.equal(e.code, 422);
    assert.match(e.message, /pod updates may not change fields other than/);
  });
});

// ImageLocality: kube's arithmetic (thresholds, spread scaling, init containers), name normalisation, the image index
// following node updates, and a real cluster placing a pod on the node that already has its image.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { NodeInfo } from '../../../src/scheduler/node-info.js';
import {
  ImageStates,
  imageLocalityPriority,
  imageLocalityScore,
  MAX_CONTAINER_THRESHOLD,
  MIN_THRESHOLD,
  normalizeImageName,
} from '../../../src/scheduler/plugins/image-locality.js';
import { schedulerFactory } from '../../../src/scheduler/scheduler.js';
import { controllerCluster } from '../controllers/harness.js';
import { node, nodeNameOf, pod } from './fixtures.js';

const MB = 1024 * 1024;

function withImages(n: KObject, images: { names: string[]; sizeBytes: number }[]): KObject {
  (n as unknown as { status: Record<string, unknown> }).status.images = images;
  return n;
}

function podWith(images: string[], init: string[] = []): KObject {
  const p = pod('p');
  const spec = (p as unknown as { spec: Record<string, unknown> }).spec;
  spec.containers = images.map((image, i) => ({ name: `c${i}`, image }));
  if (init.length) spec.initContainers = init.map((image, i) => ({ name: `i${i}`, image }));
  return p;
}

describe('ImageLocality', () => {
  it('normalises names to full references', () => {
    assert.equal(normalizeImageName('nginx'), 'docker.io/library/nginx:latest');
    assert.equal(normalizeImageName('nginx:1.27'), 'docker.io/library/nginx:1.27');
    assert.equal(normalizeImageName('library/nginx'), 'docker.io/library/nginx:latest');
    assert.equal(normalizeImageName('docker.io/library/nginx:latest'), 'docker.io/library/nginx:latest');
    assert.equal(normalizeImageName('user/app'), 'docker.io/user/app:latest');
    assert.equal(normalizeImageName('registry.k8s.io/pause:3.10'), 'registry.k8s.io/pause:3.10');
    assert.equal(normalizeImageName('localhost:5000/app'), 'localhost:5000/app:latest');
    assert.equal(normalizeImageName('busybox@sha256:abc'), 'docker.io/library/busybox@sha256:abc');
  });

  it('maps the summed size onto 0-100 between 23 MiB and 1000 MiB per container', () => {
    assert.equal(imageLocalityPriority(0, 1), 0);
    assert.equal(imageLocalityPriority(MIN_THRESHOLD, 1), 0);
    assert.equal(imageLocalityPriority(MAX_CONTAINER_THRESHOLD, 1), 100);
    assert.equal(imageLocalityPriority(5000 * MB, 1), 100);
    // (500 - 23) / (1000 - 23) and with two containers (500 - 23) / (2000 - 23)
    assert.equal(imageLocalityPriority(500 * MB, 1), 48);
    assert.equal(imageLocalityPriority(500 * MB, 2), 24);
  });

  it('scales each image by the share of nodes holding it, counting init containers', () => {
    const states = new ImageStates();
    const nodes = ['n1', 'n2', 'n3', 'n4'].map((n) => node(n));
    withImages(nodes[0], [
      { names: ['docker.io/library/big:1'], sizeBytes: 800 * MB },
      { names: ['docker.io/library/init:1'], sizeBytes: 400 * MB },
    ]);
    withImages(nodes[1], [{ names: ['docker.io/library/big:1'], sizeBytes: 800 * MB }]);
    for (const n of nodes) states.setNode(n);
    const infos = nodes.map((n) => {
      const ni = new NodeInfo(n.metadata.name!);
      ni.setNode(n);
      return ni;
    });
    const p = podInfo(podWith(['big:1'], ['init:1']));
    // n1: 800 × 2/4 + 400 × 1/4 = 500 MiB over two containers → 100 × (500 − 23) / (2000 − 23)
    assert.equal(imageLocalityScore(p, infos[0], states), Math.trunc((100 * (500 - 23)) / (2000 - 23)));
    // n2: 400 MiB
    assert.equal(imageLocalityScore(p, infos[1], states), Math.trunc((100 * (400 - 23)) / (2000 - 23)));
    assert.equal(imageLocalityScore(p, infos[2], states), 0);
    // the image leaves n2: it is rarer now and n2 scores nothing
    states.setNode(withImages(node('n2'), []));
    assert.equal(imageLocalityScore(p, infos[1], states), 0);
    assert.equal(imageLocalityScore(p, infos[0], states), Math.trunc((100 * (300 - 23)) / (2000 - 23)));
    states.removeNode('n1');
    assert.equal(states.totalNodes(), 3);
    assert.equal(imageLocalityScore(p, infos[0], states), 0);
  });

  it('in a cluster, the pod goes to the node that already has its image', async () => {
    const c = await controllerCluster([schedulerFactory()]);
    try {
      const nodes = c.client.resource('v1', 'nodes');
      await nodes.create('', node('n1'));
      await nodes.create('', withImages(node('n2'), [{ names: ['docker.io/library/nginx:latest', 'docker.io/library/nginx@sha256:0123'], sizeBytes: 600 * MB }]));
      await nodes.create('', node('n3'));
      const pods = c.client.resource('v1', 'pods');
      for (let i = 0; i < 3; i++) await pods.create('default', { ...podWith(['nginx']), metadata: { name: `web${i}`, namespace: 'default' } } as KObject);
      for (let i = 0; i < 3; i++) {
        const p = await c.waitFor(`web${i} bound`, async () => {
          const got = await pods.get('default', `web${i}`);
          return nodeNameOf(got) ? got : undefined;
        });
        // 600 × 1/3 = 200 MiB → 18 points: more than what spreading by free resources (1 point per pod) takes away
        assert.equal(nodeNameOf(p), 'n2');
      }
    } finally {
      await c.close();
    }
  });
});

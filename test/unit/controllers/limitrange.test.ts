import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, createNamespace, type ControllerCluster } from './harness.js';

const pod = (name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'lr' }, spec: { containers, ...extra } }) as KObject;

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected the request to be refused');
}

describe('LimitRanger admission', () => {
  let c: ControllerCluster;
  before(async () => {
    c = await controllerCluster([], {});
    await createNamespace(c.client, 'lr');
    await c.client.resource('v1', 'limitranges').create('lr', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits', namespace: 'lr' },
      spec: {
        limits: [
          { type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '0.2' }, min: { cpu: '100m' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '4' } },
          { type: 'Pod', max: { memory: '1Gi' } },
          { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '5Gi' } },
        ],
      },
    } as KObject);
  });
  after(async () => c.close());

  it('fills defaults into containers and init containers, annotates the pod and recomputes its QoS class', async () => {
    const created = await c.client.resource('v1', 'pods').create(
      'lr',
      pod('defaulted', [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'nginx', resources: { requests: { cpu: '300m' } } }], {
        initContainers: [{ name: 'init', image: 'busybox' }],
      }),
    );
    const spec = created.spec as { containers: { resources: unknown }[]; initContainers: { resources: unknown }[] };
    assert.deepEqual(spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } });
    assert.deepEqual(spec.containers[1].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '300m', memory: '256Mi' } });
    assert.deepEqual(spec.initContainers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } });
    assert.equal(
      created.metadata.annotations?.['kubernetes.io/limit-ranger'],
      // the stored LimitRange's defaultRequest took memory from default (SetDefaults_LimitRangeItem)
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; memory request for container side; cpu, memory limit for container side; cpu, memory request for init container init; cpu, memory limit for init container init',
    );
    assert.equal((created.status as { qosClass?: string }).qosClass, 'Burstable');
  });

  it('refuses containers below min, above max or over the limit/request ratio with kube’s messages', async () => {
    const pods = c.client.resource('v1', 'pods');
    const low = await rejection(pods.create('lr', pod('low', [{ name: 'x', image: 'nginx', resources: { requests: { cpu: '50m' }, limits: { cpu: '100m' } } }])));
    assert.equal(low.code, 403);
    assert.equal(low.message, 'pods "low" is forbidden: minimum cpu usage per Container is 100m, but request is 50m');
    const high = await rejection(pods.create('lr', pod('high', [{ name: 'x', image: 'nginx', resources: { requests: { cpu: '1' }, limits: { cpu: '3' } } }])));
    assert.equal(high.message, 'pods "high" is forbidden: maximum cpu usage per Container is 2, but limit is 3');
    const ratio = await rejection(pods.create('lr', pod('ratio', [{ name: 'x', image: 'nginx', resources: { requests: { cpu: '100m' }, limits: { cpu: '1' } } }])));
    assert.equal(ratio.message, 'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000');
    const podMax = await rejection(
      pods.create('lr', pod('big', [
        { name: 'a', image: 'nginx', resources: { limits: { memory: '768Mi' } } },
        { name: 'b', image: 'nginx', resources: { limits: { memory: '512Mi' } } },
      ])),
    );
    assert.equal(podMax.message, 'pods "big" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1280Mi');
  });

  it('checks claims against PersistentVolumeClaim min and max', async () => {
    const pvcs = c.client.resource('v1', 'persistentvolumeclaims');
    const pvc = (name: string, size: string): KObject =>
      ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'lr' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } }) as KObject;
    const small = await rejection(pvcs.create('lr', pvc('small', '500Mi')));
    assert.equal(small.message, 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    const large = await rejection(pvcs.create('lr', pvc('large', '10Gi')));
    assert.equal(large.message, 'persistentvolumeclaims "large" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi');
    const ok = await pvcs.create('lr', pvc('ok', '2Gi'));
    assert.equal(ok.metadata.name, 'ok');
  });

  it('leaves namespaces without limit ranges alone', async () => {
    const created = await c.client.resource('v1', 'pods').create('default', { ...pod('free', [{ name: 'app', image: 'nginx' }]), metadata: { name: 'free', namespace: 'default' } } as KObject);
    assert.equal(created.metadata.annotations?.['kubernetes.io/limit-ranger'], undefined);
    assert.equal((created.status as { qosClass?: string }).qosClass, 'BestEffort');
  });
});

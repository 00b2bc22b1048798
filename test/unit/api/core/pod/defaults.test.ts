import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { injectServiceAccountVolume, type Pod } from '../../../../../src/api/core/pod/resource.js';
import { imageTag, defaultPullPolicy } from '../../../../../src/api/core/pod/defaults.js';
import { basic, created, pod, strategy } from './helpers.js';

describe('pod defaults', () => {
  it('a minimal pod matches `kubectl get pod -o yaml` of kubectl run (before the token volume)', () => {
    const p = created(pod({ containers: [{ name: 'nginx', image: 'nginx' }] }, { labels: { run: 'nginx' } }));
    assert.deepEqual(p.spec, {
      containers: [
        {
          image: 'nginx',
          imagePullPolicy: 'Always',
          name: 'nginx',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      serviceAccount: 'default',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
        { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
      ],
    });
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
    assert.equal(p.metadata.generation, 1);
  });

  it('imagePullPolicy follows the tag (latest or none: Always; digest only: IfNotPresent)', () => {
    const cases: [string, string][] = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['nginx:1.27', 'IfNotPresent'],
      ['registry.local:5000/team/app', 'Always'],
      ['registry.local:5000/team/app:v2', 'IfNotPresent'],
      ['nginx@sha256:' + 'a'.repeat(64), 'IfNotPresent'],
      ['nginx:latest@sha256:' + 'a'.repeat(64), 'Always'],
      ['Nginx', 'IfNotPresent'], // unparsable (upper case): no tag
      ['', 'IfNotPresent'],
    ];
    for (const [image, want] of cases) assert.equal(defaultPullPolicy(image), want, image);
    assert.equal(imageTag('localhost:5000/x'), 'latest');
    const p = created(pod({ containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'Never' }] }));
    assert.equal(p.spec!.containers![0].imagePullPolicy, 'Never');
  });

  it('ports, probes, env field refs and lifecycle handlers get their defaults', () => {
    const p = created(pod({
      containers: [{
        name: 'c',
        image: 'nginx:1',
        ports: [{ containerPort: 80 }],
        livenessProbe: { httpGet: { port: 80 } },
        readinessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
        lifecycle: { preStop: { httpGet: { port: 'http', path: '/stop' } } },
        env: [
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        ],
      }],
    }));
    const c = p.spec!.containers![0];
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c.livenessProbe, {
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
    });
    assert.deepEqual(c.readinessProbe, { grpc: { port: 9000, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.lifecycle, { preStop: { httpGet: { port: 'http', path: '/stop', scheme: 'HTTP' } } });
    assert.deepEqual(c.env![0].valueFrom, { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } });
    assert.deepEqual(c.env![1].valueFrom, { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } });
  });

  it('volumes: implicit emptyDir, 0644 default modes, hostPath type, token expiry, PVC template volumeMode', () => {
    const p = created(pod({
      containers: [{ name: 'c', image: 'x:1' }],
      volumes: [
        { name: 'a' },
        { name: 'b', configMap: { name: 'cm' } },
        { name: 'c', secret: { secretName: 's' } },
        { name: 'd', hostPath: { path: '/var/log' } },
        { name: 'e', projected: { sources: [{ serviceAccountToken: { path: 't' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
        { name: 'f', downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'g', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
      ],
    }));
    const v = p.spec!.volumes!;
    assert.deepEqual(v[0], { name: 'a', emptyDir: {} });
    assert.deepEqual(v[1], { name: 'b', configMap: { name: 'cm', defaultMode: 420 } });
    assert.deepEqual(v[2], { name: 'c', secret: { secretName: 's', defaultMode: 420 } });
    assert.deepEqual(v[3], { name: 'd', hostPath: { path: '/var/log', type: '' } });
    assert.deepEqual(v[4].projected, {
      defaultMode: 420,
      sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }] } }],
    });
    assert.equal((v[5].downwardAPI as { defaultMode: number }).defaultMode, 420);
    assert.deepEqual(v[6].ephemeral, {
      volumeClaimTemplate: {
        metadata: { creationTimestamp: null },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      },
    });
  });

  it('requests default to limits; quantities are rounded to milli units and written canonically', () => {
    const p = created(pod({
      containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: '0.0001' } } }],
      initContainers: [{ name: 'i', image: 'x:1', resources: { limits: { memory: '128Mi' } } }],
    }));
    assert.deepEqual(p.spec!.containers![0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1m', memory: '1Gi' } });
    assert.deepEqual(p.spec!.initContainers![0].resources, { limits: { memory: '128Mi' }, requests: { memory: '128Mi' } });
    assert.equal(p.status!.qosClass, 'Burstable');
  });

  it('hostNetwork copies containerPort to hostPort; explicit zero values are dropped like Go omitempty', () => {
    const p = created(pod({ hostNetwork: true, hostPID: false, nodeName: '', containers: [{ name: 'c', image: 'x:1', stdin: false, ports: [{ containerPort: 8080, hostIP: '' }] }] }));
    assert.deepEqual(p.spec!.containers![0].ports, [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    assert.equal('hostPID' in p.spec!, false);
    assert.equal('nodeName' in p.spec!, false);
    assert.equal('stdin' in p.spec!.containers![0], false);
  });

  it('serviceAccount mirrors serviceAccountName (deprecated alias in both directions)', () => {
    assert.equal(created(pod({ serviceAccount: 'builder', containers: [{ name: 'c', image: 'x:1' }] })).spec!.serviceAccountName, 'builder');
    assert.equal(created(pod({ serviceAccountName: 'ci', containers: [{ name: 'c', image: 'x:1' }] })).spec!.serviceAccount, 'ci');
  });

  it('admission-like create defaults keep what the user set', () => {
    const p = created(basic({
      tolerations: [{ operator: 'Exists' }],
      priorityClassName: 'system-node-critical',
    }));
    assert.deepEqual(p.spec!.tolerations, [{ operator: 'Exists' }]);
    assert.equal(p.spec!.priority, 2000001000);
    const q = created(basic({ tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }] }));
    assert.deepEqual(q.spec!.tolerations!.map((t) => t.key), ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
    const mirror = created(basic({ nodeName: 'n1' }));
    assert.equal(mirror.spec!.serviceAccountName, 'default');
    const staticPod = created(pod({ nodeName: 'n1', containers: [{ name: 'c', image: 'x:1' }] }, { annotations: { 'kubernetes.io/config.mirror': 'x' } }));
    assert.equal(staticPod.spec!.serviceAccountName, undefined);
  });

  it('scheduling gates add the SchedulingGated condition; matchLabelKeys are merged into pod affinity', () => {
    const p = created(pod(
      {
        schedulingGates: [{ name: 'example.com/gate' }],
        containers: [{ name: 'c', image: 'x:1' }],
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['pod-template-hash'] }] } },
      },
      { labels: { app: 'web', 'pod-template-hash': 'abc' } },
    ));
    const cond = p.status!.conditions![0];
    assert.equal(cond.type, 'PodScheduled');
    assert.equal(cond.reason, 'SchedulingGated');
    assert.equal(cond.message, 'Scheduling is blocked due to non-empty scheduling gates');
    assert.equal(cond.lastProbeTime, null);
    const term = (p.spec!.affinity as any).podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    assert.deepEqual(term.labelSelector.matchExpressions, [{ key: 'pod-template-hash', operator: 'In', values: ['abc'] }]);
  });

  it('fields of features off by default in 1.33 are dropped on create', () => {
    const p = created(pod({
      resources: { limits: { cpu: '1' } },
      resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }],
      containers: [{ name: 'c', image: 'x:1', lifecycle: { stopSignal: 'SIGUSR1' } }],
    }));
    assert.equal(p.spec!.resources, undefined);
    assert.equal(p.spec!.resourceClaims, undefined);
    assert.deepEqual(p.spec!.containers![0].lifecycle, {});
  });

  it('defaults are idempotent', () => {
    const p = created(basic({ volumes: [{ name: 'v' }] }));
    const again = structuredClone(p);
    strategy.defaults(again);
    assert.deepEqual(again, p);
  });
});

describe('injectServiceAccountVolume', () => {
  it('adds the kube-api-access projected volume and a read-only mount to init and regular containers', () => {
    const p = created(pod({
      initContainers: [{ name: 'init', image: 'x:1' }],
      containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'x:1', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
      volumes: [{ name: 'own', emptyDir: {} }],
    }));
    injectServiceAccountVolume(p, () => 'x7k2q');
    const mount = { name: 'kube-api-access-x7k2q', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    assert.deepEqual(p.spec!.initContainers![0].volumeMounts, [mount]);
    assert.deepEqual(p.spec!.containers![0].volumeMounts, [mount]);
    assert.equal(p.spec!.containers![1].volumeMounts!.length, 1);
    assert.deepEqual(p.spec!.volumes![1], {
      name: 'kube-api-access-x7k2q',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });
    assert.deepEqual(strategy.validate(p), []);
  });

  it('reuses an existing kube-api-access-* volume and generates a 5-character suffix', () => {
    const p: Pod = created(basic());
    injectServiceAccountVolume(p);
    assert.match(p.spec!.volumes![0].name!, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const q: Pod = created(pod({ containers: [{ name: 'c', image: 'x:1' }], volumes: [{ name: 'kube-api-access-abcde', emptyDir: {} }] }));
    injectServiceAccountVolume(q);
    assert.equal(q.spec!.volumes!.length, 1);
    assert.equal(q.spec!.containers![0].volumeMounts![0].name, 'kube-api-access-abcde');
  });
});

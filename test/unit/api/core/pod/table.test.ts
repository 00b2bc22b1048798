import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeQOS, podGracePeriod, podResource, type Pod } from '../../../../../src/api/core/pod/resource.js';
import { podRow } from '../../../../../src/api/core/pod/table.js';
import type { ContainerStatus } from '../../../../../src/api/core/pod/types.js';
import { basic, created, pod } from './helpers.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace('.000Z', 'Z');
const cs = (name: string, state: ContainerStatus['state'], extra: Partial<ContainerStatus> = {}): ContainerStatus => ({
  name, state, ready: false, restartCount: 0, image: 'x', imageID: '', ...extra,
});

function withStatus(status: Pod['status'], spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Pod {
  return { ...pod({ containers: [{ name: 'a', image: 'x:1' }], ...spec }, { creationTimestamp: ago(3600), ...meta }), status };
}

describe('pod table: STATUS, READY, RESTARTS', () => {
  const running = { running: { startedAt: ago(60) } };
  const cases: [string, Pod, string, string, string][] = [
    ['new pod', withStatus({ phase: 'Pending' }), '0/1', 'Pending', '0'],
    ['creating', withStatus({ phase: 'Pending', containerStatuses: [cs('a', { waiting: { reason: 'ContainerCreating' } })] }), '0/1', 'ContainerCreating', '0'],
    ['running and ready', withStatus({ phase: 'Running', containerStatuses: [cs('a', running, { ready: true })] }), '1/1', 'Running', '0'],
    ['running, not ready', withStatus({ phase: 'Running', containerStatuses: [cs('a', running)] }), '0/1', 'Running', '0'],
    ['crash loop', withStatus({
      phase: 'Running',
      containerStatuses: [cs('a', { waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 2, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(300) } } })],
    }), '0/1', 'CrashLoopBackOff', '2 (5m ago)'],
    ['completed', withStatus({ phase: 'Succeeded', containerStatuses: [cs('a', { terminated: { exitCode: 0, reason: 'Completed' } })] }), '0/1', 'Completed', '0'],
    ['exit code without reason', withStatus({ phase: 'Failed', containerStatuses: [cs('a', { terminated: { exitCode: 137 } })] }), '0/1', 'ExitCode:137', '0'],
    ['signal without reason', withStatus({ phase: 'Failed', containerStatuses: [cs('a', { terminated: { exitCode: 0, signal: 9 } })] }), '0/1', 'Signal:9', '0'],
    ['evicted (status reason)', withStatus({ phase: 'Failed', reason: 'Evicted' }), '0/1', 'Evicted', '0'],
    ['init waiting', withStatus(
      { phase: 'Pending', initContainerStatuses: [cs('i', { waiting: { reason: 'PodInitializing' } })] },
      { initContainers: [{ name: 'i', image: 'x:1' }] },
    ), '0/1', 'Init:0/1', '0'],
    ['second init running', withStatus(
      { phase: 'Pending', initContainerStatuses: [cs('i', { terminated: { exitCode: 0 } }), cs('j', running)] },
      { initContainers: [{ name: 'i', image: 'x:1' }, { name: 'j', image: 'x:1' }] },
    ), '0/1', 'Init:1/2', '0'],
    ['init crash loop', withStatus(
      { phase: 'Pending', initContainerStatuses: [cs('i', { waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 3 })] },
      { initContainers: [{ name: 'i', image: 'x:1' }] },
    ), '0/1', 'Init:CrashLoopBackOff', '3'],
    ['init failed', withStatus(
      { phase: 'Pending', initContainerStatuses: [cs('i', { terminated: { exitCode: 2 } })] },
      { initContainers: [{ name: 'i', image: 'x:1' }] },
    ), '0/1', 'Init:ExitCode:2', '0'],
    ['sidecar started counts as a container', withStatus(
      { phase: 'Running', initContainerStatuses: [cs('s', running, { started: true, ready: true })], containerStatuses: [cs('a', running, { ready: true })] },
      { initContainers: [{ name: 's', image: 'x:1', restartPolicy: 'Always' }] },
    ), '2/2', 'Running', '0'],
    ['one container completed, another running', withStatus(
      { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [cs('a', running, { ready: true }), cs('b', { terminated: { exitCode: 0, reason: 'Completed' } })] },
      { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'x:1' }] },
    ), '1/2', 'NotReady', '0'],
    ['scheduling gated', withStatus({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }), '0/1', 'SchedulingGated', '0'],
    ['terminating', withStatus({ phase: 'Running', containerStatuses: [cs('a', running, { ready: true })] }, {}, { deletionTimestamp: ago(-30) }), '1/1', 'Terminating', '0'],
    ['deleted but already finished', withStatus({ phase: 'Succeeded' }, {}, { deletionTimestamp: ago(-30) }), '0/1', 'Succeeded', '0'],
    ['node lost', withStatus({ phase: 'Running', reason: 'NodeLost' }, {}, { deletionTimestamp: ago(-30) }), '0/1', 'Unknown', '0'],
  ];
  for (const [name, p, ready, status, restarts] of cases) {
    it(name, () => assert.deepEqual(podRow(p, NOW), { ready, status, restarts }));
  }
});

describe('pod table columns', () => {
  const cols = podResource.columns;
  const cells = (p: Pod) => cols.map((c) => c.cell(p, { now: NOW }));

  it('NAME READY STATUS RESTARTS AGE, then IP NODE NOMINATED NODE READINESS GATES for -o wide', () => {
    assert.deepEqual(cols.map((c) => [c.name, c.priority ?? 0]), [
      ['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0],
      ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1],
    ]);
    assert.deepEqual(cells(withStatus({ phase: 'Pending' })), ['p', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('wide cells come from podIPs[0], nodeName, nominatedNodeName and readiness gate conditions', () => {
    const p = withStatus(
      { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }], nominatedNodeName: 'n2', conditions: [{ type: 'example.com/ready', status: 'True' }] },
      { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'example.com/other' }] },
    );
    assert.deepEqual(cells(p).slice(5), ['10.0.0.9', 'n1', 'n2', '1/2']);
  });
});

describe('pod strategy', () => {
  it('is core/v1 pods, short name po, in category all, with a status subresource', () => {
    assert.deepEqual(
      [podResource.group, podResource.version, podResource.kind, podResource.plural, podResource.shortNames, podResource.categories, podResource.namespaced],
      ['', 'v1', 'Pod', 'pods', ['po'], ['all'], true],
    );
    assert.equal(podResource.subresources?.status, true);
    assert.deepEqual(podResource.subresources?.extra, ['ephemeralcontainers', 'resize']);
    assert.equal(podResource.hasGeneration, true);
    assert.ok(podResource.definitions['io.k8s.api.core.v1.PodSpec']);
  });

  it('selectable fields are those of ToSelectableFields', () => {
    const p = created(basic({ nodeName: 'n1', hostNetwork: true }));
    p.status!.podIPs = [{ ip: '10.0.0.1' }];
    const f = podResource.selectableFields!;
    assert.deepEqual(Object.fromEntries(Object.entries(f).map(([k, fn]) => [k, fn(p)])), {
      'spec.nodeName': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'default',
      'spec.hostNetwork': 'true',
      'status.phase': 'Pending',
      'status.podIP': '10.0.0.1',
      'status.nominatedNodeName': '',
    });
  });

  it('graceful delete: spec or requested period, immediate when unscheduled or finished', () => {
    const scheduled = created(basic({ nodeName: 'n1' }));
    assert.equal(podGracePeriod(scheduled, {}), 30);
    assert.equal(podGracePeriod(scheduled, { gracePeriodSeconds: 5 }), 5);
    assert.equal(podGracePeriod(scheduled, { gracePeriodSeconds: 0 }), undefined);
    assert.equal(podGracePeriod(created(basic({ nodeName: 'n1', terminationGracePeriodSeconds: -5 })), {}), 1);
    assert.equal(podGracePeriod(created(basic()), {}), undefined);
    const done = created(basic({ nodeName: 'n1' }));
    done.status!.phase = 'Succeeded';
    assert.equal(podGracePeriod(done, {}), undefined);
  });

  it('QoS: BestEffort, Burstable, Guaranteed', () => {
    const res = (r: Record<string, unknown>) => pod({ containers: [{ name: 'c', image: 'x:1', resources: r }] });
    assert.equal(computeQOS(res({})), 'BestEffort');
    assert.equal(computeQOS(res({ requests: { cpu: '100m' } })), 'Burstable');
    assert.equal(computeQOS(res({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })), 'Guaranteed');
    assert.equal(computeQOS(res({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } })), 'Burstable');
    assert.equal(computeQOS(res({ limits: { cpu: '1' }, requests: { cpu: '1' } })), 'Burstable');
    assert.equal(computeQOS(res({ requests: { 'example.com/gpu': '1' } })), 'BestEffort');
    // Limits only: requests are defaulted from them on create, so the pod is Guaranteed.
    assert.equal(created(res({ limits: { cpu: '250m', memory: '64Mi' } })).status!.qosClass, 'Guaranteed');
    const mixed = pod({
      initContainers: [{ name: 'i', image: 'x:1', resources: { requests: { cpu: '1' } } }],
      containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }],
    });
    assert.equal(computeQOS(mixed), 'Burstable');
  });

  it('warns about pod names that are not DNS labels, on create only', () => {
    const w = podResource.strategy.warnings!;
    assert.deepEqual(w(basic(), undefined), []);
    const dotted = pod({ containers: [{ name: 'c', image: 'x:1' }] }, { name: 'a.b' });
    assert.deepEqual(w(dotted, undefined), ["metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"]);
    assert.deepEqual(w(dotted, dotted), []);
  });
});

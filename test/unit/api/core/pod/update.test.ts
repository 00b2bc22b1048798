import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../../../../../src/api/core/pod/resource.js';
import { basic, created, pod, strategy, updateErrors } from './helpers.js';

const FORBIDDEN_PREFIX =
  'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';

const stored = (p: Pod = basic()): Pod => {
  const o = created(p);
  o.metadata.resourceVersion = '1';
  return o;
};

describe('pod update validation', () => {
  it('container and init container images may change', () => {
    const old = stored(pod({ initContainers: [{ name: 'i', image: 'busybox:1' }], containers: [{ name: 'c', image: 'nginx:1.26' }] }));
    assert.deepEqual(updateErrors(old, (p) => {
      p.spec!.containers![0].image = 'nginx:1.27';
      p.spec!.initContainers![0].image = 'busybox:2';
    }), []);
  });

  it('metadata-only changes are fine', () => {
    assert.deepEqual(updateErrors(stored(), (p) => (p.metadata.labels = { app: 'x' })), []);
  });

  it('any other spec change is forbidden, with the updatable fields and a diff', () => {
    const errs = updateErrors(stored(), (p) => (p.spec!.containers![0].ports = [{ containerPort: 80 }]));
    assert.equal(errs.length, 1);
    assert.ok(errs[0].startsWith(FORBIDDEN_PREFIX + '  core.PodSpec{\n'), errs[0]);
    assert.match(errs[0], /\n- \tContainers: \[.*"name":"c".*\],\n\+ \tContainers: \[.*"containerPort":80.*\],\n/);
    assert.ok(errs[0].endsWith('  }\n'));
  });

  it('a changed node name is shown in the diff', () => {
    const errs = updateErrors(stored(basic({ nodeName: 'a' })), (p) => (p.spec!.nodeName = 'b'));
    assert.ok(errs[0].includes('- \tNodeName: "a",\n+ \tNodeName: "b",\n'), errs[0]);
  });

  it('containers may not be added or removed', () => {
    const errs = updateErrors(stored(), (p) => p.spec!.containers!.push({ name: 'd', image: 'x:1' }));
    assert.deepEqual(errs, ['spec.containers: Forbidden: pod updates may not add or remove containers']);
  });

  it('an image cannot be cleared', () => {
    const errs = updateErrors(stored(), (p) => delete p.spec!.containers![0].image);
    assert.ok(errs.includes('spec.containers[0].image: Required value'));
  });

  it('activeDeadlineSeconds: may be set and lowered, not raised or removed', () => {
    const old = stored();
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.activeDeadlineSeconds = 100)), []);
    const withDeadline = stored(basic({ activeDeadlineSeconds: 100 }));
    assert.deepEqual(updateErrors(withDeadline, (p) => (p.spec!.activeDeadlineSeconds = 50)), []);
    assert.deepEqual(updateErrors(withDeadline, (p) => (p.spec!.activeDeadlineSeconds = 200)), [
      'spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value',
    ]);
    assert.deepEqual(updateErrors(withDeadline, (p) => delete p.spec!.activeDeadlineSeconds), [
      'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value',
    ]);
  });

  it('tolerations may be added and their seconds changed, but not modified or removed', () => {
    const old = stored();
    assert.deepEqual(updateErrors(old, (p) => p.spec!.tolerations!.push({ key: 'k', operator: 'Exists' })), []);
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.tolerations![0].tolerationSeconds = 60)), []);
    assert.deepEqual(updateErrors(old, (p) => p.spec!.tolerations!.pop()), [
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
  });

  it('scheduling gates may only be removed; gated pods may gain nodeSelector entries', () => {
    const old = stored(basic({ schedulingGates: [{ name: 'a' }], nodeSelector: { disk: 'ssd' } }));
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.schedulingGates = [])), []);
    assert.deepEqual(updateErrors(old, (p) => p.spec!.schedulingGates!.push({ name: 'b' })), [
      "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'",
    ]);
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.nodeSelector = { disk: 'ssd', zone: 'a' })), []);
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.nodeSelector = { disk: 'hdd' })), [
      'spec.nodeSelector: Invalid value: map[string]string{"disk":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)',
    ]);
    const ungated = stored(basic({ nodeSelector: { disk: 'ssd' } }));
    assert.ok(updateErrors(ungated, (p) => (p.spec!.nodeSelector = { disk: 'ssd', zone: 'a' }))[0].startsWith(FORBIDDEN_PREFIX));
  });

  it('a negative grace period may be raised to 1', () => {
    const old = stored(basic({ terminationGracePeriodSeconds: -1 }));
    assert.deepEqual(updateErrors(old, (p) => (p.spec!.terminationGracePeriodSeconds = 1)), []);
    assert.ok(updateErrors(old, (p) => (p.spec!.terminationGracePeriodSeconds = 2))[0].startsWith(FORBIDDEN_PREFIX));
  });

  it('prepareForUpdate keeps the stored status', () => {
    const old = stored();
    const next = structuredClone(old);
    next.status = { phase: 'Running' };
    strategy.prepareForUpdate(next, old);
    assert.deepEqual(next.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});

describe('pod status update', () => {
  const statusErrors = (old: Pod, mutate: (p: Pod) => void): string[] => {
    const next = structuredClone(old);
    mutate(next);
    strategy.defaults(next);
    strategy.prepareForStatusUpdate(next, old);
    return strategy.validateStatusUpdate(next, old).map((e) => e.toString());
  };

  it('keeps the spec, backfills the QoS class and accepts kubelet-style status', () => {
    const old = stored(basic({ nodeName: 'n1' }));
    const next = structuredClone(old);
    next.spec!.containers![0].image = 'changed:1';
    next.status = {
      phase: 'Running',
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }, { ip: 'fd00::5' }],
      hostIP: '192.168.1.2',
      hostIPs: [{ ip: '192.168.1.2' }],
      conditions: [{ type: 'Ready', status: 'True' }],
    };
    strategy.defaults(next);
    strategy.prepareForStatusUpdate(next, old);
    assert.deepEqual(strategy.validateStatusUpdate(next, old), []);
    assert.equal(next.spec!.containers![0].image, 'nginx:1.27');
    assert.equal(next.status!.qosClass, 'BestEffort');
    assert.deepEqual(next.status!.conditions, [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }]);
  });

  it('the QoS class is immutable', () => {
    assert.deepEqual(statusErrors(stored(), (p) => (p.status!.qosClass = 'Guaranteed')), ['status.qosClass: Invalid value: "Guaranteed": field is immutable']);
  });

  it('pod IPs must be valid, one per family', () => {
    assert.deepEqual(statusErrors(stored(), (p) => (p.status!.podIPs = [{ ip: '10.0.0' }])), [
      'status.podIPs[0]: Invalid value: "10.0.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    assert.deepEqual(statusErrors(stored(), (p) => (p.status!.podIPs = [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }])), [
      'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.2"}}: may specify no more than one IP for each IP family',
    ]);
  });

  it('terminated containers of a Never pod may not run again', () => {
    const old = stored(basic({ restartPolicy: 'Never' }));
    old.status!.containerStatuses = [{ name: 'c', ready: false, restartCount: 0, image: 'nginx:1.27', imageID: '', state: { terminated: { exitCode: 0 } } }];
    assert.deepEqual(statusErrors(old, (p) => (p.status!.containerStatuses![0].state = { running: {} })), [
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]);
  });

  it('custom condition types must be qualified names', () => {
    const errs = statusErrors(stored(), (p) => (p.status!.conditions = [{ type: 'bad type', status: 'True' }]));
    assert.equal(errs.length, 1);
    assert.ok(errs[0].startsWith('metadata.conditions[0].Type: Invalid value: "bad type": name part must consist of'), errs[0]);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { daemonSetResource, TEMPLATE_GENERATION_ANNOTATION } from '../../../../src/api/apps/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(daemonSetResource);
const ds = (spec: Obj = {}, m: Obj = {}): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: meta('agent', m),
  spec: { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }), ...spec },
});
const spec = (o: KObject) => o.spec as Obj;
const ru = (rollingUpdate: Obj) => d.errors(ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate } }));

describe('DaemonSet', () => {
  it('has the kube names and columns', () => {
    assert.deepEqual([daemonSetResource.plural, daemonSetResource.shortNames, daemonSetResource.categories], ['daemonsets', ['ds'], ['all']]);
    assert.deepEqual(
      daemonSetResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`),
      [
        'Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Up-to-date:integer:0', 'Available:integer:0',
        'Node Selector:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1',
      ],
    );
    assert.equal(daemonSetResource.subresources?.scale, undefined);
  });

  it('defaults the update strategy and history, resets status and starts the template generation at 1', () => {
    const o = d.created({ ...ds(), status: { numberReady: 3 } });
    assert.deepEqual(spec(o).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(spec(o).revisionHistoryLimit, 10);
    assert.deepEqual(o.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    assert.equal(o.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
    assert.deepEqual(spec(d.created(ds({ updateStrategy: { type: 'OnDelete' } }))).updateStrategy, { type: 'OnDelete' });
  });

  it('bumps the template generation only when the template changes', () => {
    const old = d.created(ds());
    const next = (mutate: (o: KObject) => void) => {
      const n = structuredClone(old);
      mutate(n);
      daemonSetResource.strategy.defaults!(n);
      daemonSetResource.strategy.prepareForUpdate!(n, old);
      return n.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    };
    assert.equal(next((o) => (spec(o).minReadySeconds = 5)), '1');
    assert.equal(next((o) => ((spec(o).template as { metadata: Obj }).metadata.annotations = { restartedAt: 'now' })), '2');
    // clients cannot set it themselves
    assert.equal(next((o) => (o.metadata.annotations = { [TEMPLATE_GENERATION_ANNOTATION]: '7' })), '1');
  });

  it('reports a missing selector as a template mismatch, and an empty one as invalid', () => {
    assert.deepEqual(d.errors(ds({ selector: undefined })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"agent"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(d.errors(ds({ selector: {} })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
    ]);
  });

  it('wants exactly one of maxUnavailable and maxSurge to be non-zero', () => {
    assert.deepEqual(ru({ maxSurge: 1 }), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]);
    assert.deepEqual(ru({ maxUnavailable: 0, maxSurge: '0%' }), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
    assert.deepEqual(ru({ maxUnavailable: 0, maxSurge: '10%' }), []);
    assert.deepEqual(ru({ maxUnavailable: '150%', maxSurge: 0 }), [
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
    assert.deepEqual(d.errors(ds({ updateStrategy: { type: 'Blue' } })), [
      'spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Blue", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
    ]);
  });

  it('validates the template and counts', () => {
    assert.deepEqual(d.errors(ds({ minReadySeconds: -1, revisionHistoryLimit: -1, template: template({ app: 'agent' }, { activeDeadlineSeconds: 10, restartPolicy: 'Never' }) })), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
      'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('keeps the selector immutable and validates status updates', () => {
    const old = d.created(ds());
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).selector = { matchLabels: { app: 'agent', x: 'y' } })).slice(-1), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"agent", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
    assert.deepEqual(d.statusErrors(old, { numberReady: -1, desiredNumberScheduled: 2 }), ['status.numberReady: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('prints the counts and the node selector', () => {
    const o = d.created(ds({ template: template({ app: 'agent' }, { nodeSelector: { 'kubernetes.io/os': 'linux' } }) }));
    o.status = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 };
    assert.deepEqual(d.cells(o), {
      Name: 'agent', Desired: 3, Current: 3, Ready: 2, 'Up-to-date': 3, Available: 2, 'Node Selector': 'kubernetes.io/os=linux', Age: '10m',
      Containers: 'nginx', Images: 'nginx:1.27', Selector: 'app=agent',
    });
    assert.equal(d.cells(d.created(ds()))['Node Selector'], '<none>');
  });
});

describe('DaemonSet through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('apps/v1', 'daemonsets');

  it('creates, keeps the template generation across updates and bumps it with the template', async () => {
    const o = await api().create('default', ds());
    assert.equal(o.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
    const labelled = await api().patch('default', 'agent', 'merge', { metadata: { labels: { team: 'a' } } });
    assert.equal(labelled.metadata.generation, 1);
    assert.equal(labelled.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
    const restarted = await api().patch('default', 'agent', 'strategic', { spec: { template: { metadata: { annotations: { restartedAt: 'now' } } } } });
    assert.equal(restarted.metadata.generation, 2);
    assert.equal(restarted.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');
  });

  it('rejects a surge next to unavailability', async () => {
    const e = await rejection(api().create('default', ds({ updateStrategy: { rollingUpdate: { maxSurge: 1 } } }, { name: 'surge' })));
    assert.equal(e.code, 422);
    assert.match(e.message, /maxSurge: Invalid value: intstr\.IntOrString\{Type:0, IntVal:1, StrVal:""\}: may not be set when maxUnavailable is non-zero$/);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { statefulSetResource } from '../../../../src/api/apps/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(statefulSetResource);
const claim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
const sts = (spec: Obj = {}, m: Obj = {}): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: meta('db', m),
  spec: { selector: { matchLabels: { app: 'db' } }, template: template({ app: 'db' }), ...spec },
});
const spec = (o: KObject) => o.spec as Obj;

describe('StatefulSet', () => {
  it('has the kube names and columns', () => {
    assert.deepEqual([statefulSetResource.plural, statefulSetResource.shortNames, statefulSetResource.categories], ['statefulsets', ['sts'], ['all']]);
    assert.deepEqual(statefulSetResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`), ['Name:string:0', 'Ready:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1']);
    const sp = statefulSetResource.definitions['io.k8s.api.apps.v1.StatefulSetSpec'];
    assert.deepEqual(sp.required, ['selector', 'template']);
    assert.equal(sp.properties!.volumeClaimTemplates.listType, 'atomic');
  });

  it('defaults policies, the update strategy, counts and the claim templates', () => {
    const o = d.created({ ...sts({ volumeClaimTemplates: [claim] }), status: { replicas: 3 } });
    const sp = spec(o);
    assert.equal(sp.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(sp.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(sp.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(sp.replicas, 1);
    assert.equal(sp.revisionHistoryLimit, 10);
    assert.equal(sp.serviceName, '');
    assert.deepEqual(sp.volumeClaimTemplates, [{
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', creationTimestamp: null },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    }]);
    assert.deepEqual(o.status, { replicas: 0, availableReplicas: 0 });
    // An explicit RollingUpdate without parameters stays without them; OnDelete gets none.
    assert.deepEqual(spec(d.created(sts({ updateStrategy: { type: 'RollingUpdate' } }))).updateStrategy, { type: 'RollingUpdate' });
    assert.deepEqual(spec(d.created(sts({ updateStrategy: { type: 'OnDelete' } }))).updateStrategy, { type: 'OnDelete' });
  });

  it('drops maxUnavailable while its feature gate is off', () => {
    const o = d.created(sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1, maxUnavailable: 2 } } }));
    assert.deepEqual(spec(o).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 1 } });
  });

  it('validates the spec with the Kubernetes messages', () => {
    assert.deepEqual(
      d.errors(sts({
        podManagementPolicy: 'Random',
        replicas: -1,
        ordinals: { start: -1 },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' },
        updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 2 } },
      })),
      [
        "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
        "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:2, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
        'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0',
      ],
    );
    assert.deepEqual(d.errors(sts({ updateStrategy: { type: 'Sometimes' } })), [
      "spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Sometimes\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'",
    ]);
    assert.deepEqual(d.errors(sts({ selector: {} })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
    ]);
    assert.deepEqual(d.errors(sts({ selector: { matchLabels: { app: 'web' } }, template: template({ app: 'db' }, { restartPolicy: 'OnFailure', activeDeadlineSeconds: 3 }) })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported',
    ]);
  });

  it('does not validate the template as a pod (as in Kubernetes)', () => {
    assert.deepEqual(d.errors(sts({ template: template({ app: 'db' }, { containers: [{ name: 'NOT_A_LABEL' }] }) })), []);
  });

  it('needs a DNS label as name', () => {
    assert.deepEqual(statefulSetResource.strategy.validateName!('db.0', false), ['must not contain dots']);
  });

  it('forbids changes to most of the spec', () => {
    const old = d.created(sts({ volumeClaimTemplates: [claim] }));
    assert.deepEqual(d.updateErrors(old, (o) => {
      spec(o).replicas = 3;
      spec(o).minReadySeconds = 5;
      spec(o).updateStrategy = { type: 'OnDelete' };
      spec(o).persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Retain' };
      (spec(o).template as { spec: Obj }).spec.containers = [{ name: 'nginx', image: 'nginx:1.28' }];
    }), []);
    const forbidden = "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).serviceName = 'db')), [forbidden]);
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).volumeClaimTemplates = [])), [forbidden]);
  });

  it('validates status updates', () => {
    const old = d.created(sts());
    assert.deepEqual(d.statusErrors(old, { replicas: 2, readyReplicas: 1, availableReplicas: 2, currentReplicas: 3 }), [
      'status.currentReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
    ]);
  });

  it('warns about a negative revisionHistoryLimit and prints READY', () => {
    const o = d.created(sts({ revisionHistoryLimit: -1, replicas: 3 }));
    assert.deepEqual(statefulSetResource.strategy.warnings!(o), ['spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended']);
    o.status = { replicas: 3, readyReplicas: 2 };
    assert.deepEqual(d.cells(o), { Name: 'db', Ready: '2/3', Age: '10m', Containers: 'nginx', Images: 'nginx:1.27' });
  });
});

describe('StatefulSet through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('apps/v1', 'statefulsets');

  it('creates with claim templates, scales, and refuses spec changes', async () => {
    const o = await api().create('default', sts({ volumeClaimTemplates: [claim] }));
    assert.equal(o.metadata.generation, 1);
    assert.deepEqual(o.status, { replicas: 0, availableReplicas: 0 });
    const sc = await api().update('default', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'db' }, spec: { replicas: 3 } }, { subresource: 'scale' });
    assert.deepEqual(sc.status, { replicas: 0, selector: 'app=db' });
    const e = await rejection(api().patch('default', 'db', 'merge', { spec: { serviceName: 'other' } }));
    assert.equal(e.code, 422);
    assert.match(e.message, /^StatefulSet\.apps "db" is invalid: spec: Forbidden: updates to statefulset spec/);
  });

  it('rejects names that are not DNS labels', async () => {
    const e = await rejection(api().create('default', sts({}, { name: 'db.v1' })));
    assert.equal(e.message, 'StatefulSet.apps "db.v1" is invalid: metadata.name: Invalid value: "db.v1": must not contain dots');
  });
});

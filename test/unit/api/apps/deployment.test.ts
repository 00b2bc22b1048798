import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deploymentResource } from '../../../../src/api/apps/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, template, type Obj } from './helpers.js';

const d = driver(deploymentResource);
const deploy = (spec: Obj = {}, m: Obj = {}): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web', m),
  spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec },
});
const spec = (o: KObject) => o.spec as Obj;

describe('Deployment definition', () => {
  it('has the kube names, scale paths and columns', () => {
    assert.equal(deploymentResource.plural, 'deployments');
    assert.deepEqual(deploymentResource.shortNames, ['deploy']);
    assert.deepEqual(deploymentResource.categories, ['all']);
    assert.equal(deploymentResource.hasGeneration, true);
    assert.deepEqual(deploymentResource.subresources?.scale, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' });
    assert.deepEqual(
      deploymentResource.columns.map((c) => `${c.name}:${c.type}:${c.priority ?? 0}`),
      ['Name:string:0', 'Ready:string:0', 'Up-to-date:string:0', 'Available:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
    );
    const patchStrategy = deploymentResource.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties!.strategy.patchStrategy;
    assert.equal(patchStrategy, 'retainKeys');
  });
});

describe('Deployment defaults', () => {
  it('fills replicas, strategy, history and deadline, and the template like a pod (minus Pod-only defaults)', () => {
    const o = d.created(deploy());
    const sp = spec(o);
    assert.equal(sp.replicas, 1);
    assert.deepEqual(sp.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(sp.revisionHistoryLimit, 10);
    assert.equal(sp.progressDeadlineSeconds, 600);
    assert.deepEqual(sp.template, {
      metadata: { labels: { app: 'web' }, creationTimestamp: null },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler',
      },
    });
    assert.deepEqual(o.status, {});
  });

  it('keeps explicit values, fills only the missing surge, and leaves Recreate without rollingUpdate', () => {
    const o = d.created(deploy({ replicas: 0, strategy: { rollingUpdate: { maxUnavailable: 2 } } }));
    assert.equal(spec(o).replicas, 0);
    assert.deepEqual(spec(o).strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: '25%' } });
    assert.deepEqual(spec(d.created(deploy({ strategy: { type: 'Recreate' } }))).strategy, { type: 'Recreate' });
  });

  it('does not copy limits into requests nor default enableServiceLinks or host ports in templates', () => {
    const tpl = template({ app: 'web' }, {
      hostNetwork: true,
      containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1' } }, ports: [{ containerPort: 80 }] }],
    });
    const c = (spec(d.created(deploy({ template: tpl }))).template as { spec: Obj }).spec;
    const ctr = (c.containers as Obj[])[0];
    assert.deepEqual(ctr.resources, { limits: { cpu: '1' } });
    assert.deepEqual(ctr.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.equal(c.enableServiceLinks, undefined);
    // and a template may leave hostPort unset under hostNetwork
    assert.deepEqual(d.errors(deploy({ template: tpl })), []);
  });
});

describe('Deployment validation', () => {
  it('requires a selector, which then cannot match the template', () => {
    assert.equal(
      d.message(deploy({ selector: undefined })),
      'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    );
  });

  it('rejects a selector that does not match the template labels', () => {
    assert.deepEqual(d.errors(deploy({ selector: { matchLabels: { app: 'other' } } })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('rejects an empty selector', () => {
    assert.deepEqual(d.errors(deploy({ selector: {} })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('reports a selector that cannot be parsed', () => {
    const errs = d.errors(deploy({ selector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] } }));
    assert.deepEqual(errs, [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", Values:[]string{}}}}: invalid label selector',
    ]);
  });

  it('validates the template as a pod template', () => {
    const tpl = template({ app: 'web' }, { restartPolicy: 'OnFailure', activeDeadlineSeconds: 5, containers: [{ name: 'c' }] });
    assert.deepEqual(d.errors(deploy({ template: tpl })), [
      'spec.template.spec.containers[0].image: Required value',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
    const bad = template({ 'bad key': 'v', app: 'web' });
    assert.ok(d.errors(deploy({ template: bad }))[0].startsWith('spec.template.labels: Invalid value: "bad key": name part must consist of'));
  });

  it('checks maxUnavailable and maxSurge', () => {
    const ru = (rollingUpdate: Obj) => d.errors(deploy({ strategy: { type: 'RollingUpdate', rollingUpdate } }));
    assert.deepEqual(ru({ maxUnavailable: 0, maxSurge: 0 }), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ]);
    assert.deepEqual(ru({ maxUnavailable: '0%', maxSurge: 0 }), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0',
    ]);
    assert.deepEqual(ru({ maxUnavailable: '25', maxSurge: -1 }), [
      "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"25\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0',
    ]);
    assert.deepEqual(ru({ maxUnavailable: '101%', maxSurge: '200%' }), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: must not be greater than 100%',
    ]);
  });

  it('checks the strategy type', () => {
    assert.deepEqual(d.errors(deploy({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } })), [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
    assert.deepEqual(d.errors(deploy({ strategy: { type: 'BlueGreen' } })), [
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  it('checks counts and the progress deadline', () => {
    assert.deepEqual(d.errors(deploy({ replicas: -1, minReadySeconds: 700, revisionHistoryLimit: -2 })), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
  });

  it('makes the selector immutable', () => {
    const old = d.created(deploy());
    assert.deepEqual(d.updateErrors(old, (o) => (spec(o).replicas = 3)), []);
    assert.deepEqual(
      d.updateErrors(old, (o) => {
        spec(o).selector = { matchLabels: { app: 'web', tier: 'x' } };
        (spec(o).template as { metadata: Obj }).metadata.labels = { app: 'web', tier: 'x' };
      }),
      ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    );
  });

  it('validates status updates', () => {
    const old = d.created(deploy());
    old.status = { collisionCount: 2 };
    assert.deepEqual(d.statusErrors(old, { replicas: 1, readyReplicas: 2, availableReplicas: 3, collisionCount: 1 }), [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });

  it('warns about names that are not DNS labels', () => {
    const w = deploymentResource.strategy.warnings!(d.created(deploy({}, { name: 'web.v1' })));
    assert.deepEqual(w, ['metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]']);
  });
});

describe('Deployment table', () => {
  it('prints READY, UP-TO-DATE, AVAILABLE and the wide columns', () => {
    const o = d.created(deploy({ replicas: 3, template: template({ app: 'web' }, { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'y:2' }] }) }));
    o.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 };
    assert.deepEqual(d.cells(o), { Name: 'web', Ready: '2/3', 'Up-to-date': 3, Available: 1, Age: '10m', Containers: 'a,b', Images: 'x:1,y:2', Selector: 'app=web' });
  });
});

describe('Deployment through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('apps/v1', 'deployments');

  it('creates with defaults, generation 1 and an empty status', async () => {
    const o = await api().create('default', { ...deploy(), status: { replicas: 9 } });
    assert.equal(o.metadata.generation, 1);
    assert.deepEqual(o.status, {});
    assert.equal(spec(o).progressDeadlineSeconds, 600);
  });

  it('answers 422 for an invalid deployment', async () => {
    const e = await rejection(api().create('default', deploy({ selector: undefined }, { name: 'nosel' })));
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.match(e.message, /^Deployment\.apps "nosel" is invalid: \[spec\.selector: Required value, /);
  });

  it('bumps the generation on spec changes, keeps status, and refuses selector changes', async () => {
    const cur = await api().get('default', 'web');
    const next = structuredClone(cur);
    spec(next).replicas = 2;
    next.status = { replicas: 5 };
    const upd = await api().update('default', next);
    assert.equal(upd.metadata.generation, 2);
    assert.deepEqual(upd.status, {});
    const moved = structuredClone(upd);
    spec(moved).selector = { matchLabels: { app: 'web', v: '2' } };
    (spec(moved).template as { metadata: Obj }).metadata.labels = { app: 'web', v: '2' };
    const e = await rejection(api().update('default', moved));
    assert.equal(e.code, 422);
    assert.match(e.message, /spec\.selector: Invalid value: v1\.LabelSelector\{.*\}: field is immutable/);
  });

  it('scales through the scale subresource and reports the selector', async () => {
    const sc = await api().update('default', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } }, { subresource: 'scale' });
    assert.deepEqual(sc.spec, { replicas: 4 });
    assert.deepEqual(sc.status, { replicas: 0, selector: 'app=web' });
    assert.equal(spec(await api().get('default', 'web')).replicas, 4);
  });

  it('updates status through the status subresource only', async () => {
    const cur = await api().get('default', 'web');
    const upd = await api().update('default', { ...cur, spec: { ...spec(cur), replicas: 1 }, status: { replicas: 4, readyReplicas: 0, terminatingReplicas: 1 } }, { subresource: 'status' });
    assert.deepEqual(upd.status, { replicas: 4 });
    assert.equal(spec(upd).replicas, 4);
  });

  it('accepts a strategic merge patch that switches to Recreate with $retainKeys', async () => {
    const upd = await api().patch('default', 'web', 'strategic', { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    assert.deepEqual(spec(upd).strategy, { type: 'Recreate' });
  });
});

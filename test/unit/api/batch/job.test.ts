import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobResource } from '../../../../src/api/batch/job/resource.js';
import type { Job } from '../../../../src/api/batch/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, podTemplate, rejection, type Cluster } from './helpers.js';

const st = jobResource.strategy;
const UID = '8f1b7a5e-0000-4000-8000-000000000001';

function job(spec: Record<string, unknown>, name = 'pi'): Job {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default', uid: UID }, spec } as Job;
}

/** Decode defaults and PrepareForCreate, as a POST does. */
function created(j: Job): Job {
  const o = structuredClone(j);
  st.defaults!(o);
  st.prepareForCreate!(o);
  return o;
}

const createErrors = (j: Job) => st.validate!(created(j)).map(String);

describe('Job defaults', () => {
  it('fills SetDefaults_Job and the pod template defaults', () => {
    const o = created(job({ template: podTemplate() }));
    const spec = o.spec!;
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.equal(spec.manualSelector, false);
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
    const tspec = spec.template!.spec!;
    assert.equal(tspec.dnsPolicy, 'ClusterFirst');
    assert.equal(tspec.terminationGracePeriodSeconds, 30);
    assert.equal(tspec.containers![0].imagePullPolicy, 'IfNotPresent');
    assert.equal(spec.template!.metadata!.creationTimestamp, null);
    assert.deepEqual(o.status, {});
  });

  it('defaults only parallelism when completions is set, and backoffLimit to MaxInt32 with backoffLimitPerIndex', () => {
    const o = created(job({ completions: 5, completionMode: 'Indexed', backoffLimitPerIndex: 1, template: podTemplate() }));
    assert.equal(o.spec!.completions, 5);
    assert.equal(o.spec!.parallelism, 1);
    assert.equal(o.spec!.backoffLimit, 2147483647);
  });

  it('uses Failed replacement with a pod failure policy and defaults pattern status to True', () => {
    const o = created(job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }, template: podTemplate() }));
    assert.equal(o.spec!.podReplacementPolicy, 'Failed');
    assert.equal(o.spec!.podFailurePolicy!.rules![0].onPodConditions![0].status, 'True');
  });

  it('generates the selector and the four template labels, and copies them to the job labels', () => {
    const o = created(job({ template: podTemplate() }));
    assert.deepEqual(o.spec!.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': UID } });
    assert.deepEqual(o.spec!.template!.metadata!.labels, {
      'batch.kubernetes.io/controller-uid': UID,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': UID,
      'job-name': 'pi',
    });
    assert.deepEqual(o.metadata.labels, o.spec!.template!.metadata!.labels);
  });

  it('keeps user template labels on the job when given', () => {
    const o = created(job({ template: { metadata: { labels: { app: 'x' } }, ...podTemplate() } }));
    assert.deepEqual(o.metadata.labels, { app: 'x' });
    assert.equal(o.spec!.template!.metadata!.labels!['job-name'], 'pi');
  });
});

describe('Job validation', () => {
  it('accepts a defaulted job', () => {
    assert.deepEqual(createErrors(job({ template: podTemplate() })), []);
  });

  it('requires restartPolicy OnFailure or Never', () => {
    assert.deepEqual(createErrors(job({ template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } })), [
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
  });

  it('reports negative counts and Indexed rules with Kubernetes messages', () => {
    const errs = createErrors(job({ parallelism: -1, backoffLimit: -2, completionMode: 'Indexed', template: podTemplate() }));
    assert.deepEqual(errs, [
      'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0',
      'spec.completions: Required value: when completion mode is Indexed',
    ]);
  });

  it('rejects a hand-made selector that does not match the template', () => {
    const j = job({ manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'c' } }, ...podTemplate() } });
    assert.deepEqual(createErrors(j), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"a":"c"}: `selector` does not match template `labels`',
    ]);
  });

  it('rejects a generated selector for another uid', () => {
    const j = job({ selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } }, template: podTemplate() });
    const errs = createErrors(j);
    assert.ok(errs.includes(
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
    ), errs.join('\n'));
  });

  it('validates pod failure policy rules', () => {
    const errs = createErrors(job({
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3, 0, 1] } }, { action: '' }] },
      template: podTemplate(),
    }));
    assert.deepEqual(errs, [
      'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 0, 1}: must be ordered',
      'spec.podFailurePolicy.rules[1].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
      'spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    ]);
  });

  it('validates success policies of Indexed jobs', () => {
    const errs = createErrors(job({
      completions: 5,
      completionMode: 'Indexed',
      successPolicy: { rules: [{ succeededIndexes: '0-2,1', succeededCount: 6 }] },
      template: podTemplate(),
    }));
    assert.deepEqual(errs, [
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2,1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
    ]);
  });

  it('checks the longest Indexed pod hostname', () => {
    const errs = createErrors(job({ completions: 10, completionMode: 'Indexed', template: podTemplate() }, 'a'.repeat(62)));
    assert.ok(errs.includes(`metadata.name: Invalid value: "${'a'.repeat(62)}": will not able to create pod with invalid DNS label: ${'a'.repeat(62)}-9`));
  });

  it('warns about names that are not DNS labels', () => {
    assert.deepEqual(st.warnings!(created(job({ template: podTemplate() }, 'a.b'))), [
      "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
    ]);
  });
});

describe('Job update rules', () => {
  const stored = (): Job => ({ ...created(job({ template: podTemplate() })), metadata: { ...created(job({ template: podTemplate() })).metadata, resourceVersion: '5' } });

  it('keeps the template and selector immutable', () => {
    const old = stored();
    const next = structuredClone(old);
    next.spec!.template!.spec!.containers![0].image = 'busybox:2';
    next.spec!.completions = 3;
    assert.deepEqual(st.validateUpdate!(next, old).map(String), [
      'spec.completions: Invalid value: 3: field is immutable',
      'spec.template: Invalid value: core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{...}, Spec:core.PodSpec{...}}: field is immutable',
    ]);
  });

  it('lets a never-started suspended job change its node selector', () => {
    const old = stored();
    old.spec!.suspend = true;
    const next = structuredClone(old);
    next.spec!.template!.spec!.nodeSelector = { zone: 'a' };
    assert.deepEqual(st.validateUpdate!(next, old), []);
    const running = structuredClone(old);
    running.spec!.suspend = false;
    const moved = structuredClone(running);
    moved.spec!.template!.spec!.nodeSelector = { zone: 'a' };
    assert.equal(st.validateUpdate!(moved, running).length, 1);
  });

  it('validates status transitions', () => {
    const old = stored();
    old.status = { failed: 2, conditions: [{ type: 'Failed', status: 'True' }], startTime: '2024-01-01T00:00:00Z' };
    const next = structuredClone(old);
    next.status = { failed: 1, startTime: '2024-01-01T00:00:00Z' };
    assert.deepEqual(st.validateStatusUpdate!(next, old).map(String), [
      'status.conditions: Invalid value: cannot disable the terminal Failed=True condition',
      'status.failed: Invalid value: 1: cannot decrease the failed counter',
    ]);
  });
});

describe('Job table', () => {
  it('prints NAME STATUS COMPLETIONS DURATION AGE and the wide columns', () => {
    const o = created(job({ template: podTemplate() }));
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    o.status = { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:07Z', conditions: [{ type: 'Complete', status: 'True' }] };
    const now = Date.parse('2024-01-01T00:05:00Z');
    assert.deepEqual(jobResource.columns.map((c) => [c.name, c.priority ?? 0]), [
      ['Name', 0], ['Status', 0], ['Completions', 0], ['Duration', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
    assert.deepEqual(jobResource.columns.map((c) => c.cell(o, { now })), [
      'pi', 'Complete', '1/1', '7s', '5m', 'c', 'busybox:1.36', `batch.kubernetes.io/controller-uid=${UID}`,
    ]);
    const running = created(job({ parallelism: 3, completions: null, template: podTemplate() }));
    running.spec!.completions = null;
    assert.equal(jobResource.columns[1].cell(running, { now }), 'Running');
    assert.equal(jobResource.columns[2].cell(running, { now }), '0/1 of 3');
    assert.equal(jobResource.columns[3].cell(running, { now }), '');
  });
});

describe('Job through the API', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster([jobResource]);
  });
  after(async () => c.close());

  it('creates with defaults, generation 1 and an empty status', async () => {
    const jobs = c.client.resource('batch/v1', 'jobs');
    const o = (await jobs.create('default', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: podTemplate() } } as KObject)) as Job;
    assert.equal(o.metadata.generation, 1);
    assert.equal(o.spec!.backoffLimit, 6);
    assert.equal(o.metadata.labels!['job-name'], 'pi');
    assert.equal(o.spec!.selector!.matchLabels!['batch.kubernetes.io/controller-uid'], o.metadata.uid);
    assert.deepEqual(o.status, {});
    const listed = await jobs.list('default', { fieldSelector: 'status.successful=0' });
    assert.equal(listed.items.length, 1);
  });

  it('rejects an invalid job with a 422', async () => {
    const jobs = c.client.resource('batch/v1', 'jobs');
    const err = await rejection(jobs.create('default', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'bad' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } } as KObject));
    assert.equal(err.code, 422);
    assert.equal(err.message, 'Job.batch "bad" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
  });

  it('refuses a template change and keeps status on spec updates', async () => {
    const jobs = c.client.resource('batch/v1', 'jobs');
    const cur = (await jobs.get('default', 'pi')) as Job;
    const next = structuredClone(cur);
    next.spec!.template!.spec!.containers![0].image = 'other';
    const err = await rejection(jobs.update('default', next));
    assert.equal(err.code, 422);
    assert.match(err.message, /spec\.template: Invalid value: .*: field is immutable/);
    const withStatus = structuredClone(cur);
    withStatus.status = { active: 1 };
    const up = (await jobs.update('default', withStatus, { subresource: 'status' })) as Job;
    assert.equal(up.status!.active, 1);
    const labelled = structuredClone(up);
    labelled.metadata.annotations = { a: 'b' };
    labelled.status = {};
    const kept = (await jobs.update('default', labelled)) as Job;
    assert.equal(kept.status!.active, 1);
    assert.equal(kept.metadata.generation, 1);
  });
});

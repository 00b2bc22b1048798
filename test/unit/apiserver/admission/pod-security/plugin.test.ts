// The PodSecurity plugin in a cluster: enforce on pod writes, warnings for pods and templates, namespace labels,
// the existing-pods warnings of a stricter enforce level, and exemptions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../../../src/apiserver/admission/chain.js';
import { DEFAULT_POD_SECURITY_CONFIG, type PodSecurityConfig } from '../../../../../src/apiserver/admission/pod-security/config.js';
import { podSecurityAdmission } from '../../../../../src/apiserver/admission/pod-security/plugin.js';
import { newContext } from '../../../../../src/apiserver/context.js';
import { StatusError } from '../../../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from '../../../controllers/harness.js';
import { restrictedSpec } from './fixtures.js';

const pod = (name: string, ns: string, spec: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec }) as KObject;
const bare = { containers: [{ name: 'c', image: 'nginx' }] };

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a refusal');
}

describe('PodSecurity admission', () => {
  let c: ControllerCluster;
  const ns = async (name: string, labels: Record<string, string>) => {
    await c.client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } as KObject);
    await c.waitFor(`default ServiceAccount in ${name}`, () => c.client.resource('v1', 'serviceaccounts').get(name, 'default').catch(() => undefined));
  };

  before(async () => {
    c = await controllerCluster([]);
    await ns('strict', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await ns('watched', { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/warn-version': 'v1.33' });
  });
  after(async () => c.close());

  /** Runs the plugin alone (the chain's warnings stay in the request context) and returns the warnings. */
  const warningsOf = async (attrs: Omit<AdmissionAttributes, 'ctx' | 'store'> & { plural: string; group?: string }, config: PodSecurityConfig = DEFAULT_POD_SECURITY_CONFIG, user = 'alice') => {
    const plugin = podSecurityAdmission({ namespaces: () => c.registry.mustLookup('', 'v1', 'namespaces'), pods: () => c.registry.mustLookup('', 'v1', 'pods'), config });
    const ctx = newContext({ name: user, groups: [] });
    const store = c.registry.mustLookup(attrs.group ?? '', 'v1', attrs.plural);
    await plugin.admit({ ...attrs, ctx, store });
    return ctx.warnings;
  };

  it('refuses a pod that violates the enforce level, with kube\'s message', async () => {
    const e = await refusal(c.client.resource('v1', 'pods').create('strict', pod('x', 'strict', bare)));
    assert.equal(e.code, 403);
    assert.equal(
      e.message,
      'pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    await c.client.resource('v1', 'pods').create('strict', pod('ok', 'strict', restrictedSpec() as Record<string, unknown>));
  });

  it('warns on pods and templates at the warn level, never refusing templates', async () => {
    const w = await warningsOf({ plural: 'pods', operation: 'CREATE', object: pod('h', 'watched', { ...bare, hostNetwork: true }), namespace: 'watched' });
    assert.deepEqual(w, ['would violate PodSecurity "baseline:v1.33": host namespaces (hostNetwork=true)']);
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'strict' },
      spec: { selector: {}, template: { metadata: {}, spec: { ...bare, hostPID: true } } },
    } as KObject;
    // enforce=restricted also warns at restricted (warn defaults to privileged): templates are only warned about
    const none = await warningsOf({ group: 'apps', plural: 'deployments', operation: 'CREATE', object: deployment, namespace: 'strict' });
    assert.deepEqual(none, []);
    const cron = {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'j', namespace: 'watched' },
      spec: { jobTemplate: { spec: { template: { spec: { ...bare, volumes: [{ name: 'h', hostPath: { path: '/' } }] } } } } },
    } as KObject;
    assert.deepEqual(await warningsOf({ group: 'batch', plural: 'cronjobs', operation: 'CREATE', object: cron, namespace: 'watched' }), [
      'would violate PodSecurity "baseline:v1.33": hostPath volumes (volume "h")',
    ]);
  });

  it('re-evaluates pod updates only when a checked part changes', async () => {
    const old = pod('u', 'watched', { ...bare, hostNetwork: true });
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } } as KObject;
    assert.deepEqual(await warningsOf({ plural: 'pods', operation: 'UPDATE', object: relabelled, old, namespace: 'watched' }), []);
    const newImage = pod('u', 'watched', { containers: [{ name: 'c', image: 'nginx:2' }], hostNetwork: true });
    assert.equal((await warningsOf({ plural: 'pods', operation: 'UPDATE', object: newImage, old, namespace: 'watched' })).length, 1);
    const debug = pod('u', 'watched', { ...bare, hostNetwork: true, ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] });
    assert.equal((await warningsOf({ plural: 'pods', operation: 'UPDATE', subresource: 'ephemeralcontainers', object: debug, old, namespace: 'watched' })).length, 1);
    assert.deepEqual(await warningsOf({ plural: 'pods', operation: 'UPDATE', subresource: 'status', object: debug, old, namespace: 'watched' }), []);
  });

  it('rejects invalid labels on create, and on update only when they change', async () => {
    const e = await refusal(ns('bad', { 'pod-security.kubernetes.io/enforce': 'strictest' }));
    assert.equal(e.code, 422);
    assert.equal(e.message, 'Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strictest": must be one of privileged, baseline, restricted');
    const old = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'legacy', labels: { 'pod-security.kubernetes.io/warn-version': '1.0' } } } as KObject;
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { ...old.metadata.labels, team: 'a' } } } as KObject;
    assert.deepEqual(await warningsOf({ plural: 'namespaces', operation: 'UPDATE', object: relabelled, old, namespace: 'legacy' }), []);
  });

  it('warns about existing pods when the enforce level is raised', async () => {
    await ns('live', {});
    for (const name of ['b', 'a', 'c']) await c.client.resource('v1', 'pods').create('live', pod(name, 'live', bare));
    await c.client.resource('v1', 'pods').create('live', pod('h', 'live', { ...bare, hostIPC: true }));
    const old = await c.client.resource('v1', 'namespaces').get('', 'live');
    const raised = { ...old, metadata: { ...old.metadata, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } } as KObject;
    assert.deepEqual(await warningsOf({ plural: 'namespaces', operation: 'UPDATE', object: raised, old, namespace: 'live' }), [
      'existing pods in namespace "live" violate the new PodSecurity enforce level "baseline:latest"',
      'h: host namespaces',
    ]);
    const strict = { ...old, metadata: { ...old.metadata, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } as KObject;
    assert.deepEqual(await warningsOf({ plural: 'namespaces', operation: 'UPDATE', object: strict, old, namespace: 'live' }), [
      'existing pods in namespace "live" violate the new PodSecurity enforce level "restricted:latest"',
      'a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'h: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // relaxing at the same version checks nothing
    assert.deepEqual(await warningsOf({ plural: 'namespaces', operation: 'UPDATE', object: raised, old: strict, namespace: 'live' }), []);
  });

  it('honours the configured defaults and exemptions', async () => {
    const config: PodSecurityConfig = {
      defaults: { ...DEFAULT_POD_SECURITY_CONFIG.defaults, warn: { level: 'restricted', version: { minor: 0, latest: true } } },
      exemptions: { namespaces: ['free'], usernames: ['root'], runtimeClasses: ['kata'] },
    };
    const p = pod('p', 'watched', bare);
    // the namespace's own warn label wins over the default
    assert.equal((await warningsOf({ plural: 'pods', operation: 'CREATE', object: p, namespace: 'watched' }, config)).length, 0);
    await ns('plain', {});
    const w = await warningsOf({ plural: 'pods', operation: 'CREATE', object: pod('p', 'plain', bare), namespace: 'plain' }, config);
    assert.match(w[0], /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    assert.deepEqual(await warningsOf({ plural: 'pods', operation: 'CREATE', object: pod('p', 'plain', bare), namespace: 'plain' }, config, 'root'), []);
    assert.deepEqual(await warningsOf({ plural: 'pods', operation: 'CREATE', object: pod('p', 'plain', { ...bare, runtimeClassName: 'kata' }), namespace: 'plain' }, config), []);
    await ns('free', {});
    assert.deepEqual(await warningsOf({ plural: 'pods', operation: 'CREATE', object: pod('p', 'free', bare), namespace: 'free' }, config), []);
  });
});

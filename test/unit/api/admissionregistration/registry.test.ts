import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { admissionregistrationDefinitions, admissionregistrationResources } from '../../../../src/api/admissionregistration/index.js';
import { protoTags } from '../../../../src/api/proto-tags/index.js';
import { authExtraProtoTags } from '../../../../src/api/proto-tags/admission-apiextensions.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { decodeK8sProtobuf } from '../../../../src/machinery/protobuf/decode.js';
import { SchemaSet } from '../../../../src/machinery/schema.js';
import { cat, envelope, len, vint } from '../../machinery/protobuf/helpers.js';

const AR = 'admissionregistration.k8s.io/v1';
const hook = {
  name: 'pods.check.example.com',
  clientConfig: { url: 'https://hooks.example.com/pods' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};

describe('admissionregistration through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...admissionregistrationResources], [metaDefinitions, coreDefinitions]);
    client = new LocalClient(registry);
    await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    await store.close();
  });

  it('stores a defaulted ValidatingWebhookConfiguration and bumps generation on webhook changes only', async () => {
    const vwcs = client.resource(AR, 'validatingwebhookconfigurations');
    const c = await vwcs.create('', { apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'pods' }, webhooks: [hook] });
    assert.equal(c.metadata.generation, 1);
    assert.deepEqual((c.webhooks as unknown[])[0], {
      ...hook,
      rules: [{ ...hook.rules[0], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
    });
    const labelled = await vwcs.update('', { ...c, metadata: { ...c.metadata, labels: { a: 'b' } } });
    assert.equal(labelled.metadata.generation, 1);
    const changed = await vwcs.update('', { ...labelled, webhooks: [{ ...hook, timeoutSeconds: 5 }] });
    assert.equal(changed.metadata.generation, 2);
    await assert.rejects(
      vwcs.create('', { apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bad' }, webhooks: [{ ...hook, sideEffects: 'Some' }] }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        e.message ===
          'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
  });

  it('defaults reinvocationPolicy for mutating webhooks and refuses create on PUT', async () => {
    const mwcs = client.resource(AR, 'mutatingwebhookconfigurations');
    const c = await mwcs.create('', { apiVersion: AR, kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks: [hook] });
    assert.equal((c.webhooks as Array<Record<string, unknown>>)[0].reinvocationPolicy, 'Never');
    await assert.rejects(mwcs.update('', { apiVersion: AR, kind: 'MutatingWebhookConfiguration', metadata: { name: 'new' } }), (e: unknown) => e instanceof StatusError && e.code === 404);
  });

  it('stores policies with an empty status that main-resource updates keep', async () => {
    const vaps = client.resource(AR, 'validatingadmissionpolicies');
    const p = await vaps.create('', {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'max-replicas' },
      spec: { matchConstraints: { resourceRules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] },
      status: { observedGeneration: 9 },
    });
    assert.deepEqual(p.status, {});
    assert.equal(p.metadata.generation, 1);
    assert.equal((p.spec as { failurePolicy: string }).failurePolicy, 'Fail');
    const withStatus = await vaps.update('', { ...p, status: { observedGeneration: 1 } }, { subresource: 'status' });
    assert.deepEqual(withStatus.status, { observedGeneration: 1 });
    const updated = await vaps.update('', { ...withStatus, spec: { ...(withStatus.spec as object), failurePolicy: 'Ignore' }, status: {} });
    assert.deepEqual(updated.status, { observedGeneration: 1 });
    assert.equal(updated.metadata.generation, 2);

    const binding = await client.resource(AR, 'validatingadmissionpolicybindings').create('', {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'max-replicas' },
      spec: { policyName: 'max-replicas', validationActions: ['Deny'] },
    });
    assert.equal(binding.metadata.generation, 1);
  });
});

describe('admissionregistration protobuf bodies', () => {
  it('decodes a ValidatingWebhookConfiguration with the inline Rule of a RuleWithOperations', () => {
    const schemas = new SchemaSet(metaDefinitions, admissionregistrationDefinitions);
    const rule = cat(len(1, 'CREATE'), len(2, cat(len(1, ''), len(2, 'v1'), len(3, 'pods'), len(4, 'Namespaced'))));
    const webhook = cat(len(1, 'a.b.c'), len(2, len(3, 'https://x.example.com')), len(3, rule), len(6, 'None'), vint(7, 0), len(8, 'v1'));
    const raw = cat(len(1, len(1, 'cfg')), len(2, webhook));
    const obj = decodeK8sProtobuf(envelope(AR, 'ValidatingWebhookConfiguration', raw), schemas, { ...protoTags, ...authExtraProtoTags }, (av, kind) =>
      av === AR && kind === 'ValidatingWebhookConfiguration' ? 'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration' : undefined,
    );
    assert.deepEqual(obj, {
      kind: 'ValidatingWebhookConfiguration',
      apiVersion: AR,
      metadata: { name: 'cfg' },
      webhooks: [
        {
          name: 'a.b.c',
          clientConfig: { url: 'https://x.example.com' },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
          sideEffects: 'None',
          timeoutSeconds: 0,
          admissionReviewVersions: ['v1'],
        },
      ],
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { apiextensionsResources } from '../../../../src/api/apiextensions/index.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import type { KObject } from '../../../../src/api/types.js';

const X = 'apiextensions.k8s.io/v1';
const crontab = (): KObject => ({
  apiVersion: X,
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { cronSpec: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer', default: 1 } },
                'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'at most 10' }],
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
      },
    ],
  },
});

describe('CustomResourceDefinition through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...apiextensionsResources], [metaDefinitions, coreDefinitions]);
    client = new LocalClient(registry);
    await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    await store.close();
  });

  it('creates a CRD with defaults and an accepted, established status', async () => {
    const crds = client.resource(X, 'customresourcedefinitions');
    const c = await crds.create('', { ...crontab(), status: { storedVersions: ['v0'] } });
    assert.equal(c.metadata.generation, 1);
    const spec = c.spec as Record<string, Record<string, unknown>>;
    assert.equal(spec.names.listKind, 'CronTabList');
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    const status = c.status as { acceptedNames: unknown; storedVersions: string[]; conditions: Array<Record<string, string>> };
    assert.deepEqual(status.storedVersions, ['v1']);
    assert.deepEqual(status.acceptedNames, { kind: 'CronTab', listKind: 'CronTabList', plural: 'crontabs', shortNames: ['ct'], singular: 'crontab' });
    assert.deepEqual(
      status.conditions.map((x) => [x.type, x.status, x.reason]),
      [
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ],
    );
    const got = await crds.get('', 'crontabs.stable.example.com');
    assert.deepEqual(got.status, c.status);
  });

  it('adds a new storage version to storedVersions and bumps generation on spec changes', async () => {
    const crds = client.resource(X, 'customresourcedefinitions');
    const c = await crds.get('', 'crontabs.stable.example.com');
    const v1 = (c.spec as { versions: Array<Record<string, unknown>> }).versions[0];
    const next = { ...c, spec: { ...(c.spec as object), versions: [{ ...v1, storage: false }, { ...v1, name: 'v2', storage: true }] } };
    const u = await crds.update('', next);
    assert.equal(u.metadata.generation, 2);
    assert.deepEqual((u.status as { storedVersions: string[] }).storedVersions, ['v1', 'v2']);
    await assert.rejects(
      crds.update('', { ...u, spec: { ...(u.spec as object), versions: [{ ...v1, name: 'v2', storage: true }] } }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.message.startsWith('CustomResourceDefinition.apiextensions.k8s.io "crontabs.stable.example.com" is invalid: status.storedVersions[0]: Invalid value: "v1": missing from spec.versions'),
    );
  });

  it('rejects invalid CRDs with Kubernetes field paths', async () => {
    const bad = crontab();
    (bad.spec as Record<string, unknown>).scope = 'Galaxy';
    bad.metadata.name = 'tabs.stable.example.com';
    await assert.rejects(client.resource(X, 'customresourcedefinitions').create('', bad), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 422);
      assert.equal(
        e.message,
        'CustomResourceDefinition.apiextensions.k8s.io "tabs.stable.example.com" is invalid: [metadata.name: Invalid value: "tabs.stable.example.com": must be spec.names.plural+"."+spec.group, spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"]',
      );
      return true;
    });
  });

  it('lists with field selectors on metadata.name; delete starts the custom-resource cleanup', async () => {
    const crds = client.resource(X, 'customresourcedefinitions');
    const l = await crds.list('', { fieldSelector: 'metadata.name=crontabs.stable.example.com' });
    assert.equal(l.items.length, 1);
    await crds.delete('', 'crontabs.stable.example.com');
    // the CRD stays until its objects are gone (apiserver/customresources removes the finalizer)
    const left = await crds.get('', 'crontabs.stable.example.com');
    assert.ok(left.metadata.deletionTimestamp);
    assert.deepEqual(left.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    const conds = (left.status as { conditions: Array<{ type: string; status: string; reason: string }> }).conditions;
    assert.deepEqual(
      conds.filter((c) => c.type === 'Terminating').map((c) => [c.status, c.reason]),
      [['True', 'InstanceDeletionInProgress']],
    );
  });
});

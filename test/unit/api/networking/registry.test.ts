import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { networkingDefinitions, networkingResources } from '../../../../src/api/networking/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

const invalid = (message: string) => (e: unknown) => e instanceof StatusError && e.code === 422 && e.reason === 'Invalid' && e.message === message;

describe('networking.k8s.io/v1 through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...networkingResources], [metaDefinitions, coreDefinitions, networkingDefinitions]);
    client = new LocalClient(registry);
    await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(() => store.close());

  it('creates, updates and reports status of an Ingress', async () => {
    const ing = client.resource('networking.k8s.io/v1', 'ingresses');
    const created = await ing.create('default', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web' },
      spec: { rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    });
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, { loadBalancer: {} });

    // status is ignored on the main resource; spec changes bump the generation
    const spec = { ...(created.spec as object), ingressClassName: 'nginx' };
    const updated = await ing.update('default', { ...created, spec, status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } } });
    assert.equal(updated.metadata.generation, 2);
    assert.deepEqual(updated.status, { loadBalancer: {} });

    const withStatus = await ing.update('default', { ...updated, status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } } }, { subresource: 'status' });
    assert.deepEqual(withStatus.status, { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } });
    assert.equal(withStatus.metadata.generation, 2);

    await assert.rejects(
      ing.update('default', { ...withStatus, status: { loadBalancer: { ingress: [{ hostname: '192.0.2.9' }] } } }, { subresource: 'status' }),
      invalid('Ingress.networking.k8s.io "web" is invalid: status.loadBalancer.ingress[0].hostname: Invalid value: "192.0.2.9": must be a DNS name, not an IP address'),
    );
  });

  it('rejects an Ingress path without pathType', async () => {
    await assert.rejects(
      client.resource('networking.k8s.io/v1', 'ingresses').create('default', {
        metadata: { name: 'bad' },
        spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
      }),
      invalid('Ingress.networking.k8s.io "bad" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified'),
    );
  });

  it('defaults IngressClass parameters and keeps the controller immutable', async () => {
    const ic = client.resource('networking.k8s.io/v1', 'ingressclasses');
    const created = await ic.create('', {
      metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } },
    });
    assert.equal((created.spec as { parameters: { scope: string } }).parameters.scope, 'Cluster');
    assert.equal(created.metadata.namespace, undefined);
    await assert.rejects(
      ic.update('', { ...created, spec: { controller: 'example.com/other' } }),
      invalid('IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable'),
    );
  });

  it('defaults a NetworkPolicy and bumps its generation on spec changes only', async () => {
    const np = client.resource('networking.k8s.io/v1', 'networkpolicies');
    const created = await np.create('default', {
      metadata: { name: 'allow-dns' },
      spec: { podSelector: { matchLabels: { app: 'web' } }, egress: [{ ports: [{ port: 53 }] }] },
    });
    assert.deepEqual(created.spec, {
      podSelector: { matchLabels: { app: 'web' } },
      egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }],
      policyTypes: ['Ingress', 'Egress'],
    });
    assert.equal(created.metadata.generation, 1);
    const relabelled: KObject = await np.update('default', { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    assert.equal(relabelled.metadata.generation, 1);
    await assert.rejects(
      np.update('default', { ...relabelled, spec: { ...(relabelled.spec as object), ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/8'] } }] }] } }),
      invalid('NetworkPolicy.networking.k8s.io "allow-dns" is invalid: spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "11.0.0.0/8": must be a strict subset of `cidr`'),
    );
    const list = await np.list('default', { fieldSelector: 'metadata.name=allow-dns' });
    assert.equal(list.items.length, 1);
  });
});

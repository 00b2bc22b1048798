import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  compareGroups,
  compareVersions,
  discoveryETag,
  discoveryVariant,
  GROUP_PRIORITY,
  groupVersions,
  storageVersionHash,
} from '../../../src/apiserver/discovery/documents.js';
import { resources } from './openapi-fixtures.js';

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** client-go's SplitGroupsAndResources (aggregated_discovery.go): what a client makes of an aggregated list. */
function splitLikeClientGo(list: J): Map<string, J[]> {
  const out = new Map<string, J[]>();
  for (const g of list.items) {
    for (const v of g.versions) {
      const gv = g.metadata.name ? `${g.metadata.name}/${v.version}` : v.version;
      const rs: J[] = [];
      for (const r of v.resources) {
        const parent = { name: r.resource, singularName: r.singularResource, namespaced: r.scope === 'Namespaced', ...r.responseKind, verbs: r.verbs };
        if (r.shortNames) parent.shortNames = r.shortNames;
        if (r.categories) parent.categories = r.categories;
        rs.push(parent);
        for (const sr of r.subresources ?? [])
          rs.push({ name: `${r.resource}/${sr.subresource}`, singularName: r.singularResource, namespaced: parent.namespaced, ...sr.responseKind, verbs: sr.verbs });
      }
      out.set(gv, rs);
    }
  }
  return out;
}

describe('discovery ordering', () => {
  it('orders versions as kube does: GA, beta, alpha, newest first, others last', () => {
    const vs = ['v1alpha1', 'v2', 'foo', 'v1beta2', 'v1', 'v1beta1', 'v10', 'bar'];
    assert.deepEqual(vs.sort(compareVersions), ['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
  });

  it('orders groups by kube priority, then alphabetically', () => {
    assert.deepEqual(['zeta.io', 'batch', 'apps', '', 'alpha.io', 'rbac.authorization.k8s.io'].sort(compareGroups), ['', 'apps', 'batch', 'rbac.authorization.k8s.io', 'alpha.io', 'zeta.io']);
    assert.equal(GROUP_PRIORITY[0], '');
    assert.equal(GROUP_PRIORITY.at(-1), 'resource.k8s.io');
    assert.deepEqual(groupVersions(resources), [{ group: '', versions: ['v1'] }, { group: 'example.com', versions: ['v1', 'v1beta1'] }]);
  });

  it("computes kube's storage version hash", () => {
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
  });
});

describe('legacy discovery', () => {
  it('serves /api and /apis', () => {
    assert.deepEqual(apiVersions('10.0.0.1:6443'), { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }] });
    const gv = (v: string) => ({ groupVersion: `example.com/${v}`, version: v });
    assert.deepEqual(apiGroupList(resources), {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [{ name: 'example.com', versions: [gv('v1'), gv('v1beta1')], preferredVersion: gv('v1') }],
    });
    assert.equal(apiGroup(resources, 'example.com')?.kind, 'APIGroup');
    assert.equal(apiGroup(resources, 'nope'), undefined);
  });

  it('lists resources with subresources, sorted by name', () => {
    const l = apiResourceList(resources, 'example.com', 'v1');
    assert.equal(l.groupVersion, 'example.com/v1');
    assert.deepEqual(l.resources.map((r) => r.name), ['toys', 'toys/scale', 'toys/status']);
    assert.deepEqual(l.resources[0], {
      name: 'toys',
      singularName: 'toy',
      namespaced: true,
      kind: 'Toy',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ty'],
      categories: ['all'],
      storageVersionHash: storageVersionHash('example.com', 'v1', 'Toy'),
    });
    assert.deepEqual(l.resources[1], { name: 'toys/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    assert.deepEqual(l.resources[2], { name: 'toys/status', singularName: '', namespaced: true, kind: 'Toy', verbs: ['get', 'patch', 'update'] });
    const core = apiResourceList(resources, '', 'v1');
    assert.equal(core.groupVersion, 'v1');
    assert.deepEqual(core.resources.map((r) => [r.name, r.namespaced, r.verbs]), [['widgets', false, ['create', 'delete', 'get', 'list', 'watch']]]);
    assert.deepEqual(apiResourceList(resources, 'example.com', 'v9').resources, []);
  });
});

describe('aggregated discovery', () => {
  it('negotiates the variant from Accept', () => {
    assert.deepEqual(discoveryVariant(KUBECTL_ACCEPT), { version: 'v2', contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    assert.equal(discoveryVariant('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json')?.version, 'v2beta1');
    assert.equal(discoveryVariant('application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io;profile=nopeer')?.version, 'v2');
    assert.equal(discoveryVariant('application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList')?.version, 'v2beta1');
    for (const plain of [undefined, '', 'application/json', '*/*', 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json', 'application/json;q=0.5;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'])
      assert.equal(discoveryVariant(plain), undefined, String(plain));
  });

  it('lists named groups at /apis with versions, kinds, scopes and subresources', () => {
    for (const v of ['v2', 'v2beta1'] as const) {
      const l = aggregatedDiscovery(resources, 'apis', v) as J;
      assert.equal(l.kind, 'APIGroupDiscoveryList');
      assert.equal(l.apiVersion, `apidiscovery.k8s.io/${v}`);
      assert.deepEqual(l.items.map((g: J) => g.metadata.name), ['example.com']);
      assert.deepEqual(l.items[0].versions.map((x: J) => [x.version, x.freshness]), [['v1', 'Current'], ['v1beta1', 'Current']]);
      assert.deepEqual(l.items[0].versions[0].resources[0], {
        resource: 'toys',
        responseKind: { group: 'example.com', kind: 'Toy', version: 'v1' },
        scope: 'Namespaced',
        singularResource: 'toy',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ty'],
        categories: ['all'],
        subresources: [
          { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
          { subresource: 'status', responseKind: { group: 'example.com', kind: 'Toy', version: 'v1' }, verbs: ['get', 'patch', 'update'] },
        ],
      });
    }
  });

  it('lists the core group at /api with an empty name', () => {
    const l = aggregatedDiscovery(resources, 'api') as J;
    assert.equal(l.items.length, 1);
    assert.equal(l.items[0].metadata.name, undefined);
    assert.deepEqual(l.items[0].versions[0].resources.map((r: J) => [r.resource, r.scope]), [['widgets', 'Cluster']]);
  });

  it('means to clients what the legacy documents say', () => {
    const split = new Map([...splitLikeClientGo(aggregatedDiscovery(resources, 'api')), ...splitLikeClientGo(aggregatedDiscovery(resources, 'apis'))]);
    for (const [gv, got] of split) {
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      const legacy = apiResourceList(resources, group, version).resources.map((r: J) => {
        const { storageVersionHash: _h, ...rest } = r;
        void _h;
        // legacy discovery leaves subresources' singularName empty; client-go fills in the parent's.
        return { ...rest, singularName: rest.singularName || (rest.name as string).split('/')[0].replace(/s$/, ''), ...(rest.group === undefined ? { group, version } : {}) };
      });
      const norm = (xs: J[]) => xs.map((x) => JSON.stringify(Object.fromEntries(Object.entries(x).sort()))).sort();
      assert.deepEqual(norm(got), norm(legacy), gv);
    }
    assert.match(discoveryETag('{}'), /^"[0-9A-F]{128}"$/);
  });
});

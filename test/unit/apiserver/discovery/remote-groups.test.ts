// Remote groups in the discovery documents: their place among the local ones, their versions and staleness.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeAggregated, mergeGroupList, toAggregatedResources, type RemoteGroup } from '../../../../src/apiserver/discovery/remote-groups.js';

const local = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: ['apps', 'a.example.com', 'z.example.com'].map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } })),
};
const remote: RemoteGroup[] = [
  { name: 'metrics.example.com', priority: 100, versions: [{ version: 'v1beta1', versionPriority: 100, stale: true }] },
  { name: 'high.example.com', priority: 2000, versions: [{ version: 'v2', versionPriority: 20, stale: false, resources: [{ name: 'things', namespaced: true, kind: 'Thing', verbs: ['get'] }] }, { version: 'v1', versionPriority: 10, stale: false }] },
];

describe('remote groups in discovery', () => {
  it('orders /apis by group priority after the built-in groups', () => {
    const merged = mergeGroupList(local, remote);
    assert.deepEqual(merged.groups.map((g) => g.name), ['apps', 'high.example.com', 'a.example.com', 'z.example.com', 'metrics.example.com']);
    assert.deepEqual(merged.groups[1]!.preferredVersion, { groupVersion: 'high.example.com/v2', version: 'v2' });
    assert.equal(mergeGroupList(local, []), local);
  });

  it('marks unavailable versions Stale in aggregated discovery', () => {
    const doc = mergeAggregated({ kind: 'APIGroupDiscoveryList', items: [{ metadata: { name: 'apps' }, versions: [] }] }, remote);
    assert.deepEqual(doc.items.map((i) => i.metadata.name), ['apps', 'high.example.com', 'metrics.example.com']);
    const metrics = doc.items[2] as unknown as { versions: { freshness: string; resources: unknown[] }[] };
    assert.deepEqual(metrics.versions, [{ version: 'v1beta1', resources: [], freshness: 'Stale' }]);
  });

  it('converts a legacy resource list, subresources under their resource', () => {
    assert.deepEqual(
      toAggregatedResources([
        { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] },
        { name: 'flunders/status', namespaced: true, kind: 'Flunder', verbs: ['get'] },
      ]),
      [{
        resource: 'flunders', responseKind: { group: '', version: '', kind: 'Flunder' }, scope: 'Namespaced', singularResource: 'flunder', verbs: ['get', 'list'], shortNames: ['fl'],
        subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Flunder' }, verbs: ['get'] }],
      }],
    );
  });
});

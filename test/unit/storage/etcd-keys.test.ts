// k1s keys ↔ etcd keys: kube's layout for the built-in resources, kept as it is for dotted groups, under _k1s/ for
// the rest; each translation one way and back, and one etcd range exactly when a prefix stays within one of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyLayout, prefixEnd } from '../../../src/storage/etcd/keys.js';

describe('KeyLayout', () => {
  const l = new KeyLayout();

  it("maps k1s' keys to kube-apiserver's etcd keys and back", () => {
    const cases: [string, string][] = [
      ['/registry/core/pods/default/p', '/registry/pods/default/p'],
      ['/registry/core/nodes/n1', '/registry/minions/n1'],
      ['/registry/core/services/default/s', '/registry/services/specs/default/s'],
      ['/registry/core/endpoints/default/s', '/registry/services/endpoints/default/s'],
      ['/registry/core/replicationcontrollers/ns/rc', '/registry/controllers/ns/rc'],
      ['/registry/apps/deployments/ns/d', '/registry/deployments/ns/d'],
      ['/registry/networking.k8s.io/ingresses/ns/i', '/registry/ingress/ns/i'],
      ['/registry/rbac.authorization.k8s.io/clusterroles/admin', '/registry/clusterroles/admin'],
      ['/registry/apiextensions.k8s.io/customresourcedefinitions/a.b.c', '/registry/apiextensions.k8s.io/customresourcedefinitions/a.b.c'],
      ['/registry/apiregistration.k8s.io/apiservices/v1.apps', '/registry/apiregistration.k8s.io/apiservices/v1.apps'],
      ['/registry/stable.example.com/crontabs/ns/c', '/registry/stable.example.com/crontabs/ns/c'],
      ['/registry/core/unknowns/x', '/registry/_k1s/registry/core/unknowns/x'],
      ['/r/a', '/registry/_k1s/r/a'],
    ];
    for (const [k1s, etcd] of cases) {
      assert.equal(l.toEtcd(k1s), etcd, k1s);
      assert.equal(l.fromEtcd(etcd), k1s, etcd);
    }
  });

  it('honours another root, and leaves out keys it would not write', () => {
    const c = new KeyLayout('/k1s-a');
    assert.equal(c.toEtcd('/registry/core/pods/ns/p'), '/k1s-a/pods/ns/p');
    assert.equal(c.fromEtcd('/k1s-a/pods/ns/p'), '/registry/core/pods/ns/p');
    assert.equal(c.fromEtcd('/registry/pods/ns/p'), undefined, 'outside the root');
    assert.equal(l.fromEtcd('/registry/masterleases/10.0.0.1'), undefined, "kube's own key");
    assert.equal(l.fromEtcd('/registry/rbac.authorization.k8s.io/roles/ns/r'), undefined, 'not where k1s keeps roles');
    assert.throws(() => new KeyLayout('registry'), /must start with '\/'/);
  });

  it('gives one range for a prefix within one translation, none for a prefix across several', () => {
    assert.deepEqual(l.range('/registry/core/pods/ns/'), { start: '/registry/pods/ns/', end: prefixEnd('/registry/pods/ns/') });
    assert.equal(l.range('/registry/core/pods/ns/p')!.start, '/registry/pods/ns/p');
    assert.equal(l.range('/registry/stable.example.com/')!.start, '/registry/stable.example.com/');
    assert.equal(l.range('/a/b')!.start, '/registry/_k1s/a/b');
    for (const spread of ['', '/', '/registry/', '/registry/core/', '/registry/apps/', '/registry/core/pods', '/reg', '/registry/rbac.authorization.k8s.io/']) {
      assert.equal(l.range(spread), undefined, JSON.stringify(spread));
    }
  });

  it("ends a prefix's range at the prefix with its last byte incremented", () => {
    assert.deepEqual(prefixEnd('/a/'), Buffer.from('/a0'));
    assert.deepEqual(prefixEnd('a\u00ff'), Buffer.from([0x61, 0xc3, 0xc0]));
  });
});

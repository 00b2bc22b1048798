import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { controllerRevisionResource } from '../../../../src/api/apps/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, driver, meta, rejection, type Obj } from './helpers.js';

const d = driver(controllerRevisionResource);
const cr = (extra: Obj = {}, m: Obj = {}): KObject => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: meta('web-7b9c', m), data: { spec: { a: 1 } }, revision: 2, ...extra });

describe('ControllerRevision', () => {
  it('has the kube names and columns, no generation or status', () => {
    assert.equal(controllerRevisionResource.plural, 'controllerrevisions');
    assert.equal(controllerRevisionResource.shortNames, undefined);
    assert.equal(controllerRevisionResource.categories, undefined);
    assert.equal(controllerRevisionResource.hasGeneration, undefined);
    assert.equal(controllerRevisionResource.subresources, undefined);
    assert.deepEqual(controllerRevisionResource.columns.map((c) => `${c.name}:${c.type}`), ['Name:string', 'Controller:string', 'Revision:string', 'Age:string']);
  });

  it('requires data and a non-negative revision (defaulting to 0)', () => {
    assert.equal(d.created(cr({ revision: undefined })).revision, 0);
    assert.equal(
      d.message(cr({ data: null, revision: -1 })),
      'ControllerRevision.apps "web-7b9c" is invalid: [data: Required value: data is mandatory, revision: Invalid value: -1: must be greater than or equal to 0]',
    );
    assert.deepEqual(d.errors(cr({ data: 'any JSON' })), []);
  });

  it('keeps data immutable but lets the revision move', () => {
    const old = d.created(cr());
    assert.deepEqual(d.updateErrors(old, (o) => (o.revision = 5)), []);
    assert.deepEqual(d.updateErrors(old, (o) => (o.data = {})), [
      'data: Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{0x7b, 0x7d}, ContentEncoding:"", ContentType:"application/json"}: field is immutable',
    ]);
  });

  it('prints the controlling owner as kind.group/name', () => {
    const owned = (apiVersion: string, kind: string) =>
      cr({}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'other', uid: '1' }, { apiVersion, kind, name: 'web', uid: '2', controller: true }] });
    assert.deepEqual(d.cells(owned('apps/v1', 'StatefulSet')), { Name: 'web-7b9c', Controller: 'statefulset.apps/web', Revision: 2, Age: '10m' });
    assert.equal(d.cells(owned('v1', 'ReplicationController')).Controller, 'replicationcontroller/web');
    assert.equal(d.cells(cr()).Controller, '<none>');
  });
});

describe('ControllerRevision through the API', () => {
  let c: Awaited<ReturnType<typeof cluster>>;
  before(async () => {
    c = await cluster();
  });
  after(() => c.close());
  const api = () => c.client.resource('apps/v1', 'controllerrevisions');

  it('stores any data and refuses to change it', async () => {
    const o = await api().create('default', cr());
    assert.deepEqual(o.data, { spec: { a: 1 } });
    assert.equal(o.metadata.generation, undefined);
    const bumped = await api().patch('default', 'web-7b9c', 'merge', { revision: 3 });
    assert.equal(bumped.revision, 3);
    const e = await rejection(api().patch('default', 'web-7b9c', 'merge', { data: { spec: { a: 2 } } }));
    assert.equal(e.code, 422);
    assert.match(e.message, /^ControllerRevision\.apps "web-7b9c" is invalid: data: Invalid value: runtime\.Unknown\{.*\}: field is immutable$/);
  });
});

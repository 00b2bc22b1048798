// Pod status updates (PUT and PATCH of pods/status): what is stored, returned and watched. The store builds them
// around the current revision (its spec, labels and owner references shared, read-only) and defaults only the
// request's status; these tests pin that nothing observable depends on it.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { handleResource } from '../../../src/apiserver/handlers/rest.js';
import { parseRequestInfo } from '../../../src/apiserver/handlers/request-info.js';
import { systemUser } from '../../../src/client/local.js';
import { jsonOf } from '../../../src/apiserver/registry/stored-json.js';
import { followsInObjectMeta, withResourceVersion } from '../../../src/apiserver/registry/resource-version-place.js';
import type { ClientWatchEvent, ResourceClient } from '../../../src/client/types.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

interface Harness {
  api: ClusterApi;
  store: SqliteStore;
  pods: ResourceClient;
  events: ClientWatchEvent[];
}

/** A cluster API whose pods in `default` are watched (so the store keeps decoded revisions); closed after the test. */
async function harness(t: TestContext, opts: { freeze?: boolean } = {}): Promise<Harness> {
  const before = process.env.K1S_FREEZE_WATCH_OBJECTS;
  if (opts.freeze) process.env.K1S_FREEZE_WATCH_OBJECTS = '1';
  const store = SqliteStore.open({ path: ':memory:' });
  let api: ClusterApi;
  try {
    api = buildClusterApi(store, { metrics: false });
  } finally {
    if (before === undefined) delete process.env.K1S_FREEZE_WATCH_OBJECTS;
    else process.env.K1S_FREEZE_WATCH_OBJECTS = before;
  }
  t.after(async () => {
    api.stop();
    await store.close();
  });
  await bootstrapClusterObjects(api);
  await api.client.resource('v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  const pods = api.client.resource('v1', 'pods');
  const events: ClientWatchEvent[] = [];
  const w = await pods.watch('default', {}, (ev) => events.push(ev));
  t.after(() => w.stop());
  return { api, store, pods, events };
}

/** A request to pods/p/status as the HTTPS front hands it over (a body to decode, a response it only serialises). */
function httpsStatusRequest(api: ClusterApi, method: 'PUT' | 'PATCH', contentType: string, body: unknown) {
  return handleResource(api.registry, {
    info: parseRequestInfo(method, '/api/v1/namespaces/default/pods/p/status', new URLSearchParams()),
    query: new URLSearchParams(),
    headers: { 'user-agent': 'kubelet/v1.33', 'content-type': contentType },
    body: JSON.stringify(body),
    user: systemUser,
    serializesResponse: true,
  });
}

const key = (name: string) => `/registry/core/pods/default/${name}`;
const T = '2026-01-01T00:00:00Z';
const settle = () => new Promise((r) => setTimeout(r, 20));

/** What decoding the stored value of a key gives (the store's format: no resourceVersion inside). */
async function stored(store: SqliteStore, name: string): Promise<Pod> {
  const kv = (await store.get(key(name)))!;
  const o = JSON.parse(kv.value) as Pod;
  o.metadata = withResourceVersion(o.metadata as Record<string, unknown>, String(kv.modRevision), followsInObjectMeta) as Pod['metadata'];
  return o;
}

function newPod(name: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { app: 'a' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: '11111111-2222-3333-4444-555555555555' }],
    },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '10m' } } }] },
  } as KObject;
}

/** A kubelet's status for a running pod, with values the status defaulting rewrites (a quantity, a missing null). */
function runningStatus(p: Pod): Record<string, unknown> {
  return {
    ...p.status,
    phase: 'Running',
    podIP: '10.0.0.5',
    podIPs: [{ ip: '10.0.0.5' }],
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T }],
    containerStatuses: [
      { name: 'c', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: T } }, resources: { requests: { cpu: '0.0001' } } },
    ],
  };
}

function deepFreeze(o: unknown): void {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return;
  Object.freeze(o);
  for (const v of Object.values(o)) deepFreeze(v);
}

function statusError(e: unknown): StatusError {
  assert.ok(e instanceof StatusError, String(e));
  return e;
}

describe('pod status updates', () => {
  it('store the status and annotations of the body; spec, labels, owner references and finalizers stay', async (t) => {
    const { store, pods } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const before = await stored(store, 'p');
    const body = {
      ...created,
      metadata: { ...created.metadata, labels: { x: 'y' }, annotations: { note: 'n' }, ownerReferences: [], finalizers: ['example.com/f'] },
      spec: { ...created.spec, nodeName: 'elsewhere', containers: [{ name: 'c', image: 'other' }] },
      status: runningStatus(created),
    } as KObject;
    const out = (await pods.update('default', body, { subresource: 'status', fieldManager: 'kubelet' })) as Pod;
    const after = await stored(store, 'p');
    assert.equal(JSON.stringify(after.spec), JSON.stringify(before.spec));
    assert.deepEqual(after.metadata.labels, { app: 'a' });
    assert.deepEqual(after.metadata.ownerReferences, before.metadata.ownerReferences);
    assert.equal(after.metadata.finalizers, undefined);
    assert.deepEqual(after.metadata.annotations, { note: 'n' });
    // the status as defaulted: the quantity rounded up to milli units, lastProbeTime and lastState filled in
    assert.equal(
      JSON.stringify(after.status),
      // in PodStatus' Go field order, as kube stores and writes it
      '{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00Z"}],' +
        '"podIP":"10.0.0.5","podIPs":[{"ip":"10.0.0.5"}],"containerStatuses":[{"name":"c","state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}},' +
        '"lastState":{},"ready":true,"restartCount":0,"image":"busybox","imageID":"","resources":{"requests":{"cpu":"1m"}}}],"qosClass":"Burstable"}',
    );
    assert.equal(out.metadata.resourceVersion, after.metadata.resourceVersion);
    assert.equal(out.metadata.generation, 1);
    assert.deepEqual({ ...out, metadata: { ...out.metadata, resourceVersion: undefined } }, { ...after, metadata: { ...after.metadata, resourceVersion: undefined } });
  });

  it('record managedFields as before, byte for byte (PUT, then a strategic merge patch)', async (t) => {
    const { pods } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const withoutTimes = (o: KObject) => JSON.stringify(o.metadata.managedFields).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'TIME');
    const up = await pods.update(
      'default',
      { ...created, metadata: { ...created.metadata, annotations: { note: 'n' } }, status: runningStatus(created) } as KObject,
      { subresource: 'status', fieldManager: 'kubelet' },
    );
    const creator =
      '{"manager":"k1s","operation":"Update","apiVersion":"v1","time":"TIME","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}},' +
      '"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"11111111-2222-3333-4444-555555555555\\"}":{}}},"f:spec":{".":{},"f:automountServiceAccountToken":{},' +
      '"f:containers":{".":{},"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{}}},' +
      '"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:preemptionPolicy":{},"f:priority":{},' +
      '"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{}},"f:status":{".":{},"f:qosClass":{}}}}';
    const kubelet = (readyStatus: string) =>
      '{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"TIME","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:note":{}}},' +
      `"f:status":{"f:conditions":{".":{},"k:{\\"type\\":\\"Ready\\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},${readyStatus}"f:type":{}}},` +
      '"f:containerStatuses":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\\"ip\\":\\"10.0.0.5\\"}":{".":{},"f:ip":{}}}}},"subresource":"status"}';
    assert.equal(withoutTimes(up), `[${creator},${kubelet('"f:status":{},')}]`);
    const patched = await pods.patch('default', 'p', 'strategic', { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: T }] } }, {
      subresource: 'status',
      fieldManager: 'patcher',
    });
    const patcher =
      '{"manager":"patcher","operation":"Update","apiVersion":"v1","time":"TIME","fieldsType":"FieldsV1",' +
      '"fieldsV1":{"f:status":{"f:conditions":{"k:{\\"type\\":\\"Ready\\"}":{"f:status":{}}}}},"subresource":"status"}';
    assert.equal(withoutTimes(patched), `[${creator},${kubelet('')},${patcher}]`);
  });

  it('hand the caller an object of its own, and watchers exactly the stored revisions', async (t) => {
    const { store, pods, events } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const first = JSON.stringify(await stored(store, 'p'));
    const out = (await pods.update('default', { ...created, status: runningStatus(created) } as KObject, { subresource: 'status' })) as Pod;
    const second = JSON.stringify(await stored(store, 'p'));
    out.spec!.containers![0]!.image = 'changed';
    out.metadata.labels!.app = 'changed';
    out.metadata.ownerReferences![0]!.name = 'changed';
    out.metadata.managedFields![0]!.manager = 'changed';
    out.status!.phase = 'Failed';
    const dry = (await pods.update('default', { ...out, status: { ...runningStatus(created), message: 'dry' } } as KObject, {
      subresource: 'status',
      dryRun: true,
    })) as Pod;
    assert.equal(dry.status!.message, 'dry');
    dry.spec!.containers![0]!.image = 'changed';
    dry.metadata.labels!.app = 'changed';
    const patched = (await pods.patch('default', 'p', 'merge', { status: { message: 'm' } }, { subresource: 'status' })) as Pod;
    patched.spec!.containers![0]!.image = 'changed';
    patched.metadata.ownerReferences![0]!.name = 'changed';
    await settle();
    const third = JSON.stringify(await stored(store, 'p'));
    assert.equal(JSON.stringify(await pods.get('default', 'p')), third);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
    assert.deepEqual(events.map((e) => JSON.stringify(e.object)), [first, second, third]);
    const last = JSON.parse(third) as Pod;
    assert.equal(last.spec!.containers![0]!.image, 'busybox');
    assert.equal(last.metadata.ownerReferences![0]!.name, 'rc');
    assert.equal(last.status!.phase, 'Running');
    assert.equal(last.status!.message, 'm');
  });

  it('work with the stored revisions frozen (K1S_FREEZE_WATCH_OBJECTS=1)', async (t) => {
    const { store, pods, events } = await harness(t, { freeze: true });
    const created = (await pods.create('default', newPod('p'))) as Pod;
    await pods.update('default', { ...created, status: runningStatus(created) } as KObject, { subresource: 'status' });
    await pods.patch('default', 'p', 'strategic', { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: T }] } }, { subresource: 'status' });
    const cur = (await pods.get('default', 'p')) as Pod;
    await pods.update('default', { ...cur, status: { ...cur.status, message: 'dry' } } as KObject, { subresource: 'status', dryRun: true });
    await pods.update('default', { ...cur, metadata: { ...cur.metadata, annotations: { a: 'b' } }, status: { ...cur.status, message: 'x' } } as KObject, {
      subresource: 'status',
    });
    await settle();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED']);
    assert.ok(Object.isFrozen(events[3]!.object.spec));
    assert.equal(JSON.stringify(events[3]!.object), JSON.stringify(await stored(store, 'p')));
    assert.equal((events[3]!.object as Pod).status!.message, 'x');
  });

  for (const freeze of [false, true]) {
    it(`with readOnlyResult, hand over the revision watchers share, its resourceVersion set${freeze ? ' (frozen)' : ''}`, async (t) => {
      const { store, pods, events } = await harness(t, { freeze });
      const created = (await pods.create('default', newPod('p'))) as Pod;
      const out = (await pods.update('default', { ...created, status: runningStatus(created) } as KObject, { subresource: 'status', readOnlyResult: true })) as Pod;
      const patched = (await pods.patch('default', 'p', 'strategic', { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: T }] } }, {
        subresource: 'status',
        readOnlyResult: true,
      })) as Pod;
      await settle();
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
      // no copy: the object returned is the revision the watcher got, and both are exactly what was stored
      assert.equal(events[1]!.object, out);
      assert.equal(events[2]!.object, patched);
      assert.equal(patched.metadata.resourceVersion, String((await store.get(key('p')))!.modRevision));
      assert.equal(JSON.stringify(patched), JSON.stringify(await stored(store, 'p')));
      assert.equal(Object.isFrozen(patched), freeze || process.env.K1S_FREEZE_WATCH_OBJECTS === '1');
      assert.equal(patched.status!.conditions!.find((c) => c.type === 'Ready')!.status, 'False');
      assert.equal(Number(out.metadata.resourceVersion) < Number(patched.metadata.resourceVersion), true);
    });
  }

  it('answer the HTTPS front with exactly the stored object plus its revision', async (t) => {
    const { api, store, pods } = await harness(t);
    await pods.create('default', newPod('p'));
    const patch = (body: unknown) => httpsStatusRequest(api, 'PATCH', 'application/merge-patch+json', body);
    const res = await patch({ status: { message: 'm', phase: 'Running' } });
    assert.equal(res.code, 200);
    assert.equal(jsonOf(res.body), JSON.stringify(await stored(store, 'p')));
    const again = await patch({ status: { message: 'n' } });
    assert.equal(jsonOf(again.body), JSON.stringify(await stored(store, 'p')));
    assert.equal((again.body as Pod).status!.phase, 'Running');
  });

  it('are validated as ValidatePodStatusUpdate does, with the same field paths', async (t) => {
    const { store, pods } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const cur = (await pods.update('default', { ...created, status: runningStatus(created) } as KObject, { subresource: 'status' })) as Pod;
    const before = JSON.stringify(await stored(store, 'p'));
    const cases: [Record<string, unknown>, string, string][] = [
      [{ podIPs: [{ ip: 'nope' }] }, 'status.podIPs[0]', 'must be a valid IP address'],
      [{ qosClass: 'Guaranteed' }, 'status.qosClass', 'field is immutable'],
      [{ hostIP: '10.0.0.1', hostIPs: [{ ip: '10.0.0.2' }] }, 'status.hostIPs[0].ip', 'must be equal to `hostIP`'],
      [{ nominatedNodeName: 'Bad_Name' }, 'status.nominatedNodeName', 'RFC 1123 subdomain'],
      [{ conditions: [...cur.status!.conditions!, { type: 'bad type!', status: 'True' }] }, 'metadata.conditions[1].Type', 'name part must consist'],
    ];
    for (const [change, field, message] of cases) {
      const body = { ...cur, status: { ...cur.status, ...change } } as KObject;
      const e = statusError(await pods.update('default', body, { subresource: 'status' }).then(() => undefined, (err: unknown) => err));
      assert.equal(e.code, 422, e.message);
      assert.equal(e.details?.causes?.[0]?.field, field);
      assert.match(e.message, new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    }
    const annotation = statusError(
      await pods
        .update('default', { ...cur, metadata: { ...cur.metadata, annotations: { 'bad key!': 'v' } } } as KObject, { subresource: 'status' })
        .then(() => undefined, (err: unknown) => err),
    );
    assert.equal(annotation.code, 422);
    assert.equal(annotation.details?.causes?.[0]?.field, 'metadata.annotations');
    const stale = statusError(
      await pods
        .update('default', { ...cur, metadata: { ...cur.metadata, resourceVersion: '1' }, status: { ...cur.status, message: 'x' } } as KObject, { subresource: 'status' })
        .then(() => undefined, (err: unknown) => err),
    );
    assert.equal(stale.code, 409);
    assert.equal(JSON.stringify(await stored(store, 'p')), before);
  });

  it('take a JSON copy of the object the in-process client is given, which is left alone', async (t) => {
    const { store, pods } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const body = { ...created, metadata: { ...created.metadata, annotations: undefined }, status: { ...runningStatus(created), message: undefined } } as KObject;
    const text = JSON.stringify(body);
    deepFreeze(body);
    const out = (await pods.update('default', body, { subresource: 'status' })) as Pod;
    assert.equal(JSON.stringify(body), text);
    assert.equal(out.status!.phase, 'Running');
    assert.ok(!('message' in out.status!));
    assert.equal(JSON.stringify(out), JSON.stringify(await stored(store, 'p')));
  });

  it('neither default nor validate the spec of the body (the status strategy replaces it), but still type-check it', async (t) => {
    const { api, store, pods } = await harness(t);
    const created = (await pods.create('default', newPod('p'))) as Pod;
    const put = (body: unknown) => httpsStatusRequest(api, 'PUT', 'application/json', body);
    const spec = JSON.stringify((await stored(store, 'p')).spec);
    // a null container decodes as an empty Container in Kubernetes, and the spec is then replaced
    const res = await put({ ...created, spec: { containers: [null] }, status: { ...created.status, message: 'ok' } });
    assert.equal(res.code, 200);
    const after = await stored(store, 'p');
    assert.equal(JSON.stringify(after.spec), spec);
    assert.equal(after.status!.message, 'ok');
    // the HTTPS front's response is the stored object with its revision
    assert.equal(JSON.stringify(res.body), JSON.stringify(after));
    const typeError = statusError(await put({ ...created, spec: { containers: 'x' }, status: { ...created.status, message: 'no' } }).then(() => undefined, (e: unknown) => e));
    assert.equal(typeError.code, 400);
    assert.match(typeError.message, /cannot unmarshal string into Go struct field PodSpec\.spec\.containers/);
  });
});

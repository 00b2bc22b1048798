// The create fast path of managedFields must give exactly what the general path (compare with {}, subtract the
// unownable fields, encode the trie) gives: same entries, same keys, same key order.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildClusterApi } from '../../../../src/cluster/api.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import type { ManagedFieldsEntry } from '../../../../src/api/types.js';
import { capUpdateManagers, encodeManagedFields, managedFieldsAfterUpdate, recordUpdate } from '../../../../src/machinery/apply/managed-fields.js';
import { createdFieldsV1 } from '../../../../src/machinery/apply/managed-fields-create.js';
import type { Obj } from '../../../../src/machinery/apply/values.js';
import type { Schema, SchemaSet } from '../../../../src/machinery/schema.js';
import { podSchema, set as fixtureSet } from './fixtures.js';

const now = '2026-11-22T10:00:00Z';

/** The general path, as managedFieldsAfterUpdate took it for every create before the fast path. */
function general(obj: Obj, schema: Schema | undefined, set: SchemaSet, manager = 'kubectl-create', subresource?: string): ManagedFieldsEntry[] | undefined {
  const managed = recordUpdate(new Map(), {}, obj, { manager, apiVersion: 'v1', subresource, time: now, schema, set });
  return encodeManagedFields(capUpdateManagers(managed));
}

function fast(obj: Obj, schema: Schema | undefined, set: SchemaSet, manager = 'kubectl-create', subresource?: string): ManagedFieldsEntry[] | undefined {
  return managedFieldsAfterUpdate({ live: undefined, updated: obj, manager, apiVersion: 'v1', subresource, now, schema, set });
}

function same(obj: Obj, schema: Schema | undefined, set: SchemaSet, opts: { manager?: string; subresource?: string } = {}): ManagedFieldsEntry[] | undefined {
  const want = general(obj, schema, set, opts.manager, opts.subresource);
  const got = fast(obj, schema, set, opts.manager, opts.subresource);
  // the text, not only the value: key order is part of what clients see
  assert.equal(JSON.stringify(got), JSON.stringify(want));
  return got;
}

const store = SqliteStore.open({ path: ':memory:' });
const api = buildClusterApi(store, { metrics: false });
after(async () => {
  api.stop();
  await store.close();
});
const realPods = api.registry.mustLookup('', 'v1', 'pods');
const realCMs = api.registry.mustLookup('', 'v1', 'configmaps');

describe('managedFields of a create, written straight from the object', () => {
  it('a defaulted pod (real schema): containers, ports keyed by port and protocol, env, volumes, tolerations', () => {
    const pod: Obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'default',
        uid: 'u',
        creationTimestamp: now,
        generation: 1,
        labels: { app: 'web', 'z/b': 'x', a: '' },
        annotations: { note: 'n' },
        finalizers: ['b', 'a'],
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'r1', controller: true }],
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox:1.36',
            command: ['sleep', '3600'],
            ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'UDP', name: 'dns' }, { containerPort: 53 }],
            env: [{ name: 'B', value: '1' }, { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
            resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: {} },
            volumeMounts: [{ name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
            terminationMessagePath: '/dev/termination-log',
            imagePullPolicy: 'IfNotPresent',
          },
          { name: 'b', image: 'x' },
        ],
        volumes: [
          {
            name: 'kube-api-access-abcde',
            projected: {
              defaultMode: 420,
              sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }],
            },
          },
        ],
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
        nodeSelector: {},
        securityContext: {},
        dnsPolicy: 'ClusterFirst',
        priority: 0,
        enableServiceLinks: true,
        hostNetwork: false,
        affinity: null,
      },
      status: { phase: 'Pending', qosClass: 'Burstable' },
    };
    const entries = same(pod, realPods.schema, realPods.deps.schemas)!;
    const f = entries[0].fieldsV1 as Record<string, Record<string, unknown>>;
    // spot checks of the shape itself (the comparison above carries the rest)
    assert.deepEqual(Object.keys(f), ['f:metadata', 'f:spec', 'f:status']);
    assert.deepEqual(Object.keys(f['f:metadata']), ['f:annotations', 'f:finalizers', 'f:labels', 'f:ownerReferences']);
    assert.ok('k:{"containerPort":53,"protocol":"TCP"}' in ((f['f:spec']['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"c"}']['f:ports'] as object));
  });

  it('fixture kinds: duplicate list items, unkeyable items, atomic maps, untyped subtrees, nulls and empty maps', () => {
    const cases: Obj[] = [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'x', labels: {}, finalizers: ['a', 'a', 'b'] },
        spec: {
          containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }, { image: 'no-name' }, { name: 'b', args: ['x', 'y'] }],
          selector: { matchLabels: { a: 'b' } },
          extra: { deep: { list: [1, 2], map: { k: null } }, e: {} },
          nodeSelector: null,
          replicas: 3,
        },
        status: {},
      },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'only-system', uid: 'u', resourceVersion: '1', generation: 2 } },
      // Go orders keys by UTF-8 bytes: a character past U+FFFF sorts after U+E000, unlike in UTF-16
      { metadata: { labels: { '\u{1F600}': 'a', '\uE000': 'b', z: 'c', B: 'd', a: 'e', 'é': 'f' } }, spec: { nodeSelector: { y: '1', x: '2', 'x.y/z': '3' } } },
      { apiVersion: 'v1', kind: 'Pod' },
      {},
      { metadata: { name: 'n', undefinedValue: undefined }, spec: { containers: [] } },
      { kind: 'Pod', spec: 'not-a-map', status: [1] },
      // lists keyed by one string field in every item: sorted by Go's order, repeated keys owned as a whole
      { spec: { containers: [{ name: 'b' }, { name: 'a', image: '1' }, { name: '\u{1F600}', image: 'x' }, { name: 'a', image: '2' }, { name: '\uE000' }, { name: 'q"<' }] } },
      { spec: { containers: [{ name: 'only', args: ['x'] }] } },
      { spec: { containers: [{ name: 'n' }, { name: 1 }] } },
    ];
    for (const c of cases) same(c, podSchema, fixtureSet);
    // nothing ownable: no entry at all
    assert.equal(fast({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'b' } }, podSchema, fixtureSet), undefined);
  });

  it('no schema (a custom resource that preserves unknown fields), a configmap, the manager and subresource fields', () => {
    const cr: Obj = { apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'a', labels: { b: 'c' } }, spec: { list: [{ a: 1 }], map: { y: {}, x: 'z' } } };
    same(cr, undefined, fixtureSet);
    same(cr, undefined, fixtureSet, { manager: '', subresource: 'status' });
    const cm: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' }, data: { 'b.txt': 'x', 'a<b>&': 'y' }, binaryData: { z: 'AA==' } };
    const got = same(cm, realCMs.schema, realCMs.deps.schemas, { manager: 'k1s' })!;
    assert.deepEqual(got[0], {
      manager: 'k1s',
      operation: 'Update',
      apiVersion: 'v1',
      time: now,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:binaryData': { '.': {}, 'f:z': {} }, 'f:data': { '.': {}, 'f:a<b>&': {}, 'f:b.txt': {} } },
    });
  });

  it('objects of one type in many key orders and key sets (the remembered orders): random pods against the general path', () => {
    // a small seeded generator: the same cases on every run
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) >> 8) % n;
    /** a copy of `o` with a random subset of its keys (at least `keep` of them) in a random order, some undefined */
    const shuffled = (o: Obj, keep = 1): Obj => {
      const keys = Object.keys(o).filter((k, i) => i < keep || rand(4) > 0);
      for (let i = keys.length - 1; i > 0; i--) {
        const j = rand(i + 1);
        [keys[i], keys[j]] = [keys[j], keys[i]];
      }
      const out: Obj = {};
      for (const k of keys) out[k] = rand(10) === 0 ? undefined : o[k];
      return out;
    };
    const container = (name: string): Obj =>
      shuffled({
        name,
        image: 'busybox',
        command: ['sleep'],
        ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'UDP' }, shuffled({ containerPort: 53, name: 'dns', hostPort: 53 })],
        env: [shuffled({ name: 'A', value: '1' }), { name: 'B', valueFrom: shuffled({ fieldRef: { fieldPath: 'metadata.name' }, configMapKeyRef: { name: 'c', key: 'k' } }) }],
        resources: shuffled({ requests: shuffled({ cpu: '1', memory: '1Mi', 'example.com/\u{1F600}': '1' }), limits: { cpu: '2' } }),
        volumeMounts: [shuffled({ mountPath: '/a', name: 'v', readOnly: true }, 2)],
        imagePullPolicy: 'Always',
        terminationMessagePath: '/dev/termination-log',
      });
    for (let i = 0; i < 300; i++) {
      const pod: Obj = shuffled({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: shuffled({ name: 'p', namespace: 'n', uid: 'u', labels: shuffled({ app: 'x', '\uE000': 'y', '\u{1F600}': 'z', 'a/b': '' }), annotations: { a: 'b' } }),
        spec: shuffled({
          containers: [container('c'), container('d'), ...(rand(3) === 0 ? [container('c')] : [])],
          initContainers: [container('i')],
          ephemeralContainers: [{ ...container('e'), targetContainerName: 'c' }],
          volumes: [shuffled({ name: 'v', emptyDir: shuffled({ medium: 'Memory', sizeLimit: '1Gi' }), secret: { secretName: 's' } }, 1)],
          tolerations: [shuffled({ key: 'k', operator: 'Exists', effect: 'NoSchedule' })],
          nodeSelector: shuffled({ b: '1', a: '2' }),
          dnsPolicy: 'ClusterFirst',
          priority: 0,
        }),
        status: shuffled({ phase: 'Pending', qosClass: 'BestEffort' }),
      });
      same(pod, realPods.schema, realPods.deps.schemas);
    }
  });

  it('leaves, and maps whose fields are all leaves, are one frozen object for every create', () => {
    const pod = (name: string): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } }, volumeMounts: [{ name: 'v', mountPath: '/' + name }] }] },
    });
    interface F {
      [k: string]: F;
    }
    const a = same(pod('a'), realPods.schema, realPods.deps.schemas)![0].fieldsV1 as F;
    const b = same(pod('b'), realPods.schema, realPods.deps.schemas)![0].fieldsV1 as F;
    assert.notEqual(a, b);
    const ca = a['f:spec']['f:containers']['k:{"name":"c"}'];
    const cb = b['f:spec']['f:containers']['k:{"name":"c"}'];
    // the container differs (its mount's key is the pod's own), its resource list and mounts' fields do not
    assert.notEqual(ca, cb);
    assert.equal(a['f:metadata']['f:labels'], b['f:metadata']['f:labels']);
    assert.equal(ca['f:resources']['f:requests'], cb['f:resources']['f:requests']);
    assert.equal(ca['f:volumeMounts']['k:{"mountPath":"/a"}'], cb['f:volumeMounts']['k:{"mountPath":"/b"}']);
    assert.equal(ca['f:image'], cb['f:name']);
    for (const shared of [a['f:metadata']['f:labels'], ca['f:image']]) {
      assert.ok(Object.isFrozen(shared));
      assert.throws(() => {
        shared['f:y'] = {};
      }, TypeError);
    }
  });

  it('the fast path is only taken for a plain create', () => {
    // a create that brings its own entries keeps what they own of fields it does not set (general path)
    const own: ManagedFieldsEntry[] = [{ manager: 'other', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {}, 'f:gone': {} } } }];
    const cm: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: own }, data: { k: 'v', j: 'w' } };
    const got = managedFieldsAfterUpdate({ live: undefined, updated: cm, manager: 'm', apiVersion: 'v1', now, schema: realCMs.schema, set: realCMs.deps.schemas });
    assert.deepEqual(got?.map((e) => [e.manager, e.fieldsV1]), [
      ['other', { 'f:data': { 'f:gone': {} } }],
      ['m', { 'f:data': { '.': {}, 'f:j': {}, 'f:k': {} } }],
    ]);
    assert.equal(createdFieldsV1({ spec: 1 }, { type: 'string' }, fixtureSet), undefined);
  });
});

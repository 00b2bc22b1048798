import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../src/machinery/errors.js';
import { applyStrategicMergePatch } from '../../../../src/machinery/patch/strategic.js';
import { SchemaSet, s } from '../../../../src/machinery/schema.js';

type O = Record<string, unknown>;

// A cut-down core/apps schema with the real patch metadata of the fields it has.
const meta = s.ref('ObjectMeta');
const set = new SchemaSet({
  ObjectMeta: s.obj({
    name: s.str(),
    labels: s.strMap(),
    annotations: s.strMap(),
    finalizers: s.strSet(undefined, { strategy: 'merge' }),
    ownerReferences: s.arr(s.ref('OwnerReference'), { mergeKey: 'uid' }),
  }),
  OwnerReference: s.obj({ kind: s.str(), name: s.str(), uid: s.str(), controller: s.bool() }),
  Pod: s.obj({ apiVersion: s.str(), kind: s.str(), metadata: meta, spec: s.ref('PodSpec') }),
  PodSpec: s.obj({
    containers: s.arr(s.ref('Container'), { mergeKey: 'name' }),
    volumes: s.arr(s.ref('Volume'), { mergeKey: 'name', strategy: 'merge,retainKeys' }),
    tolerations: s.arr(s.ref('Toleration')),
    imagePullSecrets: s.arr(s.obj({ name: s.str() }), { mergeKey: 'name' }),
    nodeSelector: s.strMap(),
  }),
  Container: s.obj({
    name: s.str(),
    image: s.str(),
    args: s.arr(s.str()),
    ports: s.arr(s.ref('ContainerPort'), { mergeKey: 'containerPort' }),
    env: s.arr(s.ref('EnvVar'), { mergeKey: 'name' }),
    volumeMounts: s.arr(s.obj({ name: s.str(), mountPath: s.str() }), { mergeKey: 'mountPath' }),
    resources: s.obj({ limits: s.strMap(), requests: s.strMap() }),
  }),
  ContainerPort: s.obj({ containerPort: s.int32(), name: s.str(), protocol: s.str() }),
  EnvVar: s.obj({ name: s.str(), value: s.str(), valueFrom: s.obj({ fieldRef: s.obj({ fieldPath: s.str() }) }) }),
  Toleration: s.obj({ key: s.str(), operator: s.str(), effect: s.str() }),
  Volume: s.obj({
    name: s.str(),
    emptyDir: s.obj({ medium: s.str() }),
    configMap: s.obj({ name: s.str() }),
    hostPath: s.obj({ path: s.str() }),
  }),
  Deployment: s.obj({ metadata: meta, spec: s.ref('DeploymentSpec') }),
  DeploymentSpec: s.obj({
    replicas: s.int32(),
    template: s.obj({ metadata: meta, spec: s.ref('PodSpec') }),
    strategy: s.ref('DeploymentStrategy', undefined, { patchStrategy: 'retainKeys' }),
  }),
  DeploymentStrategy: s.obj({
    type: s.str(),
    rollingUpdate: s.obj({ maxSurge: s.intOrString(), maxUnavailable: s.intOrString() }),
  }),
  Custom: s.obj({ metadata: meta, data: s.any(), spec: s.obj({ known: s.str() }) }),
});
const POD = s.ref('Pod');
const DEPLOY = s.ref('Deployment');

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const smp = (original: unknown, patch: unknown, schema = POD): unknown =>
  applyStrategicMergePatch(deepFreeze(original), deepFreeze(patch), schema, set);

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

const pod = (spec: O, metadata: O = { name: 'p' }): O => ({ metadata, spec });
const c = (name: string, extra: O = {}): O => ({ name, image: `${name}:1`, ...extra });

describe('strategic merge patch: maps', () => {
  it('merges maps recursively and deletes with null (kubectl label / annotate)', () => {
    const got = smp(
      { metadata: { name: 'p', labels: { a: '1', b: '2' }, annotations: { x: 'y' } } },
      { metadata: { labels: { b: null, c: '3' }, annotations: { z: null } } },
    );
    assert.deepEqual(got, { metadata: { name: 'p', labels: { a: '1', c: '3' }, annotations: { x: 'y' } } });
  });

  it('a field the original lacks takes the patch value without its nulls and directive maps', () => {
    const got = smp(pod({}), {
      spec: { nodeSelector: { a: '1', b: null }, tolerations: [{ key: 'k', operator: null }] },
      metadata: { labels: { $patch: 'replace', x: '1' }, annotations: { keep: 'v', drop: { $patch: 'delete' } } },
    });
    assert.deepEqual(got, {
      metadata: { name: 'p', annotations: { keep: 'v' } },
      spec: { nodeSelector: { a: '1' }, tolerations: [{ key: 'k' }] },
    });
  });

  it('a value of another JSON type replaces the original', () => {
    assert.deepEqual(smp({ spec: { x: [1], y: { a: 1 }, z: 'q' } }, { spec: { x: { a: null, b: 1 }, y: [1], z: 2 } }), {
      spec: { x: { b: 1 }, y: [1], z: 2 },
    });
  });

  it('$patch: replace replaces a map by the rest of the patch map', () => {
    assert.deepEqual(smp({ metadata: { name: 'p', labels: { a: '1', b: '2' } } }, { metadata: { labels: { $patch: 'replace', c: '3' } } }), {
      metadata: { name: 'p', labels: { c: '3' } },
    });
  });

  it('$patch: delete empties a map', () => {
    const original = pod({ containers: [c('a', { resources: { limits: { cpu: '1' } } })] });
    assert.deepEqual(smp(original, { spec: { containers: [{ name: 'a', resources: { $patch: 'delete' } }] } }), pod({ containers: [c('a', { resources: {} })] }));
  });

  it('$patch: replace at the root replaces the whole object', () => {
    assert.deepEqual(smp({ metadata: { name: 'p' }, spec: { a: 1 } }, { $patch: 'replace', metadata: { name: 'q' } }), { metadata: { name: 'q' } });
  });

  it('null for a missing field and an empty patch change nothing', () => {
    const original = pod({ containers: [c('a')] });
    assert.deepEqual(smp(original, { spec: { volumes: null }, nope: null }), original);
    assert.deepEqual(smp(original, {}), original);
    assert.deepEqual(smp(original, null), original);
  });

  it('does not modify its inputs and shares no structure with them', () => {
    const original = deepFreeze(pod({ containers: [c('a', { env: [{ name: 'X', value: '1' }] })] }, { name: 'p', labels: { a: '1' } }));
    const patch = deepFreeze({ metadata: { labels: { b: '2' } }, spec: { containers: [{ name: 'b', image: 'b:1' }] } });
    const got = applyStrategicMergePatch(original, patch, POD, set) as O;
    const [b, a] = (got.spec as O).containers as O[];
    assert.deepEqual([a.name, b.name], ['a', 'b']);
    b.image = 'changed';
    (a.env as O[]).push({ name: 'Y' });
    assert.deepEqual(patch.spec.containers[0], { name: 'b', image: 'b:1' });
    assert.equal((((original.spec as O).containers as O[])[0].env as O[]).length, 1);
  });

  it('treats "__proto__" as an ordinary key', () => {
    const got = smp({ metadata: { labels: {} } }, JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}')) as O;
    assert.equal(Object.getPrototypeOf(got), Object.prototype);
    assert.deepEqual(Object.keys((got.metadata as O).labels as O), ['__proto__']);
    assert.equal(({} as O).x, undefined);
  });
});

describe('strategic merge patch: lists', () => {
  it('merges list elements by merge key; patch elements keep the patch order, new ones come first', () => {
    const original = pod({ containers: [c('a'), c('b'), c('c')] });
    const got = smp(original, { spec: { containers: [{ name: 'c', image: 'c:2' }, { name: 'd', image: 'd:1' }] } });
    // "c" moves to the patch's position relative to "d"; server-only a and b keep their order
    assert.deepEqual(got, pod({ containers: [c('a'), c('b'), c('c', { image: 'c:2' }), c('d')] }));
    const got2 = smp(original, { spec: { containers: [{ name: 'd', image: 'd:1' }] } });
    assert.deepEqual(got2, pod({ containers: [c('d'), c('a'), c('b'), c('c')] }));
  });

  it('merges nested lists of elements (env by name, ports by an integer key)', () => {
    const original = pod({
      containers: [c('a', { env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80, protocol: 'TCP' }] })],
    });
    const got = smp(original, {
      spec: {
        containers: [
          {
            name: 'a',
            env: [{ name: 'X', value: '2' }, { name: 'Y', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, protocol: null }],
          },
        ],
      },
    });
    assert.deepEqual(
      got,
      pod({
        containers: [
          c('a', {
            env: [{ name: 'X', value: '2' }, { name: 'Y', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }],
          }),
        ],
      }),
    );
  });

  it('$patch: delete removes every element with the merge key', () => {
    const original = pod({ containers: [c('a'), c('b'), c('a', { image: 'dup' })] });
    assert.deepEqual(smp(original, { spec: { containers: [{ name: 'a', $patch: 'delete' }, { name: 'zzz', $patch: 'delete' }] } }), pod({ containers: [c('b')] }));
  });

  it('$patch: replace replaces the list by the other patch elements', () => {
    const original = pod({ containers: [c('a'), c('b')] });
    assert.deepEqual(smp(original, { spec: { containers: [{ $patch: 'replace' }, { name: 'x', image: 'x:1', args: null }] } }), pod({ containers: [c('x')] }));
    assert.deepEqual(smp(original, { spec: { containers: [{ $patch: 'replace' }] } }), pod({ containers: [] }));
  });

  it('primitive lists with strategy merge are unions; $deleteFromPrimitiveList removes values', () => {
    const original = { metadata: { finalizers: ['a', 'b'] } };
    assert.deepEqual(smp(original, { metadata: { finalizers: ['b', 'c'] } }), { metadata: { finalizers: ['a', 'b', 'c'] } });
    // a new value is placed before the server-only values (as kube-apiserver does)
    assert.deepEqual(smp(original, { metadata: { finalizers: ['c'] } }), { metadata: { finalizers: ['c', 'a', 'b'] } });
    assert.deepEqual(smp(original, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'x'] } }), {
      metadata: { finalizers: ['b'] },
    });
    // deleting from a missing list adds nothing
    assert.deepEqual(smp({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), { metadata: {} });
    // duplicates collapse
    assert.deepEqual(smp({ metadata: { finalizers: ['a', 'a'] } }, { metadata: { finalizers: ['a', 'b', 'b'] } }), { metadata: { finalizers: ['a', 'b'] } });
  });

  it('lists without a merge strategy are replaced', () => {
    const original = pod({ containers: [c('a', { args: ['1', '2'] })], tolerations: [{ key: 'a' }, { key: 'b' }] });
    const got = smp(original, { spec: { containers: [{ name: 'a', args: ['3'] }], tolerations: [{ key: 'c', effect: null }] } });
    assert.deepEqual(got, pod({ containers: [c('a', { args: ['3'] })], tolerations: [{ key: 'c' }] }));
  });

  it('$deleteFromPrimitiveList also works on a list without merge strategy', () => {
    const original = pod({ containers: [c('a', { args: ['1', '2', '3'] })] });
    assert.deepEqual(smp(original, { spec: { containers: [{ name: 'a', '$deleteFromPrimitiveList/args': ['2'] }] } }), pod({ containers: [c('a', { args: ['1', '3'] })] }));
  });

  it('a new list element keeps its content but loses nulls and directive keys', () => {
    const got = smp(pod({ containers: [c('a')] }), {
      spec: { containers: [{ name: 'b', image: 'b:1', args: null, resources: { $patch: 'replace', limits: { cpu: '1' } } }] },
    });
    assert.deepEqual(got, pod({ containers: [c('b', { resources: { limits: { cpu: '1' } } }), c('a')] }));
  });

  it('$setElementOrder orders primitive lists', () => {
    const original = { metadata: { finalizers: ['a', 'b', 'c'] } };
    assert.deepEqual(smp(original, { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'b'] } }), { metadata: { finalizers: ['c', 'a', 'b'] } });
    assert.deepEqual(smp(original, { metadata: { '$setElementOrder/finalizers': ['b', 'd', 'a'], finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['c'] } }), {
      metadata: { finalizers: ['b', 'd', 'a'] },
    });
  });
});

describe('strategic merge patch: what kubectl apply sends', () => {
  const deployment = (template: O, strategy: O = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }): O => ({
    metadata: { name: 'd' },
    spec: { replicas: 1, strategy, template },
  });

  it('reorders containers and updates one ($setElementOrder)', () => {
    const live = deployment({ spec: { containers: [c('a'), c('b'), c('sidecar')] } });
    const patch = {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'a', image: 'a:2' }] } } },
    };
    // server-only "sidecar" keeps its place after the elements it followed
    assert.deepEqual(smp(live, patch, DEPLOY), deployment({ spec: { containers: [c('b'), c('a', { image: 'a:2' }), c('sidecar')] } }));
  });

  it('adds and deletes containers in one patch', () => {
    const live = deployment({ spec: { containers: [c('a'), c('b'), c('c')] } });
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }, { name: 'n' }, { name: 'c' }],
            containers: [{ name: 'n', image: 'n:1' }, { name: 'b', $patch: 'delete' }],
          },
        },
      },
    };
    assert.deepEqual(smp(live, patch, DEPLOY), deployment({ spec: { containers: [c('a'), c('n'), c('c')] } }));
  });

  it('removing one env var and adding another keeps kube-apiserver\'s order (server-only vars first)', () => {
    const env = (...names: string[]): O[] => names.map((name) => ({ name, value: name }));
    const live = deployment({ spec: { containers: [c('a', { env: env('A', 'B', 'INJECTED') })] } });
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }],
            containers: [
              {
                name: 'a',
                '$setElementOrder/env': [{ name: 'B' }, { name: 'C' }],
                env: [{ name: 'C', value: 'C' }, { name: 'A', $patch: 'delete' }],
              },
            ],
          },
        },
      },
    };
    assert.deepEqual(smp(live, patch, DEPLOY), deployment({ spec: { containers: [c('a', { env: env('B', 'INJECTED', 'C') })] } }));
  });

  it('$retainKeys switches the deployment strategy to Recreate', () => {
    const live = deployment({ spec: { containers: [c('a')] } });
    const patch = { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } };
    assert.deepEqual(smp(live, patch, DEPLOY), deployment({ spec: { containers: [c('a')] } }, { type: 'Recreate' }));
    // without the directive only the explicit null clears rollingUpdate
    assert.deepEqual(smp(live, { spec: { strategy: { type: 'Recreate' } } }, DEPLOY), deployment({ spec: { containers: [c('a')] } }, {
      type: 'Recreate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    }));
  });

  it('$retainKeys in a volume switches its source', () => {
    const live = pod({ volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', hostPath: { path: '/x' } }] });
    const patch = {
      spec: {
        '$setElementOrder/volumes': [{ name: 'v' }, { name: 'w' }],
        volumes: [{ $retainKeys: ['configMap', 'name'], name: 'v', configMap: { name: 'cm' } }],
      },
    };
    assert.deepEqual(smp(live, patch), pod({ volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', hostPath: { path: '/x' } }] }));
  });

  it('a last-applied annotation and a new owner reference merge by uid', () => {
    const live = { metadata: { name: 'p', ownerReferences: [{ uid: '1', kind: 'A', name: 'a' }] } };
    const patch = {
      metadata: {
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}\n' },
        ownerReferences: [{ uid: '2', kind: 'B', name: 'b', controller: true }],
      },
    };
    assert.deepEqual(smp(live, patch), {
      metadata: {
        name: 'p',
        ownerReferences: [{ uid: '2', kind: 'B', name: 'b', controller: true }, { uid: '1', kind: 'A', name: 'a' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}\n' },
      },
    });
  });
});

describe('strategic merge patch: fields without patch metadata', () => {
  const CUSTOM = s.ref('Custom');

  it('unknown fields merge maps and replace lists', () => {
    const original = { spec: { known: 'k', extra: { a: 1, b: { c: 2 } }, list: [{ name: 'x', v: 1 }] } };
    const got = smp(original, { spec: { extra: { b: { d: 3 }, a: null }, list: [{ name: 'x', w: 2 }] } }, CUSTOM);
    assert.deepEqual(got, { spec: { known: 'k', extra: { b: { c: 2, d: 3 } }, list: [{ name: 'x', w: 2 }] } });
  });

  it('preserve-unknown-fields content merges like a JSON merge patch', () => {
    const original = { data: { a: { b: 1, c: [1, 2] }, keep: true } };
    assert.deepEqual(smp(original, { data: { a: { b: null, c: [3], d: { e: null } } } }, CUSTOM), { data: { a: { c: [3], d: {} }, keep: true } });
  });

  it('directives still apply inside schemaless content', () => {
    assert.deepEqual(smp({ spec: { extra: { a: 1, b: 2 } } }, { spec: { extra: { $patch: 'replace', c: 3 } } }, CUSTOM), { spec: { extra: { c: 3 } } });
  });
});

describe('strategic merge patch: errors', () => {
  const serverError = (fn: () => unknown, message: string): void => {
    const e = status(fn);
    assert.equal(e.code, 500);
    assert.equal(e.reason, '');
    assert.equal(e.message, message);
  };
  const badRequest = (fn: () => unknown, message: string): void => {
    const e = status(fn);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, message);
  };
  const original = pod({ containers: [c('a')] });

  it('a patch that is not an object is 400', () => {
    badRequest(() => smp(original, [1]), 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    badRequest(() => smp(original, 'x'), 'json: cannot unmarshal string into Go value of type map[string]interface {}');
  });

  it('a list element without its merge key is a plain error (500)', () => {
    serverError(
      () => smp(original, { spec: { containers: [{ image: 'nginx:1.25' }] } }),
      'map: map[image:nginx:1.25] does not contain declared merge key: name',
    );
    serverError(
      () => smp(pod({ containers: [c('a')], volumes: [{ name: 'v' }] }), { spec: { volumes: [{ hostPath: { path: '/var/lib' } }] } }),
      'map: map[hostPath:map[path:/var/lib]] does not contain declared merge key: name',
    );
    // also when the live object has such an element
    serverError(
      () => smp(pod({ imagePullSecrets: [{}] }), { spec: { imagePullSecrets: [{ name: 's' }] } }),
      'map: map[] does not contain declared merge key: name',
    );
    serverError(
      () => smp(original, { spec: { containers: [{ $patch: 'delete' }] } }),
      'map: map[$patch:delete] does not contain declared merge key: name',
    );
  });

  it('unknown or unsupported $patch directives are plain errors (500)', () => {
    serverError(() => smp({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { $patch: 'merge' } } }), 'unknown patch type: merge in map: map[$patch:merge]');
    // a directive map for a field the original lacks is dropped, not checked
    assert.deepEqual(smp({ metadata: {} }, { metadata: { labels: { $patch: 'merge' } } }), { metadata: {} });
    serverError(() => smp(original, { spec: { $patch: 'nope', x: 1 } }), 'unknown patch type: nope in map: map[$patch:nope x:1]');
    serverError(() => smp(original, { spec: { $patch: 5 } }), 'unknown patch type: %!s(int64=5) in map: map[$patch:5]');
    serverError(() => smp(original, { spec: { containers: [{ name: 'a', $patch: 'merge' }] } }), 'merging lists cannot yet be specified in the patch');
    serverError(
      () => smp(original, { spec: { containers: [{ name: 'a', $patch: 'bogus' }] } }),
      'unknown patch type: bogus in map: map[$patch:bogus name:a]',
    );
  });

  it('malformed $retainKeys, $setElementOrder and $deleteFromPrimitiveList are 400', () => {
    const deploy = { spec: { strategy: { type: 'RollingUpdate' } } };
    badRequest(() => smp(deploy, { spec: { strategy: { $retainKeys: 'type' } } }, DEPLOY), 'invalid patch format of retainKeys');
    badRequest(() => smp(deploy, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, DEPLOY), 'invalid patch format of retainKeys');
    badRequest(() => smp(original, { spec: { '$setElementOrderX/containers': [] } }), 'invalid patch format of setElementOrder list');
    badRequest(() => smp(original, { spec: { $setElementOrder: [] } }), 'invalid patch format of setElementOrder list');
    badRequest(() => smp(original, { metadata: { '$deleteFromPrimitiveListfinalizers': ['a'] } }), 'invalid patch format of primitive list');
  });

  it('$setElementOrder that is not a list, or disagrees with the patch list, is a plain error (500)', () => {
    serverError(() => smp(original, { spec: { '$setElementOrder/containers': 'a' } }), 'expected a []interface {}, but received a string');
    serverError(
      () =>
        smp(pod({ containers: [c('a'), c('b')] }), {
          spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: 'x' }, { name: 'a', image: 'y' }] },
        }),
      'The order in patch list:\n[map[image:x name:b] map[image:y name:a]]\n doesn\'t match $setElementOrder list:\n[map[name:a] map[name:b]]\n',
    );
  });

  it('lists of lists are 422 with the generic message', () => {
    const e = status(() => smp({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['b']] } }));
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.equal(e.message, 'the server rejected our request due to an error in our request');
  });

  it('mixed element types in a merged list are a plain error (500)', () => {
    serverError(() => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }), 'list element types are not identical: [[a] [1]]');
  });
});

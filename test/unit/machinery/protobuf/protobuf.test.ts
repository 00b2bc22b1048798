import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { baseDefinitions } from '../../../../src/api/index.js';
import { podDefinitions } from '../../../../src/api/core/pod/schema.js';
import { missingProtoTags, protoTags, type ProtoTags } from '../../../../src/api/proto-tags/index.js';
import { decodeK8sProtobuf } from '../../../../src/machinery/protobuf/decode.js';
import { SchemaSet, s } from '../../../../src/machinery/schema.js';
import { kubectlFixtures } from './fixtures.js';
import { dropNulls } from './helpers.js';

/** Every definition k1s serves today (grows as groups are added to baseDefinitions). */
const served = (): SchemaSet => new SchemaSet(...baseDefinitions(), podDefinitions);

const SHORT_GROUP: Record<string, string> = { 'rbac.authorization.k8s.io': 'rbac' };

/** OpenAPI definition name of apiVersion/kind, e.g. apps/v1 Deployment → io.k8s.api.apps.v1.Deployment. */
function definitionOf(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
  const short = SHORT_GROUP[group] ?? group.replace(/\.k8s\.io$/, '');
  return `io.k8s.api.${short}.${version}.${kind}`;
}

const rootIn = (schemas: SchemaSet) => (apiVersion: string, kind: string) => {
  const d = definitionOf(apiVersion, kind);
  return schemas.has(d) ? d : undefined;
};

describe('decodeK8sProtobuf: bodies recorded from kubectl 1.33 decode to the JSON kubectl would send', () => {
  const schemas = served();
  for (const fx of kubectlFixtures) {
    const def = definitionOf(String(fx.json.apiVersion), String(fx.json.kind));
    // fixtures of kinds k1s does not serve yet are checked once their definitions exist
    if (!schemas.has(def)) continue;
    it(`kubectl ${fx.args.slice(0, 3).join(' ')} (${fx.name})`, () => {
      const got = decodeK8sProtobuf(Buffer.from(fx.protobuf, 'base64'), schemas, protoTags, rootIn(schemas));
      assert.deepEqual(got, dropNulls(fx.json));
    });
  }

  it('covers the kinds k1s serves today', () => {
    const kinds = new Set(kubectlFixtures.map((f) => `${String(f.json.apiVersion)} ${String(f.json.kind)}`));
    for (const k of ['v1 ConfigMap', 'v1 Secret', 'v1 Namespace', 'v1 ServiceAccount', 'v1 Pod']) assert.ok(kinds.has(k), k);
  });

  it('puts kind and apiVersion first, as Go JSON does', () => {
    const fx = kubectlFixtures.find((f) => f.name === 'configmap-literal')!;
    const got = decodeK8sProtobuf(Buffer.from(fx.protobuf, 'base64'), schemas, protoTags, rootIn(schemas));
    assert.deepEqual(Object.keys(got).slice(0, 2), ['kind', 'apiVersion']);
  });

  it('drops zero omitempty scalars but keeps zero pointers (rich pod spec)', () => {
    const fx = kubectlFixtures.find((f) => f.name === 'debug-copy-pod')!;
    const pod = decodeK8sProtobuf(Buffer.from(fx.protobuf, 'base64'), schemas, protoTags, rootIn(schemas));
    const spec = pod.spec as Record<string, unknown>;
    assert.equal(spec.terminationGracePeriodSeconds, 0); // *int64
    assert.equal(spec.priority, 0); // *int32
    assert.equal(spec.enableServiceLinks, false); // *bool
    assert.equal('hostPID' in spec, false); // bool, omitempty
    const main = (spec.containers as Record<string, unknown>[])[0];
    const env = main.env as Record<string, unknown>[];
    assert.deepEqual(env[1], { name: 'EMPTY' }); // value "" omitempty
    assert.equal((main.securityContext as Record<string, unknown>).runAsUser, 0);
    assert.deepEqual(main.args, ['exec nginx', '']); // list elements always kept
    assert.deepEqual((main.livenessProbe as Record<string, unknown>).httpGet, {
      path: '/healthz',
      port: 'http',
      scheme: 'HTTP',
      httpHeaders: [{ name: 'X-A', value: '' }], // value has no omitempty
    });
    assert.deepEqual(pod.status, {});
    assert.equal('creationTimestamp' in (pod.metadata as object), false);
  });
});

describe('protoTags tables', () => {
  it('cover every field of every definition k1s serves (missingProtoTags → [])', () => {
    assert.deepEqual(missingProtoTags(served(), protoTags), []);
  });

  it('have positive, unique field numbers within each message (0 only for apiVersion/kind)', () => {
    for (const [def, fields] of Object.entries(protoTags)) {
      const seen = new Map<number, string>();
      for (const [json, f] of Object.entries(fields)) {
        const tag = typeof f === 'number' ? f : f.tag;
        assert.ok(Number.isInteger(tag) && tag >= 0 && tag < 2 ** 29, `${def}.${json}: ${tag}`);
        if (tag === 0) {
          assert.ok(json === 'apiVersion' || json === 'kind', `${def}.${json} has tag 0`);
          continue;
        }
        assert.ok(!seen.has(tag), `${def}: ${json} and ${seen.get(tag)} share tag ${tag}`);
        seen.set(tag, json);
        if (typeof f !== 'number' && f.inline !== undefined) assert.ok(protoTags[f.inline], `${def}.${json}: no table ${f.inline}`);
      }
    }
  });

  it('include the groups later issues need', () => {
    for (const d of [
      'io.k8s.api.apps.v1.DeploymentSpec',
      'io.k8s.api.apps.v1.StatefulSetSpec',
      'io.k8s.api.apps.v1.DaemonSetSpec',
      'io.k8s.api.apps.v1.ReplicaSetSpec',
      'io.k8s.api.batch.v1.JobSpec',
      'io.k8s.api.batch.v1.CronJobSpec',
      'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
      'io.k8s.api.authentication.v1.TokenRequestSpec',
      'io.k8s.api.authentication.v1.SelfSubjectReview',
      'io.k8s.api.rbac.v1.PolicyRule',
      'io.k8s.api.autoscaling.v1.Scale',
      'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec',
      'io.k8s.api.networking.v1.IngressSpec',
      'io.k8s.api.policy.v1.Eviction',
      'io.k8s.api.core.v1.ServiceSpec',
    ]) {
      assert.ok(protoTags[d], d);
    }
    assert.deepEqual(protoTags['io.k8s.api.apps.v1.Deployment'], { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 });
  });

  it('missingProtoTags lists uncovered fields and follows inline tables', () => {
    const schemas = new SchemaSet({
      'x.A': s.obj({ a: s.str(), b: s.str(), c: s.str() }),
      'x.B': s.obj({ n: s.str(), m: s.str() }),
      'x.C': s.obj({ q: s.str() }),
      'io.k8s.apimachinery.pkg.apis.meta.v1.Time': s.str(),
    });
    const tags: ProtoTags = { 'x.A': { a: 1, '@embedded': { tag: 2, inline: 'x.Embedded' } }, 'x.Embedded': { b: 1 }, 'x.B': { n: 1, m: { tag: 2, keep: true } } };
    assert.deepEqual(missingProtoTags(schemas, tags), ['x.A.c', 'x.C.q']);
  });
});

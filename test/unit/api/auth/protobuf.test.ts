import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admissionregistrationDefinitions } from '../../../../src/api/admissionregistration/index.js';
import { apiextensionsDefinitions } from '../../../../src/api/apiextensions/index.js';
import { authzDefinitions } from '../../../../src/api/auth/index.js';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { podResource } from '../../../../src/api/core/pod/resource.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { protoTags } from '../../../../src/api/proto-tags/index.js';
import { authExtraProtoTags } from '../../../../src/api/proto-tags/admission-apiextensions.js';
import { rbacDefinitions } from '../../../../src/api/rbac/index.js';
import { decodeK8sProtobuf, missingProtoTags } from '../../../../src/machinery/protobuf/decode.js';
import { SchemaSet } from '../../../../src/machinery/schema.js';
import { cat, envelope, len, vint } from '../../machinery/protobuf/helpers.js';

const mine = [rbacDefinitions, admissionregistrationDefinitions, apiextensionsDefinitions, authzDefinitions];
const schemas = new SchemaSet(metaDefinitions, coreDefinitions, podResource.definitions, ...mine);
const tags = { ...protoTags, ...authExtraProtoTags };
const roots: Record<string, string> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'io.k8s.api.authentication.v1.SelfSubjectReview',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'io.k8s.api.rbac.v1.RoleBinding',
};
const decode = (apiVersion: string, kind: string, raw: number[]) =>
  decodeK8sProtobuf(envelope(apiVersion, kind, raw), schemas, tags, (av, k) => roots[`${av}/${k}`]);

describe('protobuf field numbers of the rbac, admission, CRD and review kinds', () => {
  it('cover every field of every definition', () => {
    const names = new Set(mine.flatMap((d) => Object.keys(d)));
    assert.deepEqual(missingProtoTags(schemas, tags).filter((m) => [...names].some((n) => m.startsWith(`${n}.`))), []);
  });

  it('decode the SelfSubjectAccessReview of `kubectl auth can-i create pods`', () => {
    const ra = cat(len(1, 'default'), len(2, 'create'), len(5, 'pods'));
    // Go writes non-pointer scalars even when zero: status.allowed=false arrives as field 1 = 0.
    const obj = decode('authorization.k8s.io/v1', 'SelfSubjectAccessReview', cat(len(1, []), len(2, len(1, ra)), len(3, vint(1, 0))));
    assert.deepEqual(obj, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
      status: { allowed: false },
    });
  });

  it('decode the SelfSubjectReview of `kubectl auth whoami` and a RoleBinding of `kubectl create rolebinding`', () => {
    assert.deepEqual(decode('authentication.k8s.io/v1', 'SelfSubjectReview', cat(len(1, []), len(2, len(1, [])))), {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      status: { userInfo: {} },
    });
    const subject = cat(len(1, 'User'), len(2, 'rbac.authorization.k8s.io'), len(3, 'jane'));
    const roleRef = cat(len(1, 'rbac.authorization.k8s.io'), len(2, 'ClusterRole'), len(3, 'view'));
    const obj = decode('rbac.authorization.k8s.io/v1', 'RoleBinding', cat(len(1, len(1, 'jane-view')), len(2, subject), len(3, roleRef)));
    assert.deepEqual(obj, {
      kind: 'RoleBinding',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'jane-view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    });
  });
});

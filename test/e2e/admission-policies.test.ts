// ValidatingAdmissionPolicy end to end with real kubectl: Deny and Warn actions with kube's texts, messages and
// reasons, params by name and selector, variables, match conditions, namespaceObject, the authorizer, exclusions,
// custom resources, and CEL refused when the policy is written.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

type Obj = Record<string, unknown>;
let server: K1sServer;
let k: ReturnType<typeof kubectl>;

before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  await k.ok(['create', 'namespace', 'vap']);
  await k.ok(['label', 'namespace', 'vap', 'tier=gold']);
  await k.ok(['create', 'namespace', 'vap-free']);
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const apply = (o: Obj) => k.ok(['apply', '-f', '-'], { input: JSON.stringify(o) });
const cm = (name: string, ns: string, data: Obj = {}, labels: Obj = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });
const configMapRules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }];
const policy = (name: string, spec: Obj) => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
  spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: configMapRules }, ...spec },
});
const binding = (name: string, policyName: string, spec: Obj = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});
const create = (input: string) => k.run(['create', '-f', '-'], { input });
/** Waits until a probe create (dry run) gives the expected outcome: policies are followed by a watch. */
const inForce = (input: string, pattern: RegExp) =>
  until(async () => pattern.test((await k.run(['create', '--dry-run=server', '-f', '-'], { input })).stderr), `policy in force (${pattern})`, 10_000);

describe('ValidatingAdmissionPolicy', () => {
  // each test's bindings go when it ends, so a failure does not spill into the next one
  afterEach(() => k.ok(['delete', 'validatingadmissionpolicybindings', '--all']));

  it('denies with kube\'s message, reason and code', async () => {
    await apply(policy('max-keys', {
      validations: [
        { expression: 'size(object.data) <= 2', messageExpression: "'too many keys: ' + string(size(object.data))", reason: 'Forbidden' },
        { expression: "!('secret' in object.data)" },
      ],
    }));
    await apply(binding('max-keys-deny', 'max-keys', { matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } } }));
    await inForce(cm('probe', 'vap', { a: '1', b: '2', c: '3' }), /denied request/);
    const r = await create(cm('many', 'vap', { a: '1', b: '2', c: '3' }));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Forbidden\): error when creating "STDIN": configmaps "many" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-deny' denied request: too many keys: 3/);
    const s = await create(cm('secretive', 'vap', { secret: 'x' }));
    // no reason → Invalid (422), which kubectl prints as an invalid object with the message as its cause
    assert.match(s.stderr, /The configmaps "secretive" is invalid: : ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-deny' denied request: failed expression: !\('secret' in object.data\)/);
    // the binding's namespaceSelector leaves vap-free out
    assert.equal((await create(cm('many', 'vap-free', { a: '1', b: '2', c: '3' }))).code, 0);
    // the raw Status: 403 with the message as a cause
    const raw = await k.run(['create', '--raw', '/api/v1/namespaces/vap/configmaps', '-f', '-'], { input: cm('raw', 'vap', { a: '1', b: '2', c: '3' }) });
    assert.match(raw.stderr, /forbidden/i);

  });

  it('warns with the Warn action and keeps the object', async () => {
    await apply(binding('max-keys-deny', 'max-keys', { matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } } }));
    await apply(binding('max-keys-warn', 'max-keys', { validationActions: ['Warn'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'vap-free' } } } }));
    await until(async () => /Warning: Validation failed/.test((await k.run(['create', '--dry-run=server', '-f', '-'], { input: cm('probe', 'vap-free', { a: '1', b: '2', c: '3' }) })).stderr), 'warn binding in force', 10_000);
    const r = await create(cm('warned', 'vap-free', { a: '1', b: '2', c: '3' }));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-warn': too many keys: 3/);

  });

  it('reads params by name and by selector, with parameterNotFoundAction', async () => {
    await apply(policy('limits', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: "!has(object.data) || !has(object.data.size) || int(object.data.size) <= int(params.data.max)", messageExpression: "'size must be at most ' + params.data.max" }],
    }));
    await k.ok(['create', 'configmap', 'limits', '-n', 'kube-public', '--from-literal=max=5']);
    await apply(binding('limits-by-name', 'limits', {
      paramRef: { name: 'limits', namespace: 'kube-public', parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } },
    }));
    await inForce(cm('probe', 'vap', { size: '9' }), /size must be at most 5/);
    assert.equal((await create(cm('small', 'vap', { size: '3' }))).code, 0);
    const big = await create(cm('big', 'vap', { size: '9' }));
    assert.match(big.stderr, /ValidatingAdmissionPolicy 'limits' with binding 'limits-by-name' denied request: size must be at most 5/);

    // a selector; none match → Deny
    await apply(binding('limits-by-selector', 'limits', {
      paramRef: { namespace: 'kube-public', selector: { matchLabels: { role: 'limits' } }, parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'vap-free' } } },
    }));
    await inForce(cm('probe', 'vap-free'), /no params found/);
    const none = await create(cm('any', 'vap-free'));
    assert.match(none.stderr, /ValidatingAdmissionPolicy 'limits' with binding 'limits-by-selector' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/);
    await k.ok(['create', 'configmap', 'limit-a', '-n', 'kube-public', '--from-literal=max=4']);
    await k.ok(['label', 'configmap', 'limit-a', '-n', 'kube-public', 'role=limits']);
    await until(async () => (await create(cm('fits', 'vap-free', { size: '4' }))).code === 0, 'param selected', 10_000);
    assert.match((await create(cm('nofit', 'vap-free', { size: '5' }))).stderr, /size must be at most 4/);

  });

  it('uses variables, match conditions, namespaceObject, request and the authorizer', async () => {
    await apply(policy('owner', {
      matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.?labels.orValue({}))" }],
      variables: [{ name: 'owner', expression: "object.metadata.?labels.owner.orValue('')" }, { name: 'hasOwner', expression: "variables.owner != ''" }],
      validations: [
        { expression: 'variables.hasOwner', message: 'an owner label is required' },
        { expression: "'tier' in namespaceObject.metadata.labels && namespaceObject.metadata.labels['tier'] == 'gold'", message: 'gold namespaces only' },
        { expression: "request.userInfo.username != '' && authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('list').allowed()", message: 'callers must be able to list secrets' },
      ],
    }));
    await apply(binding('owner', 'owner', { matchResources: { objectSelector: { matchExpressions: [{ key: 'checked', operator: 'Exists' }] } } }));
    const checked = (name: string, ns: string, labels: Obj) => cm(name, ns, {}, { checked: 'yes', ...labels });
    await inForce(checked('probe', 'vap', {}), /an owner label is required/);
    assert.equal((await create(checked('owned', 'vap', { owner: 'me' }))).code, 0);
    assert.match((await create(checked('orphan', 'vap', {}))).stderr, /denied request: an owner label is required/);
    assert.equal((await create(checked('exempted', 'vap', { exempt: 'true' }))).code, 0, 'a false match condition skips the policy');
    assert.match((await create(checked('elsewhere', 'vap-free', { owner: 'me' }))).stderr, /denied request: gold namespaces only/);
    assert.equal((await create(cm('unchecked', 'vap-free'))).code, 0, 'the objectSelector leaves it out');

  });

  it('refuses invalid CEL when the policy is written, and never applies to policies themselves', async () => {
    const bad = await k.run(['apply', '-f', '-'], { input: JSON.stringify(policy('bad', { validations: [{ expression: 'object.data +' }, { expression: "'str'" }] })) });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.validations\[0\]\.expression: Invalid value: "object\.data \+": compilation failed: ERROR: <input>:1:14: Syntax error/);
    assert.match(bad.stderr, /spec\.validations\[1\]\.expression: Invalid value: "'str'": must evaluate to bool but got string/);
    const noParams = await k.run(['apply', '-f', '-'], { input: JSON.stringify(policy('noparams', { validations: [{ expression: 'params.x == 1' }] })) });
    assert.match(noParams.stderr, /undeclared reference to 'params'/);
    // a policy denying every write of policies and bindings does not lock them
    await apply({ ...policy('lock', { validations: [{ expression: 'false' }] }), spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] } });
    await apply(binding('lock', 'lock', { matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } } }));
    await inForce(cm('probe', 'vap'), /ValidatingAdmissionPolicy 'lock'/);
    await k.ok(['delete', 'validatingadmissionpolicy', 'lock']);
    await k.ok(['delete', 'validatingadmissionpolicybinding', 'lock']);
    await until(async () => (await create(cm('unlocked', 'vap', {}, { owner: 'x' }))).code === 0, 'lock gone', 10_000);
  });

  it('validates custom resources', async () => {
    await apply({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.vap.example.com' },
      spec: { group: 'vap.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }] },
    });
    await k.ok(['wait', '--for=condition=Established', 'crd/widgets.vap.example.com', '--timeout=20s']);
    await apply({ ...policy('widgets', {}), spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: ['vap.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] }] }, validations: [{ expression: 'object.spec.size < 10', messageExpression: "'widget ' + object.metadata.name + ' is too big'" }] } });
    await apply(binding('widgets', 'widgets'));
    const widget = (name: string, size: number) => JSON.stringify({ apiVersion: 'vap.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'vap-free' }, spec: { size } });
    await inForce(widget('probe', 50), /is too big/);
    assert.equal((await create(widget('ok', 3))).code, 0);
    assert.match((await create(widget('huge', 12))).stderr, /The widgets "huge" is invalid: : ValidatingAdmissionPolicy 'widgets' with binding 'widgets' denied request: widget huge is too big/);
  });

  it('type checks a policy against the kinds it matches and reports it in status.typeChecking', async () => {
    await apply({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'typed' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        variables: [{ name: 'r', expression: 'object.spec.replicas' }],
        validations: [
          { expression: 'object.spec.replicass > 1' },
          { expression: "object.spec.template.spec.containers.all(c, c.image != '')", messageExpression: "'r=' + string(variables.r)" },
          { expression: "variables.r == 'three'" },
        ],
      },
    });
    const status = await until(async () => {
      const o = JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'json']));
      return o.status?.observedGeneration === o.metadata.generation ? o.status : undefined;
    }, 'type checking', 10_000);
    assert.deepEqual(status.typeChecking.expressionWarnings.map((w: Obj) => w.fieldRef), ['spec.validations[0].expression', 'spec.validations[2].expression']);
    assert.equal(status.typeChecking.expressionWarnings[0].warning, "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n");
    assert.match(status.typeChecking.expressionWarnings[1].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '\(int, string\)'/);
    // a fixed policy is checked again: no warnings
    await apply({ ...JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'json'])), spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas > 1' }] } });
    await until(async () => {
      const o = JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'json']));
      return o.status?.observedGeneration === o.metadata.generation && JSON.stringify(o.status.typeChecking) === '{}';
    }, 'type checking of the fixed policy', 10_000);
  });
});

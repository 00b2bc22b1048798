// Audit policy: decoding and kube's validation messages, and rule matching (first match wins).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePolicy, PolicyEvaluator } from '../../../../src/apiserver/audit/policy.js';
import type { RequestAttributes } from '../../../../src/api/rbac/rules.js';

const res = (verb: string, resource: string, o: Partial<RequestAttributes> = {}): RequestAttributes => ({
  verb, resourceRequest: true, apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: 'default', name: '', path: `/api/v1/${resource}`, ...o,
});
const nonRes = (path: string): RequestAttributes => ({ verb: 'get', resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path });
const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

function evaluator(yaml: string): PolicyEvaluator {
  return new PolicyEvaluator(parsePolicy(yaml));
}

describe('audit policy matching', () => {
  const p = evaluator(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: RequestResponse
  resources: [{group: "", resources: ["pods/log"]}]
- level: Request
  resources: [{group: "apps", resources: ["*/scale"]}]
- level: Metadata
  resources: [{group: "", resources: ["secrets"], resourceNames: ["top"]}]
  omitStages: [ResponseStarted]
- level: Request
  userGroups: ["devs"]
  verbs: ["create"]
  namespaces: ["team"]
- level: None
  resources: [{group: "", resources: ["pods/*"]}]
- level: Metadata
  nonResourceURLs: ["/healthz*", "/version"]
  omitManagedFields: false
- level: RequestResponse
  resources: [{group: "batch"}]
- level: Request
  resources: [{group: "", resources: ["*"]}]
  omitManagedFields: true
`);
  const level = (user: { name: string; groups?: string[] } | undefined, a: RequestAttributes) => p.evaluate(user, a).level;

  it('matches users, subresources, wildcards and resource names in order', () => {
    assert.equal(level({ name: 'system:kube-proxy' }, res('get', 'pods/log')), 'None');
    assert.equal(level(alice, res('get', 'pods', { subresource: 'log', name: 'p' })), 'RequestResponse');
    assert.equal(level(alice, res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale' })), 'Request');
    assert.equal(level(alice, res('update', 'deployments', { apiGroup: 'apps' })), 'None', 'no rule for apps/deployments itself');
    assert.equal(level(alice, res('get', 'secrets', { name: 'top' })), 'Metadata');
    assert.equal(level(alice, res('get', 'secrets', { name: 'other' })), 'Request', 'the catch-all core rule');
    assert.equal(level(alice, res('get', 'pods', { subresource: 'exec', name: 'p' })), 'None', 'pods/* covers subresources');
    assert.equal(level(alice, res('list', 'jobs', { apiGroup: 'batch' })), 'RequestResponse', 'a group with no resources is all of it');
  });

  it('matches groups, verbs and namespaces together', () => {
    assert.equal(level(alice, res('create', 'configmaps', { namespace: 'team' })), 'Request');
    assert.equal(level(alice, res('create', 'pods', { namespace: 'team', subresource: 'eviction' })), 'Request', 'the group rule comes before pods/*');
    assert.equal(level({ name: 'bob', groups: ['ops'] }, res('create', 'pods', { namespace: 'team', subresource: 'eviction' })), 'None');
    assert.equal(level(undefined, res('create', 'configmaps', { namespace: 'team' })), 'Request', 'no user: group rules do not match, the core catch-all does');
  });

  it('matches non-resource URLs exactly or by prefix, never resource requests', () => {
    assert.equal(level(alice, nonRes('/healthz')), 'Metadata');
    assert.equal(level(alice, nonRes('/healthz/etcd')), 'Metadata');
    assert.equal(level(alice, nonRes('/version')), 'Metadata');
    assert.equal(level(alice, nonRes('/version/')), 'None');
    assert.equal(level(alice, nonRes('/apis')), 'None', 'resource rules never match non-resource requests');
  });

  it('unions omitStages with the policy and lets a rule override omitManagedFields', () => {
    assert.deepEqual([...p.evaluate(alice, res('get', 'secrets', { name: 'top' })).omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.deepEqual([...p.evaluate(alice, nonRes('/version')).omitStages], ['RequestReceived']);
    assert.equal(p.evaluate(alice, res('get', 'configmaps')).omitManagedFields, true);
    assert.equal(p.evaluate(alice, nonRes('/version')).omitManagedFields, false);
    assert.deepEqual([...p.evaluate(alice, nonRes('/apis')).omitStages], ['RequestReceived'], 'no match: level None with the policy stages');
  });

  it('an empty rule matches everything', () => {
    const all = evaluator('{"apiVersion":"audit.k8s.io/v1","kind":"Policy","omitManagedFields":true,"rules":[{"level":"Metadata"}]}');
    assert.equal(all.evaluate(undefined, nonRes('/anything')).level, 'Metadata');
    assert.equal(all.evaluate(alice, res('delete', 'nodes', { namespace: '' })).omitManagedFields, true);
  });
});

describe('audit policy decoding', () => {
  const bad = (yaml: string) => {
    try {
      parsePolicy(yaml);
    } catch (e) {
      return (e as Error).message;
    }
    assert.fail('accepted');
  };
  const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';

  it('reports every rule error as kube aggregates them', () => {
    assert.equal(bad(`${head}rules:\n- level: Verbose\n`), 'rules[0].level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse"');
    assert.equal(bad(`${head}rules:\n- verbs: [get]\n`), 'rules[0].level: Required value');
    assert.equal(
      bad(`${head}omitStages: [Done]\nrules:\n- level: Metadata\n  nonResourceURLs: ["healthz", "/a*b"]\n  namespaces: [x]\n`),
      '[omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, ' +
        'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character, ' +
        'rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards \'*\' must be the final character of the rule, ' +
        'rules[0].nonResourceURLs: Invalid value: []string{"healthz", "/a*b"}: rules cannot apply to both regular resources and non-resource URLs]',
    );
    assert.equal(
      bad(`${head}rules:\n- level: Metadata\n  resources: [{group: "apps/v1", resourceNames: [x]}]\n`),
      '[rules[0].resources.group: Invalid value: "apps/v1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\'), ' +
        'rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource]',
    );
  });

  it('refuses no rules, other kinds and versions, and wrong types', () => {
    assert.equal(bad(`${head}rules: []\n`), 'loaded illegal policy with 0 rules');
    assert.equal(bad('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n'), 'unknown group version field audit.k8s.io/v1beta1, Kind=Policy in policy');
    assert.match(bad('apiVersion: audit.k8s.io/v1\nrules: [{level: None}]\n'), /^failed decoding: Object 'Kind' is missing in /);
    assert.equal(bad(`${head}rules:\n- level: Metadata\n  users: alice\n`), 'failed decoding: json: cannot unmarshal string into Go struct field PolicyRule.rules.users of type []string');
  });

  it('decodes leniently with a warning for unknown fields', () => {
    const warnings: string[] = [];
    const policy = parsePolicy(`${head}rules:\n- level: Metadata\n  verb: [get]\n`, (w) => warnings.push(w));
    assert.equal(policy.rules[0].verbs.length, 0);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /unknown field "rules\[0\]\.verb"/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  goLabelSelectorString,
  paramRefCell,
  validatingAdmissionPolicyBindingResource as vapb,
  validatingAdmissionPolicyResource as vap,
} from '../../../../src/api/admissionregistration/index.js';
import type { KObject } from '../../../../src/api/types.js';

const msgs = (errs: { toString(): string }[]) => errs.map(String);
const rule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };
const policy = (spec: Record<string, unknown>, name = 'replicas'): KObject => ({ metadata: { name }, spec });
const validPolicy = () => policy({ matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.spec.replicas <= 5' }] });
const checkPolicy = (o: KObject) => {
  vap.strategy.defaults!(o);
  return msgs(vap.strategy.validate!(o));
};

describe('ValidatingAdmissionPolicy', () => {
  it('defaults failurePolicy and the match constraints', () => {
    const o = validPolicy();
    vap.strategy.defaults!(o);
    assert.deepEqual(o.spec, {
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rule, scope: '*' }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    });
    assert.deepEqual(msgs(vap.strategy.validate!(o)), []);
  });

  it('requires match constraints with resource rules, and validations or audit annotations', () => {
    assert.deepEqual(checkPolicy(policy({})), [
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    assert.deepEqual(checkPolicy(policy({ matchConstraints: {}, validations: [{ expression: 'true' }] })), ['spec.matchConstraints.resourceRules: Required value']);
  });

  it('checks paramKind, validations, variables and audit annotations', () => {
    const errs = checkPolicy(
      policy({
        failurePolicy: 'Never',
        paramKind: { apiVersion: 'a/b/c', kind: 'Config_Map' },
        matchConstraints: { resourceRules: [{ ...rule, resourceNames: ['a', 'a', 'x/y'] }] },
        variables: [{ name: 'in', expression: '' }],
        validations: [{ expression: ' ', message: 'two\nlines', reason: 'Teapot', messageExpression: '  ' }],
        auditAnnotations: [{ key: 'k', valueExpression: "'x'" }, { key: 'k', valueExpression: '' }],
      }),
    );
    assert.deepEqual(errs, [
      'spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"',
      'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"',
      `spec.matchConstraints.resourceRules[0].resourceNames[2]: Invalid value: "x/y": may not contain '/'`,
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
      'spec.variables[0].expression: Required value: expression is not specified',
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].messageExpression: Invalid value: "  ": must be non-empty if specified',
      'spec.validations[0].message: Invalid value: "two\\nlines": message must not contain line breaks',
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      'spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified',
      'spec.auditAnnotations[1].key: Duplicate value: "k"',
    ]);
  });

  it('compiles every expression in the environment it runs in', () => {
    const errs = checkPolicy(policy({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [rule] },
      variables: [{ name: 'size', expression: 'size(object.data)' }, { name: 'big', expression: 'variables.size > params.max' }],
      validations: [
        { expression: 'variables.big == false', messageExpression: "authorizer.path('/').check('get').reason()" },
        { expression: 'variables.nope', messageExpression: "'n=' + string(variables.size)" },
      ],
      auditAnnotations: [{ key: 'k', valueExpression: 'size(object.data)' }],
    }));
    // params is undeclared without paramKind; variables are declared in order; messages have no authorizer
    assert.equal(errs.length, 4, errs.join('\n'));
    assert.match(errs[0]!, /^spec\.variables\[1\]\.expression: Invalid value: "variables\.size > params\.max": compilation failed: .*undeclared reference to 'params'/s);
    assert.match(errs[1]!, /^spec\.validations\[0\]\.messageExpression: .*undeclared reference to 'authorizer'/s);
    assert.match(errs[2]!, /^spec\.validations\[1\]\.expression: .*undefined field 'nope'/s);
    assert.match(errs[3]!, /^spec\.auditAnnotations\[0\]\.valueExpression: Invalid value: "size\(object\.data\)": must evaluate to one of \[string null_type\] but got int/);
  });

  it('resets status on create and prints NAME VALIDATIONS PARAMKIND AGE', () => {
    const o = validPolicy();
    o.status = { observedGeneration: 7 };
    vap.strategy.prepareForCreate!(o);
    assert.deepEqual(o.status, {});
    assert.deepEqual(vap.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Validations', 'integer'], ['ParamKind', 'string'], ['Age', 'string']]);
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-03T00:00:00Z');
    assert.deepEqual(vap.columns.map((c) => c.cell(o, { now })), ['replicas', 1, '<unset>', '2d']);
    (o.spec as Record<string, unknown>).paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
    assert.equal(vap.columns[2].cell(o, { now }), 'v1/ConfigMap');
  });
});

describe('ValidatingAdmissionPolicyBinding', () => {
  const binding = (spec: Record<string, unknown>): KObject => ({ metadata: { name: 'b' }, spec });
  const check = (o: KObject) => {
    vapb.strategy.defaults!(o);
    return msgs(vapb.strategy.validate!(o));
  };

  it('accepts a simple binding and defaults its match resources', () => {
    const o = binding({ policyName: 'replicas', validationActions: ['Deny'], matchResources: { resourceRules: [rule] } });
    assert.deepEqual(check(o), []);
    assert.equal((o.spec as { matchResources: { matchPolicy: string } }).matchResources.matchPolicy, 'Equivalent');
  });

  it('validates policyName, paramRef, actions (with kube\'s "matchResouces" path)', () => {
    assert.deepEqual(check(binding({})), [
      'spec.policyName: Required value',
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
    assert.deepEqual(
      check(binding({ policyName: 'P', paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Ignore' }, validationActions: ['Deny', 'Warn', 'Deny', 'Log'], matchResources: { matchPolicy: 'Loose' } })),
      [
        `spec.policyName: Invalid value: "P": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
        'spec.matchResouces.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
        'spec.validationActions[2]: Duplicate value: "Deny"',
        'spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", "Log"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    );
    assert.deepEqual(check(binding({ policyName: 'p', paramRef: {}, validationActions: ['Audit'] })), [
      'spec.paramRef: Required value: one of name or selector must be specified',
      'spec.paramRef.parameterNotFoundAction: Required value',
    ]);
  });

  it('prints NAME POLICYNAME PARAMREF AGE', () => {
    assert.deepEqual(vapb.columns.map((c) => c.name), ['Name', 'PolicyName', 'ParamRef', 'Age']);
    const pr = (paramRef?: Record<string, unknown>) => paramRefCell(binding(paramRef ? { paramRef } : {}) as never);
    assert.equal(pr(), '<unset>');
    assert.equal(pr({ name: 'cfg', namespace: 'ns' }), 'ns/cfg');
    assert.equal(pr({ name: 'cfg' }), '*/cfg');
    assert.equal(
      pr({ selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['x', 'y'] }] } }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[x y],},},}',
    );
    assert.equal(goLabelSelectorString({}), '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admissionregistrationResources,
  mutatingWebhookConfigurationResource as mwc,
  validatingWebhookConfigurationResource as vwc,
} from '../../../../src/api/admissionregistration/index.js';
import { parseGoURL, validateWebhookService, validateWebhookURL } from '../../../../src/api/admissionregistration/webhook-client.js';
import type { KObject } from '../../../../src/api/types.js';

const msgs = (errs: { toString(): string }[]) => errs.map(String);
const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'check.example.com',
  clientConfig: { service: { name: 'svc', namespace: 'ns' } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const cfg = (...webhooks: unknown[]): KObject => ({ metadata: { name: 'cfg' }, webhooks });
const validate = (o: KObject, mutating = false) => msgs((mutating ? mwc : vwc).strategy.validate!(o));

describe('webhook configurations: definitions', () => {
  it('are cluster-scoped api-extensions kinds with generation', () => {
    assert.deepEqual(
      admissionregistrationResources.map((r) => [r.plural, r.namespaced, r.categories, r.hasGeneration, !!r.subresources?.status]),
      [
        ['mutatingwebhookconfigurations', false, ['api-extensions'], true, false],
        ['validatingadmissionpolicies', false, ['api-extensions'], true, true],
        ['validatingadmissionpolicybindings', false, ['api-extensions'], true, false],
        ['validatingwebhookconfigurations', false, ['api-extensions'], true, false],
      ],
    );
    assert.equal(vwc.strategy.allowCreateOnUpdate, false);
    const webhooks = vwc.definitions['io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration'].properties!.webhooks;
    assert.deepEqual([webhooks.patchMergeKey, webhooks.patchStrategy, webhooks.listType, webhooks.listMapKeys], ['name', 'merge', 'map', ['name']]);
    assert.ok(!('reinvocationPolicy' in vwc.definitions['io.k8s.api.admissionregistration.v1.ValidatingWebhook'].properties!));
  });
});

describe('webhook configurations: defaults', () => {
  it('fills failurePolicy, matchPolicy, selectors, timeout, rule scope and service port', () => {
    const o = cfg(hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }));
    mwc.strategy.defaults!(o);
    assert.deepEqual((o.webhooks as unknown[])[0], {
      ...hook(),
      clientConfig: { service: { name: 'svc', namespace: 'ns', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
    const v = cfg(hook({ failurePolicy: 'Ignore', timeoutSeconds: 5 }));
    vwc.strategy.defaults!(v);
    const h = (v.webhooks as Record<string, unknown>[])[0];
    assert.equal(h.failurePolicy, 'Ignore');
    assert.equal(h.timeoutSeconds, 5);
    assert.ok(!('reinvocationPolicy' in h));
  });
});

describe('webhook configurations: validation', () => {
  it('accepts a minimal webhook', () => {
    assert.deepEqual(validate(cfg(hook())), []);
    assert.deepEqual(validate(cfg()), []);
  });

  it('requires sideEffects, admissionReviewVersions and a client config', () => {
    assert.deepEqual(validate(cfg({ name: 'a.b.c' })), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
  });

  it('checks names: fully qualified and unique', () => {
    assert.deepEqual(validate(cfg(hook({ name: 'short.name' }), hook({ name: '' }), hook(), hook())), [
      'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
      'webhooks[1].name: Required value',
      'webhooks[3].name: Duplicate value: "check.example.com"',
    ]);
    assert.match(validate(cfg(hook({ name: 'Bad.Example.com' })))[0], /^webhooks\[0\]\.name: Invalid value: "Bad.Example.com": a lowercase RFC 1123 subdomain/);
  });

  it('checks enums, timeouts and review versions', () => {
    assert.deepEqual(
      validate(
        cfg(hook({ failurePolicy: 'Maybe', matchPolicy: 'Fuzzy', sideEffects: 'Some', timeoutSeconds: 31, reinvocationPolicy: 'Always', admissionReviewVersions: ['v2', 'v2', 'V3'] })),
        true,
      ),
      [
        'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        'webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
        'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
        'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
        `webhooks[0].admissionReviewVersions[2]: Invalid value: "V3": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1',
      ],
    );
  });

  it('checks rules: operations, groups, versions, resources and scope', () => {
    const rule = (r: Record<string, unknown>) => validate(cfg(hook({ rules: [r] })));
    assert.deepEqual(rule({}), [
      'webhooks[0].rules[0].operations: Required value',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].apiVersions: Required value',
      'webhooks[0].rules[0].resources: Required value',
    ]);
    assert.deepEqual(rule({ operations: ['*', 'PATCH'], apiGroups: ['*', 'apps'], apiVersions: ['*', ''], resources: ['pods'], scope: 'Global' }), [
      'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "PATCH"}: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
      'webhooks[0].rules[0].apiVersions: Invalid value: []string{"*", ""}: if \'*\' is present, must not specify other API versions',
      'webhooks[0].rules[0].apiVersions[1]: Required value',
      'webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
    ]);
    const ok = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'] };
    assert.deepEqual(rule({ ...ok, resources: ['pods/*', 'pods/log', '*/status', 'deployments/status', '*', 'pods'] }), [
      "webhooks[0].rules[0].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log",
      "webhooks[0].rules[0].resources[3]: Invalid value: \"deployments/status\": if '*/status' is present, must not specify deployments/status",
      'webhooks[0].rules[0].resources: Invalid value: []string{"pods/*", "pods/log", "*/status", "deployments/status", "*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
    ]);
    assert.deepEqual(rule({ ...ok, resources: ['*/*', 'pods'] }), [
      'webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources',
    ]);
    assert.deepEqual(rule({ ...ok, resources: ['*', 'pods/status'] }), []);
  });

  it('checks selectors and match conditions', () => {
    const conds = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    assert.deepEqual(validate(cfg(hook({ matchConditions: conds }))), ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items']);
    assert.deepEqual(
      validate(cfg(hook({ objectSelector: { matchLabels: { 'a b': 'c' } }, matchConditions: [{ name: 'x', expression: ' ' }, { name: 'x', expression: 'true' }, { name: '-', expression: 'false' }] }))),
      [
        `webhooks[0].objectSelector.matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        'webhooks[0].matchConditions[0].expression: Required value',
        'webhooks[0].matchConditions[1].name: Duplicate value: "x"',
        `webhooks[0].matchConditions[2].name: Invalid value: "-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    );
  });
});

describe('match condition expressions', () => {
  it('are compiled: syntax, undeclared names, params, and a bool result', () => {
    const errs = validate(cfg(hook({ matchConditions: [
      { name: 'a', expression: 'object.metadata.name +' }, { name: 'b', expression: 'params.x' }, { name: 'c', expression: "'str'" },
      { name: 'd', expression: " request.userInfo.username == 'x' && authorizer.group('').resource('pods').check('get').allowed() " },
    ] })));
    assert.equal(errs.length, 3, errs.join('\n'));
    assert.match(errs[0]!, /^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.name \+": compilation failed: ERROR: <input>:1:23: Syntax error/);
    assert.match(errs[1]!, /^webhooks\[0\]\.matchConditions\[1\]\.expression: Invalid value: "params\.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' \(in container ''\)/);
    assert.equal(errs[2], `webhooks[0].matchConditions[2].expression: Invalid value: "'str'": must evaluate to bool but got string`);
  });
});

describe('webhook client config', () => {
  it('url xor service', () => {
    assert.deepEqual(validate(cfg(hook({ clientConfig: { url: 'https://a.example.com/hook', service: { name: 'a', namespace: 'b' } } }))), [
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
  });

  it('URLs must be https with a host and no user info, query or fragment', () => {
    assert.deepEqual(msgs(validateWebhookURL('u', 'http://user:pw@example.com/x?a=b#frag')), [
      `u: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'u: Invalid value: "user:pw": user information is not permitted in the URL',
      'u: Invalid value: "frag": fragments are not permitted in the URL',
      'u: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(msgs(validateWebhookURL('u', '/just/a/path')), [
      `u: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'u: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
    assert.deepEqual(msgs(validateWebhookURL('u', ':8080')), [
      'u: Required value: url must be a valid URL: parse ":8080": missing protocol scheme; desired format: https://host[/path]',
    ]);
    assert.deepEqual(msgs(validateWebhookURL('u', 'https://example.com:port/')), [
      'u: Required value: url must be a valid URL: parse "https://example.com:port/": invalid port ":port" after host; desired format: https://host[/path]',
    ]);
    assert.deepEqual(validateWebhookURL('u', 'https://10.0.0.1:8443/validate'), []);
    assert.deepEqual(parseGoURL('HTTPS://h/p'), { scheme: 'https', user: undefined, host: 'h', rawQuery: '', fragment: '' });
  });

  it('service references (Kubernetes swaps name and namespace in the messages)', () => {
    assert.deepEqual(msgs(validateWebhookService('s', { port: 0, path: 'x//Y' })), [
      's.name: Required value: service name is required',
      's.namespace: Required value: service namespace is required',
      's.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      "s.path: Invalid value: \"x//Y\": must start with a '/'",
      // Go drops the first character whatever it is, so "x//Y" is checked as "//Y".
      's.path: Invalid value: "x//Y": segment[0] may not be empty',
      's.path: Invalid value: "x//Y": segment[1] may not be empty',
      `s.path: Invalid value: "x//Y": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(msgs(validateWebhookService('s', { name: 'svc' })), ['s.name: Required value: service name is required']);
    assert.deepEqual(msgs(validateWebhookService('s', { namespace: 'ns' })), ['s.namespace: Required value: service namespace is required']);
    assert.deepEqual(msgs(validateWebhookService('s', { name: 'a', namespace: 'b', path: '//' })), ['s.path: Invalid value: "//": segment[0] may not be empty']);
    assert.deepEqual(validateWebhookService('s', { name: 'a', namespace: 'b', path: '/validate/pods/', port: 8443 }), []);
  });
});

describe('webhook configuration tables', () => {
  it('print NAME WEBHOOKS AGE', () => {
    const o = cfg(hook(), hook());
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T00:00:30Z');
    for (const def of [mwc, vwc]) {
      assert.deepEqual(def.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Webhooks', 'integer'], ['Age', 'string']]);
      assert.deepEqual(def.columns.map((c) => c.cell(o, { now })), ['cfg', 2, '30s']);
      assert.equal(def.columns[1].cell(cfg(), { now }), 0);
    }
  });
});

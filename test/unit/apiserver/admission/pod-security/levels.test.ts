// Namespace label parsing, level and version handling, and the PodSecurityConfiguration parser.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadAdmissionConfiguration, parsePodSecurityConfiguration } from '../../../../../src/apiserver/admission/pod-security/config.js';
import {
  aggregateErrors, compareLevels, levelVersionString, parseLevel, parseVersion, policyToEvaluate, PRIVILEGED_LATEST,
} from '../../../../../src/apiserver/admission/pod-security/levels.js';

describe('Pod Security levels and versions', () => {
  it('parses levels, failing closed to restricted', () => {
    assert.deepEqual(parseLevel('baseline'), { level: 'baseline' });
    assert.deepEqual(parseLevel('Baseline'), { level: 'restricted', error: 'must be one of privileged, baseline, restricted' });
  });

  it('parses versions: latest and v1.N only', () => {
    assert.equal(levelVersionString({ level: 'baseline', version: parseVersion('v1.33').version }), 'baseline:v1.33');
    assert.equal(levelVersionString({ level: 'baseline', version: parseVersion('latest').version }), 'baseline:latest');
    assert.equal(parseVersion('v1.0').error, undefined);
    for (const bad of ['1.33', 'v2.0', 'v1.033', 'v1.', 'v1.3.1', 'Latest', '']) {
      const r = parseVersion(bad);
      assert.equal(r.error, 'must be "latest" or "v1.x"', bad);
      assert.equal(r.version.latest, true);
    }
  });

  it('orders levels by strictness', () => {
    assert.equal(compareLevels('restricted', 'baseline'), 1);
    assert.equal(compareLevels('privileged', 'baseline'), -1);
    assert.equal(compareLevels('baseline', 'baseline'), 0);
  });

  it('resolves labels over the defaults', () => {
    const { policy, errors } = policyToEvaluate(
      { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/warn-version': 'v1.30' },
      PRIVILEGED_LATEST,
    );
    assert.deepEqual(errors, []);
    assert.equal(levelVersionString(policy.enforce), 'baseline:latest');
    assert.equal(levelVersionString(policy.audit), 'privileged:latest');
    assert.equal(levelVersionString(policy.warn), 'restricted:v1.30');
  });

  it('bad labels: enforce fails closed, audit and warn fail open, errors as kube words them', () => {
    const { policy, errors } = policyToEvaluate(
      { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/enforce-version': 'v1', 'pod-security.kubernetes.io/warn': 'nope' },
      PRIVILEGED_LATEST,
    );
    assert.equal(levelVersionString(policy.enforce), 'restricted:latest');
    assert.equal(policy.warn.level, 'privileged');
    assert.equal(
      aggregateErrors(errors),
      '[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, ' +
        'metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "v1": must be "latest" or "v1.x", ' +
        'metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "nope": must be one of privileged, baseline, restricted]',
    );
  });

  it('parses a PodSecurityConfiguration', () => {
    const c = parsePodSecurityConfiguration({
      apiVersion: 'pod-security.admission.config.k8s.io/v1',
      kind: 'PodSecurityConfiguration',
      defaults: { enforce: 'baseline', 'enforce-version': 'v1.29', warn: 'restricted' },
      exemptions: { namespaces: ['kube-system'], usernames: ['admin'] },
    });
    assert.equal(levelVersionString(c.defaults.enforce), 'baseline:v1.29');
    assert.equal(levelVersionString(c.defaults.warn), 'restricted:latest');
    assert.equal(levelVersionString(c.defaults.audit), 'privileged:latest');
    assert.deepEqual(c.exemptions, { namespaces: ['kube-system'], usernames: ['admin'], runtimeClasses: [] });
    assert.throws(
      () => parsePodSecurityConfiguration({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { audit: 'x' } }),
      /defaults.audit: Invalid value: "x": must be one of privileged, baseline, restricted/,
    );
  });

  it('loads the PodSecurity entry of an AdmissionConfiguration file, inline or by path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'psa-'));
    try {
      writeFileSync(join(dir, 'psa.yaml'), 'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: restricted\n');
      writeFileSync(join(dir, 'by-path.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: psa.yaml\n');
      assert.equal(loadAdmissionConfiguration(join(dir, 'by-path.yaml')).defaults.enforce.level, 'restricted');
      writeFileSync(
        join(dir, 'inline.yaml'),
        'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n    kind: PodSecurityConfiguration\n    defaults:\n      warn: baseline\n    exemptions:\n      runtimeClasses: [kata]\n',
      );
      const inline = loadAdmissionConfiguration(join(dir, 'inline.yaml'));
      assert.equal(inline.defaults.warn.level, 'baseline');
      assert.deepEqual(inline.exemptions.runtimeClasses, ['kata']);
      writeFileSync(join(dir, 'other.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
      assert.equal(loadAdmissionConfiguration(join(dir, 'other.yaml')).defaults.enforce.level, 'privileged');
      writeFileSync(join(dir, 'wrong.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
      assert.throws(() => loadAdmissionConfiguration(join(dir, 'wrong.yaml')), /expected apiserver.config.k8s.io\/v1 AdmissionConfiguration/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

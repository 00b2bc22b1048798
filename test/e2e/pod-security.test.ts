// PodSecurity admission end to end with real kubectl: enforce refuses with kube's message, warn levels warn on
// pods and workloads, namespace labels are validated, raising enforce warns about existing pods, and an
// AdmissionConfiguration file sets defaults and exemptions.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

type Kubectl = ReturnType<typeof kubectl>;

const bareContainer = { name: 'c', image: 'nginx' };
const pod = (name: string, ns: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec });
const restrictedSpec = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
};

/** A namespace with labels, once its default ServiceAccount exists (pods need it). */
async function namespace(k: Kubectl, name: string, labels: string[] = []): Promise<void> {
  await k.ok(['create', 'namespace', name]);
  if (labels.length) await k.ok(['label', 'namespace', name, ...labels]);
  await until(async () => (await k.run(['get', 'serviceaccount', 'default', '-n', name])).code === 0, `default ServiceAccount in ${name}`, 20_000);
}

const BARE_RESTRICTED =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
  'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
  'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
  'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity admission', () => {
  let server: K1sServer;
  let k: Kubectl;
  before(async () => {
    server = await startServer();
    k = kubectl(server, '1.33');
  });
  after(async () => {
    const code = await server.stop();
    assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
    removeDir(server.dataDir);
  });

  it('enforce=restricted refuses a privileged pod with kube\'s message and admits a compliant one', async () => {
    await namespace(k, 'strict', ['pod-security.kubernetes.io/enforce=restricted']);
    const r = await k.run(['create', '-f', '-'], { input: pod('x', 'strict', { containers: [{ ...bareContainer, securityContext: { privileged: true } }] }) });
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      'Error from server (Forbidden): error when creating "STDIN": pods "x" is forbidden: violates PodSecurity "restricted:latest": ' +
        'privileged (container "c" must not set securityContext.privileged=true), ' + BARE_RESTRICTED,
    );
    const ok = await k.run(['create', '-f', '-'], { input: pod('good', 'strict', restrictedSpec) });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr, '');
  });

  it('warn=baseline warns on a Deployment with hostNetwork and creates it', async () => {
    await namespace(k, 'watched', ['pod-security.kubernetes.io/warn=baseline']);
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'watched' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { hostNetwork: true, containers: [bareContainer] } } },
    };
    const r = await k.run(['create', '-f', '-'], { input: JSON.stringify(deployment) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.trim(), 'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
    assert.match(r.stdout, /deployment.apps\/web created/);
  });

  it('rejects an invalid label value', async () => {
    await namespace(k, 'labelled');
    const r = await k.run(['label', 'namespace', 'labelled', 'pod-security.kubernetes.io/enforce=strictest']);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /The Namespace "labelled" is invalid: metadata.labels\[pod-security.kubernetes.io\/enforce\]: Invalid value: "strictest": must be one of privileged, baseline, restricted/,
    );
    const c = await k.run(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'v', labels: { 'pod-security.kubernetes.io/warn-version': '1.30' } } }) });
    assert.match(c.stderr, /metadata.labels\[pod-security.kubernetes.io\/warn-version\]: Invalid value: "1.30": must be "latest" or "v1.x"/);
  });

  it('warns about existing pods when enforce is raised', async () => {
    await namespace(k, 'live');
    for (const name of ['p1', 'p2']) await k.ok(['create', '-f', '-'], { input: pod(name, 'live', { containers: [bareContainer] }) });
    await k.ok(['create', '-f', '-'], { input: pod('host', 'live', { hostPID: true, containers: [bareContainer] }) });
    const r = await k.run(['label', 'namespace', 'live', 'pod-security.kubernetes.io/enforce=baseline', 'pod-security.kubernetes.io/enforce-version=v1.33']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr.trim(),
      'Warning: existing pods in namespace "live" violate the new PodSecurity enforce level "baseline:v1.33"\nWarning: host: host namespaces',
    );
    const s = await k.run(['label', '--overwrite', 'namespace', 'live', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(s.code, 0, s.stderr);
    assert.equal(
      s.stderr.trim(),
      [
        'Warning: existing pods in namespace "live" violate the new PodSecurity enforce level "restricted:v1.33"',
        'Warning: host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
        'Warning: p1 (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      ].join('\n'),
    );
  });
});

describe('PodSecurity from an AdmissionConfiguration file', () => {
  let server: K1sServer;
  let k: Kubectl;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-psa-'));
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.k8s.io/v1',
        '    kind: PodSecurityConfiguration',
        '    defaults:',
        '      enforce: baseline',
        '      enforce-version: v1.33',
        '      warn: restricted',
        '    exemptions:',
        '      namespaces: [open]',
        '',
      ].join('\n'),
    );
    server = await startServer({ dataDir: dir, extraArgs: ['--admission-control-config-file', file] });
    k = kubectl(server, '1.33');
  });
  after(async () => {
    const code = await server.stop();
    assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
    removeDir(server.dataDir);
  });

  it('holds unlabelled namespaces to the default level, and exempts the listed namespace', async () => {
    await namespace(k, 'plain');
    const r = await k.run(['create', '-f', '-'], { input: pod('h', 'plain', { hostNetwork: true, containers: [bareContainer] }) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pods "h" is forbidden: violates PodSecurity "baseline:v1.33": host namespaces \(hostNetwork=true\)$/m);
    const w = await k.run(['create', '-f', '-'], { input: pod('w', 'plain', { containers: [bareContainer] }) });
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stderr.trim(), `Warning: would violate PodSecurity "restricted:latest": ${BARE_RESTRICTED}`);
    await namespace(k, 'open');
    const o = await k.run(['create', '-f', '-'], { input: pod('h', 'open', { hostNetwork: true, containers: [bareContainer] }) });
    assert.equal(o.code, 0, o.stderr);
    assert.equal(o.stderr, '');
  });

  it('refuses a bad configuration at start-up', async () => {
    const bad = join(server.dataDir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n    kind: PodSecurityConfiguration\n    defaults:\n      enforce: tight\n');
    await assert.rejects(startServer({ dataDir: join(server.dataDir, 'bad-start'), extraArgs: ['--admission-control-config-file', bad] }), /defaults.enforce: Invalid value: "tight": must be one of privileged, baseline, restricted/);
  });
});

// Each restricted check with kube's reason and detail texts, and the versions they start or change at.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Evaluator, forbiddenDetail } from '../../../../../src/apiserver/admission/pod-security/evaluator.js';
import { LATEST, minorVersion, type Version } from '../../../../../src/apiserver/admission/pod-security/levels.js';
import type { PodSpecLike } from '../../../../../src/apiserver/admission/pod-security/pod-view.js';
import { meta, restrictedContainer, restrictedSpec, withContainerSc } from './fixtures.js';

const evaluator = new Evaluator();
const restricted = (spec: PodSpecLike, version: Version = LATEST) => forbiddenDetail(evaluator.evaluate({ level: 'restricted', version }, meta(), spec));
const baseline = (spec: PodSpecLike) => forbiddenDetail(evaluator.evaluate({ level: 'baseline', version: LATEST }, meta(), spec));

const cases: { name: string; spec: PodSpecLike; want: string; version?: Version }[] = [
  { name: 'compliant pod', spec: restrictedSpec(), want: '' },
  { name: 'allowPrivilegeEscalation unset', spec: restrictedSpec({ containers: [{ name: 'c', securityContext: { capabilities: { drop: ['ALL'] } } }] }), want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)' },
  { name: 'allowPrivilegeEscalation true', spec: withContainerSc({ allowPrivilegeEscalation: true }), want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)' },
  { name: 'capabilities not dropped', spec: withContainerSc({ capabilities: {} }), want: 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])' },
  {
    name: 'capabilities not dropped and added',
    spec: restrictedSpec({ containers: [restrictedContainer('a', { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'] } })] }),
    want: 'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "CHOWN" in securityContext.capabilities.add)',
  },
  { name: 'NET_BIND_SERVICE may be added', spec: withContainerSc({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }), want: '' },
  {
    name: 'restricted volume types',
    spec: restrictedSpec({ volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'g', gitRepo: { repository: 'r' } }, { name: 'c', configMap: { name: 'x' } }, { name: 'w' }] }),
    want: 'restricted volume types (volumes "n", "g", "w" use restricted volume types "gitRepo", "nfs", "unknown")',
  },
  {
    name: 'runAsNonRoot unset',
    spec: restrictedSpec({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a'), restrictedContainer('b', { runAsNonRoot: true })] }),
    want: 'runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true)',
  },
  {
    name: 'runAsNonRoot false',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a', { runAsNonRoot: false })] }),
    want: 'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)',
  },
  {
    name: 'runAsUser 0',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a', { runAsUser: 0 })] }),
    want: 'runAsUser=0 (pod and container "a" must not set runAsUser=0)',
  },
  {
    name: 'runAsUser 0 is not checked before v1.23',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } }),
    version: minorVersion(22),
    want: '',
  },
  {
    name: 'seccomp unset',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true } }),
    want: 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  {
    name: 'seccomp set on the container is enough',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true }, containers: [restrictedContainer('c', { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } })] }),
    want: '',
  },
  {
    name: 'a windows pod skips the Linux-only checks from v1.25',
    spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'w', image: 'x' }] },
    want: '',
  },
  {
    name: 'a windows pod is checked at v1.24',
    spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'w', image: 'x' }] },
    version: minorVersion(24),
    want:
      'allowPrivilegeEscalation != false (container "w" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "w" must set securityContext.capabilities.drop=["ALL"]), ' +
      'seccompProfile (pod or container "w" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  {
    name: 'ephemeral containers count',
    spec: restrictedSpec({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }),
    want:
      'allowPrivilegeEscalation != false (container "debug" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "debug" must set securityContext.capabilities.drop=["ALL"])',
  },
];

describe('Pod Security restricted checks', () => {
  for (const c of cases) it(c.name, () => assert.equal(restricted(c.spec, c.version), c.want));

  it('the message of a bare pod, as kube prints it', () => {
    const spec: PodSpecLike = { containers: [{ name: 'c', image: 'nginx' }] };
    assert.equal(
      restricted(spec),
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(baseline(spec), '');
  });

  it('before v1.22 capabilities are held to baseline; before v1.8 privilege escalation is not checked', () => {
    const spec = restrictedSpec({ containers: [{ name: 'c', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] });
    assert.equal(
      restricted(spec, minorVersion(21)),
      'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add), ' +
        'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)',
    );
    assert.equal(restricted(spec, minorVersion(7)), 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
  });

  it('versions newer than any check evaluate as latest', () => {
    const spec = restrictedSpec({ securityContext: {} });
    assert.equal(restricted(spec, minorVersion(10000)), restricted(spec, LATEST));
    assert.equal(restricted(spec, minorVersion(33)), restricted(spec, LATEST));
  });
});

// Each baseline check, at baseline and (unless overridden) at restricted, with kube's reason and detail texts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Evaluator, forbiddenDetail } from '../../../../../src/apiserver/admission/pod-security/evaluator.js';
import { LATEST, minorVersion, type Level, type Version } from '../../../../../src/apiserver/admission/pod-security/levels.js';
import type { PodMeta, PodSpecLike } from '../../../../../src/apiserver/admission/pod-security/pod-view.js';
import { meta, restrictedContainer, restrictedSpec, withContainerSc, withPodSc } from './fixtures.js';

const evaluator = new Evaluator();
const detail = (level: Level, spec: PodSpecLike, m: PodMeta = meta(), version: Version = LATEST) =>
  forbiddenDetail(evaluator.evaluate({ level, version }, m, spec));

interface Case {
  name: string;
  spec: PodSpecLike;
  meta?: PodMeta;
  want: string;
  version?: Version;
  /** the restricted text when it differs (an overriding restricted check) */
  restricted?: string;
}

const cases: Case[] = [
  { name: 'hostNetwork, hostPID, hostIPC', spec: restrictedSpec({ hostNetwork: true, hostPID: true, hostIPC: true }), want: 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)' },
  { name: 'privileged', spec: withContainerSc({ privileged: true }), want: 'privileged (container "c" must not set securityContext.privileged=true)' },
  {
    name: 'privileged in two containers',
    spec: restrictedSpec({ initContainers: [restrictedContainer('i', { privileged: true })], containers: [restrictedContainer('c', { privileged: true })] }),
    want: 'privileged (containers "i", "c" must not set securityContext.privileged=true)',
  },
  {
    name: 'non-default capabilities',
    spec: restrictedSpec({ containers: [restrictedContainer('a', { capabilities: { drop: ['ALL'], add: ['SYS_TIME', 'NET_ADMIN', 'CHOWN'] } }), restrictedContainer('b', { capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] } })] }),
    want: 'non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)',
    restricted: 'unrestricted capabilities (containers "a", "b" must not include "CHOWN", "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)',
  },
  {
    name: 'hostPath volumes',
    spec: restrictedSpec({ volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }] }),
    want: 'hostPath volumes (volume "h")',
    restricted: 'restricted volume types (volume "h" uses restricted volume type "hostPath")',
  },
  {
    name: 'host ports, sorted as text',
    spec: restrictedSpec({ containers: [{ ...restrictedContainer('a'), ports: [{ hostPort: 8080 }, { hostPort: 443 }] }, { ...restrictedContainer('b'), ports: [{ containerPort: 80 } as never] }] }),
    want: 'hostPort (container "a" uses hostPorts 443, 8080)',
  },
  { name: 'procMount Unmasked', spec: withContainerSc({ procMount: 'Unmasked' }), want: 'procMount (container "c" must not set securityContext.procMount to "Unmasked")' },
  { name: 'procMount Default is fine', spec: withContainerSc({ procMount: 'Default' }), want: '' },
  {
    name: 'windows hostProcess, pod and container',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, windowsOptions: { hostProcess: true } }, containers: [restrictedContainer('c', { windowsOptions: { hostProcess: true } })] }),
    want: 'hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
  },
  {
    name: 'forbidden sysctls',
    spec: withPodSc({ sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }, { name: 'vm.swappiness', value: '1' }] }),
    want: 'forbidden sysctls (kernel.msgmax, vm.swappiness)',
  },
  { name: 'sysctl allowed from v1.32', spec: withPodSc({ sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] }), want: '' },
  { name: 'sysctl refused before v1.32', spec: withPodSc({ sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] }), version: minorVersion(31), want: 'forbidden sysctls (net.ipv4.tcp_rmem)' },
  { name: 'sysctl allowed from v1.27', spec: withPodSc({ sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1' }] }), version: minorVersion(27), want: '' },
  { name: 'sysctl refused at v1.26', spec: withPodSc({ sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1' }] }), version: minorVersion(26), want: 'forbidden sysctls (net.ipv4.ip_local_reserved_ports)' },
  { name: 'AppArmor Unconfined field', spec: withContainerSc({ appArmorProfile: { type: 'Unconfined' } }), want: 'forbidden AppArmor profile (container "c" must not set AppArmor profile type to "Unconfined")' },
  {
    name: 'AppArmor pod field and annotations',
    spec: withPodSc({ appArmorProfile: { type: 'Unconfined' } }),
    meta: meta({ 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/d': 'localhost/x' }),
    want: 'forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c=\\"unconfined\\"")',
  },
  {
    name: 'SELinux type, user and role',
    spec: restrictedSpec({ containers: [restrictedContainer('c', { seLinuxOptions: { type: 'spc_t', user: 'u', role: 'r' } })] }),
    want: 'seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
  },
  { name: 'SELinux container_engine_t from v1.31', spec: withPodSc({ seLinuxOptions: { type: 'container_engine_t' } }), want: '' },
  {
    name: 'SELinux container_engine_t before v1.31',
    spec: withPodSc({ seLinuxOptions: { type: 'container_engine_t' } }),
    version: minorVersion(30),
    want: 'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "container_engine_t")',
  },
  {
    name: 'seccomp Unconfined',
    spec: restrictedSpec({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Unconfined' } }, containers: [restrictedContainer('c', { seccompProfile: { type: 'Unconfined' } })] }),
    want: 'seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  {
    name: 'seccomp annotations before v1.19',
    spec: restrictedSpec(),
    meta: meta({ 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/c': 'docker/default' }),
    version: minorVersion(18),
    want: 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
  },
];

describe('Pod Security baseline checks', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(detail('baseline', c.spec, c.meta, c.version), c.want);
      // the restricted pod breaks only the baseline rule under test, so restricted reports the same
      if (c.version === undefined || c.version.minor >= 25) assert.equal(detail('restricted', c.spec, c.meta, c.version), c.restricted ?? c.want);
    });
  }

  it('reports every violated check in kube\'s order', () => {
    const spec = restrictedSpec({ hostNetwork: true, containers: [{ ...restrictedContainer('c', { privileged: true, appArmorProfile: { type: 'Unconfined' } }), ports: [{ hostPort: 80 }] }] });
    assert.equal(
      detail('baseline', spec),
      'forbidden AppArmor profile (container "c" must not set AppArmor profile type to "Unconfined"), host namespaces (hostNetwork=true), ' +
        'hostPort (container "c" uses hostPort 80), privileged (container "c" must not set securityContext.privileged=true)',
    );
  });

  it('privileged checks nothing', () => {
    assert.equal(detail('privileged', restrictedSpec({ hostNetwork: true })), '');
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { CRI_API_PROTO } from '../../../src/runtime/cri-api-proto.js';
import { CriClient } from '../../../src/runtime/cri-client.js';

const root = protobuf.parse(CRI_API_PROTO, { keepCase: true }).root;
root.resolveAll();

const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);

test('every RPC of both services has a CriClient method and every CriClient RPC method exists in the proto', () => {
  const rpcs = ['runtime.v1.RuntimeService', 'runtime.v1.ImageService'].flatMap((s) =>
    root.lookupService(s).methodsArray.map((m) => lowerFirst(m.name)),
  );
  const methods = Object.getOwnPropertyNames(CriClient.prototype).filter((m) => !['constructor', 'close', 'waitReady'].includes(m) && !m.startsWith('_'));
  const own = methods.filter((m) => !['call', 'rt'].includes(m));
  assert.deepEqual([...own].sort(), [...rpcs].sort());
  assert.equal(rpcs.length, 28);
});

test('wire tags match cri-api field numbers (spot checks decoded from raw bytes)', () => {
  // field number n of wire type 2 (length-delimited) → first byte (n << 3) | 2
  const tagOf = (type: string, obj: Record<string, unknown>): number => {
    const T = root.lookupType(`runtime.v1.${type}`);
    return T.encode(T.fromObject(obj)).finish()[0]! >> 3;
  };
  assert.equal(tagOf('ContainerConfig', { log_path: 'x' }), 11);
  assert.equal(tagOf('ContainerConfig', { linux: { resources: { cpu_shares: 2 } } }), 15);
  assert.equal(tagOf('PodSandboxConfig', { log_directory: 'x' }), 3);
  assert.equal(tagOf('PodSandboxConfig', { linux: { cgroup_parent: 'x' } }), 8);
  assert.equal(tagOf('LinuxSandboxSecurityContext', { run_as_group: { value: 1 } }), 8);
  assert.equal(tagOf('LinuxContainerSecurityContext', { seccomp: { profile_type: 2 } }), 15);
  assert.equal(tagOf('ImageSpec', { user_specified_image: 'x' }), 18);
  assert.equal(tagOf('ContainerStatus', { log_path: 'x' }), 15);
  assert.equal(tagOf('PodSandboxStatusResponse', { containers_statuses: [{ id: 'x' }] }), 3);
  assert.equal(tagOf('Mount', { uidMappings: [{ host_id: 1 }] }), 6);
  assert.equal(tagOf('AuthConfig', { registry_token: 'x' }), 6);
});

test('enums keep their cri-api numbers', () => {
  assert.equal(root.lookupEnum('runtime.v1.NamespaceMode').values.NODE, 2);
  assert.equal(root.lookupEnum('runtime.v1.ContainerState').values.CONTAINER_EXITED, 2);
  assert.equal(root.lookupEnum('runtime.v1.Signal').values.SIGNAL_SIGTERM, 23);
  assert.equal(root.lookupEnum('runtime.v1.SecurityProfile.ProfileType').values.Localhost, 2);
  assert.equal(root.lookupEnum('runtime.v1.MountPropagation').values.PROPAGATION_BIDIRECTIONAL, 2);
});

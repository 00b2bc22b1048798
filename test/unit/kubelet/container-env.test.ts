import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from '../../../src/api/core/pod/types.js';
import type { Service } from '../../../src/api/core/service/types.js';
import { resolveContainerEnv, serviceEnvVars, type EnvContext, type EnvResult } from '../../../src/kubelet/pods/container-env.js';
import { expand, expandCommandAndArgs, expandSubPathExpr, mappingFor } from '../../../src/kubelet/pods/env-expansion.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function ctx(objs: { configMaps?: Record<string, Record<string, string>>; secrets?: Record<string, Record<string, string>>; services?: Service[] } = {}): EnvContext & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async getConfigMap(ns, name) {
      reads.push(`cm/${ns}/${name}`);
      const d = objs.configMaps?.[`${ns}/${name}`];
      return d ? { data: d } : undefined;
    },
    async getSecret(ns, name) {
      reads.push(`secret/${ns}/${name}`);
      const d = objs.secrets?.[`${ns}/${name}`];
      return d ? { data: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, b64(v)])) } : undefined;
    },
    async listServices(ns) {
      return (objs.services ?? []).filter((s) => s.metadata?.namespace === ns);
    },
    nodeAllocatable: { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' },
    hostIPs: ['192.168.1.10', 'fd00::10'],
  };
}

function pod(container: Container, extra: Partial<Pod['spec']> = {}, meta: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'dapi-test-pod', namespace: 'demo', uid: 'uid-1', labels: { app: 'web', tier: 'front' }, annotations: { build: 'two', builder: 'john-doe' }, ...meta },
    spec: { nodeName: 'node-a', serviceAccountName: 'robot', containers: [container], ...extra },
    status: { podIPs: [{ ip: '10.42.0.7' }] },
  } as Pod;
}

const envOf = (r: EnvResult): Record<string, string> => {
  assert.ok('env' in r, JSON.stringify(r));
  return Object.fromEntries(r.env.map((e) => [e.name, e.value]));
};
const failureOf = (r: EnvResult): string => {
  assert.ok('failure' in r, JSON.stringify(r));
  assert.equal(r.failure.reason, 'CreateContainerConfigError');
  return r.failure.message;
};

test('expansion follows the kube expansion package: escapes, unknown and incomplete references', () => {
  const m = mappingFor(new Map([['VAR_A', 'A'], ['VAR_B', 'B'], ['VAR_EMPTY', '']]));
  const cases: [string, string][] = [
    ['$(VAR_A)', 'A'],
    ['___$(VAR_B)___', '___B___'],
    ['$(VAR_A)-$(VAR_A)', 'A-A'],
    ['$(VAR_A)_$(VAR_B)', 'A_B'],
    ['$(VAR_EMPTY)x', 'x'],
    ['$$(VAR_A)', '$(VAR_A)'],
    ['$$$(VAR_A)', '$A'],
    ['$$$$(VAR_A)', '$$(VAR_A)'],
    ['$(UNKNOWN)', '$(UNKNOWN)'],
    ['$(VAR_A', '$(VAR_A'],
    ['$VAR_A', '$VAR_A'],
    ['foo$', 'foo$'],
    ['$()', '$()'],
    ['$(VAR_A)$', 'A$'],
    ['$(VAR_A)$$', 'A$'],
    ['$(VAR_A)$(', 'A$('],
  ];
  for (const [input, want] of cases) assert.equal(expand(input, m), want, input);
});

test('the docs example: a value built from earlier variables; later ones are not visible yet', async () => {
  const c: Container = {
    name: 'c',
    env: [
      { name: 'GREETING', value: 'Warm greetings to' },
      { name: 'HONORIFIC', value: 'The Most Honorable' },
      { name: 'NAME', value: 'Kubernetes' },
      { name: 'MESSAGE', value: '$(GREETING) $(HONORIFIC) $(NAME)' },
      { name: 'EARLY', value: '$(LATER)' },
      { name: 'LATER', value: 'x' },
      { name: 'ESCAPED', value: '$$(NAME)' },
    ],
    command: ['echo'],
    args: ['$(MESSAGE)', '$$(NAME)', '$(MISSING)'],
  };
  const env = envOf(await resolveContainerEnv(ctx(), pod(c), c));
  assert.equal(env.MESSAGE, 'Warm greetings to The Most Honorable Kubernetes');
  assert.equal(env.EARLY, '$(LATER)');
  assert.equal(env.ESCAPED, '$(NAME)');
  const r = await resolveContainerEnv(ctx(), pod(c), c);
  assert.ok('env' in r);
  assert.deepEqual(expandCommandAndArgs(c, r.env), { command: ['echo'], args: ['Warm greetings to The Most Honorable Kubernetes', '$(NAME)', '$(MISSING)'] });
});

test('subPathExpr needs every reference to resolve to a non-empty value', () => {
  const env = [{ name: 'POD_NAME', value: 'p1' }, { name: 'EMPTY', value: '' }];
  assert.deepEqual(expandSubPathExpr('logs/$(POD_NAME)', env), { value: 'logs/p1' });
  assert.deepEqual(expandSubPathExpr('$(EMPTY)/$(NOPE)/$(A_NOPE)', env), { error: 'missing value for A_NOPE, EMPTY, NOPE' });
});

test('envFrom with prefix and optional sources; env overrides envFrom; each object read once', async () => {
  const k = ctx({
    configMaps: { 'demo/special-config': { SPECIAL_LEVEL: 'very', SPECIAL_TYPE: 'charm', '1bad': 'kept' } },
    secrets: { 'demo/creds': { user: 'admin', password: 'p@ss' } },
  });
  const c: Container = {
    name: 'c',
    envFrom: [
      { configMapRef: { name: 'special-config' } },
      { prefix: 'DB_', secretRef: { name: 'creds' } },
      { configMapRef: { name: 'absent', optional: true } },
      { secretRef: { name: 'absent-secret', optional: true } },
    ],
    env: [
      { name: 'SPECIAL_TYPE', value: 'strange' },
      { name: 'LEVEL_COPY', valueFrom: { configMapKeyRef: { name: 'special-config', key: 'SPECIAL_LEVEL' } } },
      { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'special-config', key: 'nope', optional: true } } },
      { name: 'OPT2', valueFrom: { secretKeyRef: { name: 'gone', key: 'k', optional: true } } },
      { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
    ],
  };
  const r = await resolveContainerEnv(k, pod(c), c);
  const env = envOf(r);
  assert.equal(env.SPECIAL_LEVEL, 'very');
  assert.equal(env.SPECIAL_TYPE, 'strange');
  assert.equal(env['1bad'], 'kept'); // 1.33: relaxed env names, the kubelet no longer skips keys
  assert.equal(env.DB_user, 'admin');
  assert.equal(env.DB_password, 'p@ss');
  assert.equal(env.LEVEL_COPY, 'very');
  assert.equal(env.PW, 'p@ss');
  assert.ok(!('OPT' in env) && !('OPT2' in env));
  assert.deepEqual(k.reads.filter((x) => x === 'cm/demo/special-config'), ['cm/demo/special-config']);
  assert.ok('env' in r);
  assert.deepEqual(r.env.slice(0, 3).map((e) => e.name), ['SPECIAL_LEVEL', 'SPECIAL_TYPE', '1bad']);
});

test('missing sources fail with the kubelet messages', async () => {
  const k = ctx({ configMaps: { 'demo/cm': { a: '1' } }, secrets: { 'demo/s': { a: '1' } } });
  const one = async (env: Container['env'], envFrom?: Container['envFrom']) => {
    const c: Container = { name: 'c', env, envFrom };
    return failureOf(await resolveContainerEnv(k, pod(c), c));
  };
  assert.equal(await one([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'a' } } }]), 'configmap "nope" not found');
  assert.equal(await one([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }]), "couldn't find key k in ConfigMap demo/cm");
  assert.equal(await one([{ name: 'X', valueFrom: { secretKeyRef: { name: 'nope', key: 'a' } } }]), 'secret "nope" not found');
  assert.equal(await one([{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]), "couldn't find key k in Secret demo/s");
  assert.equal(await one([], [{ configMapRef: { name: 'gone' } }]), 'configmap "gone" not found');
  assert.equal(await one([], [{ secretRef: { name: 'gone' } }]), 'secret "gone" not found');
  assert.equal(await one([{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }]), 'field label not supported: spec.bogus');
  assert.equal(
    await one([{ name: 'X', valueFrom: { resourceFieldRef: { containerName: 'other', resource: 'limits.cpu' } } }]),
    'container other not found',
  );
});

test('fieldRef: the downward API fields as environment variables', async () => {
  const fields = ['metadata.name', 'metadata.namespace', 'metadata.uid', "metadata.labels['app']", "metadata.annotations['builder']", "metadata.labels['none']",
    'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs', 'metadata.labels', 'metadata.annotations'];
  const c: Container = { name: 'c', env: fields.map((f, i) => ({ name: `F${i}`, valueFrom: { fieldRef: { fieldPath: f } } })) };
  const env = envOf(await resolveContainerEnv(ctx(), pod(c), c, { podIPs: ['10.42.0.9', 'fd42::9'] }));
  assert.deepEqual(fields.map((_, i) => env[`F${i}`]), [
    'dapi-test-pod', 'demo', 'uid-1', 'web', 'john-doe', '', 'node-a', 'robot', '192.168.1.10', '192.168.1.10,fd00::10',
    '10.42.0.9', '10.42.0.9,fd42::9', 'app="web"\ntier="front"', 'build="two"\nbuilder="john-doe"',
  ]);
});

test('resourceFieldRef: the docs example, divisors, rounding up, limits defaulted to node allocatable', async () => {
  const c: Container = {
    name: 'test-container',
    resources: { requests: { memory: '32Mi', cpu: '125m' }, limits: { memory: '64Mi', cpu: '250m' } },
    env: [
      ['MY_CPU_REQUEST', 'requests.cpu'], ['MY_CPU_LIMIT', 'limits.cpu'], ['MY_MEM_REQUEST', 'requests.memory'], ['MY_MEM_LIMIT', 'limits.memory'],
    ].map(([name, resource]) => ({ name, valueFrom: { resourceFieldRef: { containerName: 'test-container', resource } } })),
  };
  c.env!.push(
    { name: 'CPU_MILLI', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
    { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
    { name: 'MEM_THIRD', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '3' } } },
    { name: 'EPH', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage', divisor: '1Gi' } } },
    { name: 'EPH_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.ephemeral-storage' } } },
  );
  const env = envOf(await resolveContainerEnv(ctx(), pod(c), c));
  assert.equal(env.MY_CPU_REQUEST, '1');
  assert.equal(env.MY_CPU_LIMIT, '1');
  assert.equal(env.MY_MEM_REQUEST, '33554432');
  assert.equal(env.MY_MEM_LIMIT, '67108864');
  assert.equal(env.CPU_MILLI, '125');
  assert.equal(env.MEM_MI, '64');
  assert.equal(env.MEM_THIRD, '22369622');
  assert.equal(env.EPH, '100');
  assert.equal(env.EPH_REQ, '0');
  const bare: Container = { name: 'b', env: [{ name: 'L', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } }, { name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }] };
  const e2 = envOf(await resolveContainerEnv(ctx(), pod(bare), bare));
  assert.deepEqual([e2.L, e2.M], ['4000', String(8 * 2 ** 30)]);
});

const svc = (ns: string, name: string, clusterIP: string, ports: Record<string, unknown>[]): Service =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { clusterIP, ports } }) as Service;

test('service variables: host/port, named ports and Docker links, only for services with a cluster IP', () => {
  const vars = serviceEnvVars(svc('demo', 'redis-primary', '10.0.0.11', [{ port: 6379 }, { name: 'metrics', port: 9121, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }]));
  assert.deepEqual(Object.fromEntries(vars.map((v) => [v.name, v.value])), {
    REDIS_PRIMARY_SERVICE_HOST: '10.0.0.11',
    REDIS_PRIMARY_SERVICE_PORT: '6379',
    REDIS_PRIMARY_SERVICE_PORT_METRICS: '9121',
    REDIS_PRIMARY_SERVICE_PORT_DNS: '53',
    REDIS_PRIMARY_PORT: 'tcp://10.0.0.11:6379',
    REDIS_PRIMARY_PORT_6379_TCP: 'tcp://10.0.0.11:6379',
    REDIS_PRIMARY_PORT_6379_TCP_PROTO: 'tcp',
    REDIS_PRIMARY_PORT_6379_TCP_PORT: '6379',
    REDIS_PRIMARY_PORT_6379_TCP_ADDR: '10.0.0.11',
    REDIS_PRIMARY_PORT_9121_TCP: 'tcp://10.0.0.11:9121',
    REDIS_PRIMARY_PORT_9121_TCP_PROTO: 'tcp',
    REDIS_PRIMARY_PORT_9121_TCP_PORT: '9121',
    REDIS_PRIMARY_PORT_9121_TCP_ADDR: '10.0.0.11',
    REDIS_PRIMARY_PORT_53_UDP: 'udp://10.0.0.11:53',
    REDIS_PRIMARY_PORT_53_UDP_PROTO: 'udp',
    REDIS_PRIMARY_PORT_53_UDP_PORT: '53',
    REDIS_PRIMARY_PORT_53_UDP_ADDR: '10.0.0.11',
  });
  const v6 = serviceEnvVars(svc('demo', '9lives', 'fd00::1', [{ port: 80 }]));
  assert.equal(v6.find((v) => v.name === '_9LIVES_PORT')?.value, 'tcp://[fd00::1]:80');
});

test('the kubernetes service is always there; other services only with enableServiceLinks; env wins over them', async () => {
  const k = ctx({
    services: [
      svc('default', 'kubernetes', '10.43.0.1', [{ name: 'https', port: 443 }]),
      svc('default', 'other', '10.43.0.5', [{ port: 80 }]),
      svc('demo', 'web', '10.43.0.9', [{ port: 8080 }]),
      svc('demo', 'headless', 'None', [{ port: 80 }]),
    ],
  });
  const c: Container = { name: 'c', env: [{ name: 'WEB_SERVICE_PORT', value: 'mine' }, { name: 'URL', value: 'http://$(WEB_SERVICE_HOST):$(WEB_SERVICE_PORT)' }] };
  const env = envOf(await resolveContainerEnv(k, pod(c), c));
  assert.equal(env.KUBERNETES_SERVICE_HOST, '10.43.0.1');
  assert.equal(env.KUBERNETES_SERVICE_PORT_HTTPS, '443');
  assert.equal(env.KUBERNETES_PORT_443_TCP, 'tcp://10.43.0.1:443');
  assert.equal(env.WEB_SERVICE_HOST, '10.43.0.9');
  assert.equal(env.WEB_SERVICE_PORT, 'mine');
  assert.equal(env.URL, 'http://10.43.0.9:mine');
  assert.ok(!('OTHER_SERVICE_HOST' in env) && !('HEADLESS_SERVICE_HOST' in env));
  const off = envOf(await resolveContainerEnv(k, pod(c, { enableServiceLinks: false }), c));
  assert.equal(off.KUBERNETES_SERVICE_HOST, '10.43.0.1');
  assert.ok(!('WEB_SERVICE_HOST' in off));
  assert.equal(off.URL, 'http://$(WEB_SERVICE_HOST):mine');
});

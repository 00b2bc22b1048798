// NetworkPolicy on the real node: `k1s server` with its own containerd and its own pod network (bridge k1snp0,
// 10.47.0.0/16), busybox pods, real kubectl 1.33. Default-deny ingress, an allow-from-label rule on a named port,
// a namespaceSelector, Service traffic (ClusterIP and DNS name), egress isolation with DNS allowed by a port-53
// rule, removal restoring traffic, and no chain left behind once the server stops.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupNodeNetwork } from '../../src/network/host-cleanup.js';
import { removeNetworkPolicyChains } from '../../src/network/network-policy/enforcer.js';
import { policyChainPrefix } from '../../src/network/network-policy/rules.js';
import { iptablesSave } from '../../src/network/service-proxy/iptables.js';
import { removeNodeServiceProxyRules } from '../../src/network/service-proxy/node.js';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const BRIDGE = 'k1snp0';
const NETWORK_ARGS = ['--cluster-cidr', '10.47.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.147.0.0/16', '--disable-ingress', '--disable-servicelb'];
const NS = 'np-a';
const FRIENDS = 'np-b';
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;

const sleeper = (name: string, ns: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] },
});

const objects = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FRIENDS, labels: { team: 'friends' } } },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: NS, labels: { app: 'web' } },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'mkdir -p /www && echo served-by-web > /www/index.html && exec httpd -f -p 8080 -h /www'],
          ports: [{ name: 'http', containerPort: 8080 }],
          // the kubelet's probe comes from the node: it must keep passing under a deny-all policy
          readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 1 },
        },
      ],
    },
  },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } },
  sleeper('client', NS, { role: 'client' }),
  sleeper('other', NS, { role: 'other' }),
  sleeper('friend', FRIENDS, {}),
];

const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: NS }, spec });

async function apply(...docs: object[]): Promise<void> {
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }) });
}

/** what `wget` from the pod gets: the body, or 'blocked' when it gets no answer within 1 s (pods share one bridge) */
async function fetchFrom(ns: string, pod: string, url: string): Promise<string> {
  const r = await k.run(['exec', '-n', ns, pod, '--', 'timeout', '1', 'wget', '-qO-', url]);
  return r.code === 0 ? r.stdout.trim() : 'blocked';
}

/**
 * Whether the pod resolves the Service name to its cluster IP (last output kept for failure messages). The node's DNS
 * server is asked on the pod network's gateway, not on the kube-dns Service IP: other k1s clusters on this machine
 * serve the same Service IP and their proxy rules may catch it first.
 */
let lastLookup = '';
async function resolves(ns: string, pod: string, name: string): Promise<boolean> {
  const r = await k.run(['exec', '-n', ns, pod, '--', 'timeout', '3', 'nslookup', name, gateway]);
  lastLookup = `${pod}: exit ${r.code}: ${r.stdout} ${r.stderr}`;
  return r.code === 0 && /Address:?\s+10\.147\./.test(r.stdout.split(/Name:/).slice(1).join(''));
}

/** waits until `fn` gives `expected` (rules land within ~100 ms, but a blocked attempt takes its full 2 s) */
async function expectSoon(what: string, fn: () => Promise<unknown>, expected: unknown): Promise<void> {
  let last: unknown;
  await until(async () => (last = await fn()) === expected, `${what} (last: ${String(last)})`, 10_000);
}

/** the containerd shims of this data dir's containerd (one per running sandbox) */
function sandboxShims(dir: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return cmd.includes('containerd-shim') && cmd.includes(`${dir}/`);
      } catch {
        return false;
      }
    });
}

let webIP = '';
let svcIP = '';
let gateway = '';

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'k1s-e2e-netpol-'));
  server = await startServer({ dataDir, agent: true, extraArgs: NETWORK_ARGS });
  k = kubectl(server, '1.33');
  const load = await run(process.execPath, [k1sBin, 'image', 'load', '--data-dir', dataDir, join(k1sBin, '..', '..', 'dist', 'images', 'busybox.tar')]);
  assert.equal(load.code, 0, load.stderr);
  await until(async () => (await k.run(['get', 'serviceaccount', 'default', '-n', 'default'])).code === 0, 'default ServiceAccount', 30_000);
  await apply(objects[0]!, objects[1]!);
  await until(async () => (await k.run(['get', 'sa', 'default', '-n', NS])).code === 0 && (await k.run(['get', 'sa', 'default', '-n', FRIENDS])).code === 0, 'namespace ServiceAccounts', 30_000);
  await apply(...objects.slice(2));
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', 'pod/client', 'pod/other', '-n', NS, '--timeout=60s'], { timeoutMs: 70_000 });
  await k.ok(['wait', '--for=condition=Ready', 'pod/friend', '-n', FRIENDS, '--timeout=60s'], { timeoutMs: 70_000 });
  webIP = (await k.ok(['get', 'pod', 'web', '-n', NS, '-o', 'jsonpath={.status.podIP}'])).trim();
  svcIP = (await k.ok(['get', 'svc', 'web', '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  assert.match(webIP, /^10\.47\./);
  gateway = webIP.replace(/\.\d+$/, '.1');
});

after(async () => {
  try {
    if (server) {
      await k.run(['delete', 'namespace', NS, FRIENDS, '--wait=true', '--timeout=60s'], { timeoutMs: 90_000 });
      // pods outlive `k1s server`: let the kubelet stop every sandbox (their shims exit) before it stops
      await until(async () => sandboxShims(dataDir).length === 0, 'the kubelet to remove every sandbox', 60_000).catch((e) => console.error(String(e)));
      await server.stop();
      // the node removed its policy chains and the jumps into them when it stopped
      const prefix = policyChainPrefix(BRIDGE);
      const filter = await iptablesSave('filter');
      assert.deepEqual([...filter.chains, ...filter.rules].filter((l) => l.includes(`${prefix}-`)), []);
    }
  } finally {
    await cleanupNodeNetwork({ ipamDataDir: join(dataDir, 'agent', 'cni', 'networks'), bridge: BRIDGE, networkName: `k1s-pod-network-${BRIDGE}` }).catch(() => undefined);
    await removeNodeServiceProxyRules({ bridge: BRIDGE }).catch(() => undefined);
    await removeNetworkPolicyChains({ bridge: BRIDGE }).catch(() => undefined);
    removeDir(dataDir);
  }
});

test('default-deny ingress, allow-from-label on a named port, namespaceSelector, Services after DNAT', async () => {
  const web = `http://${webIP}:8080/`;
  const svc = `http://${svcIP}/`;
  // no policy: everyone reaches web, directly and through the Service
  assert.equal(await fetchFrom(NS, 'client', web), 'served-by-web');
  assert.equal(await fetchFrom(NS, 'other', svc), 'served-by-web');
  assert.equal(await fetchFrom(FRIENDS, 'friend', web), 'served-by-web');

  await apply(policy('default-deny', { podSelector: {} }));
  await expectSoon('client blocked by default-deny', () => fetchFrom(NS, 'client', web), 'blocked');
  // (blocked attempts take their full timeout: independent ones run side by side)
  const [viaService, fromFriend] = await Promise.all([fetchFrom(NS, 'other', svc), fetchFrom(FRIENDS, 'friend', web)]);
  assert.equal(viaService, 'blocked', 'a Service IP does not bypass the policy');
  assert.equal(fromFriend, 'blocked');

  await apply(policy('allow-client', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 'http' }] }] }));
  await expectSoon('client admitted', () => fetchFrom(NS, 'client', web), 'served-by-web');
  const [other, friend] = await Promise.all([fetchFrom(NS, 'other', web), fetchFrom(FRIENDS, 'friend', web)]);
  assert.equal(other, 'blocked');
  assert.equal(friend, 'blocked', 'pods of other namespaces do not count for a podSelector-only peer');

  await apply(policy('allow-friends', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'friends' } } }] }] }));
  await expectSoon('friend admitted by namespaceSelector', () => fetchFrom(FRIENDS, 'friend', svc), 'served-by-web');
  assert.equal(await fetchFrom(NS, 'other', svc), 'blocked');
  // seconds under isolation: the readiness probe (from the node) still passes, web stays Ready and an endpoint
  assert.equal((await k.ok(['get', 'pod', 'web', '-n', NS, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).trim(), 'True');
  assert.equal((await k.ok(['get', 'endpointslices', '-n', NS, '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].conditions.ready}'])).trim(), 'true');

  await k.ok(['delete', 'networkpolicy', '-n', NS, 'default-deny', 'allow-client', 'allow-friends']);
  await expectSoon('other admitted again', () => fetchFrom(NS, 'other', web), 'served-by-web');
  assert.equal(await fetchFrom(FRIENDS, 'friend', svc), 'served-by-web');
});

test('egress isolation: a port-53 rule keeps DNS, everything else is dropped; removal restores it', async () => {
  const web = `http://${webIP}:8080/`;
  const name = `web.${NS}.svc.cluster.local`;
  assert.ok(await resolves(NS, 'client', name), lastLookup);
  await apply(
    policy('client-dns-only', {
      podSelector: { matchLabels: { role: 'client' } },
      policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
    }),
    policy('other-no-egress', { podSelector: { matchLabels: { role: 'other' } }, policyTypes: ['Egress'] }),
  );
  await expectSoon('client egress to web dropped', () => fetchFrom(NS, 'client', web), 'blocked');
  assert.ok(await resolves(NS, 'client', name), `DNS allowed by the port-53 rule: ${lastLookup}`);
  const [otherResolves, otherFetch] = await Promise.all([resolves(NS, 'other', name), fetchFrom(NS, 'other', web)]);
  assert.equal(otherResolves, false, 'no egress rule: DNS to the node is dropped too');
  assert.equal(otherFetch, 'blocked');
  // ingress to an egress-isolated pod is not restricted: web → client's port is refused by the pod, not dropped
  const r = await k.run(['exec', '-n', NS, 'web', '--', 'timeout', '2', 'wget', '-qO-', `http://${(await k.ok(['get', 'pod', 'client', '-n', NS, '-o', 'jsonpath={.status.podIP}'])).trim()}:9/`]);
  assert.match(r.stderr, /refused/i);

  await k.ok(['delete', 'networkpolicy', '-n', NS, 'client-dns-only', 'other-no-egress']);
  await expectSoon('client reaches web again', () => fetchFrom(NS, 'client', web), 'served-by-web');
  assert.ok(await resolves(NS, 'other', name), lastLookup);
});

// The NetworkPolicy enforcer on the real host: pods and policies in an in-process k1s, "pods" as network namespaces
// on a test bridge (service-proxy/netns.ts), a service proxy beside it so Service traffic is judged after DNAT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { NetworkPolicyEnforcer, removeNetworkPolicyChains } from '../../../../src/network/network-policy/enforcer.js';
import { policyChainPrefix } from '../../../../src/network/network-policy/rules.js';
import { ServiceProxy } from '../../../../src/network/service-proxy/proxy.js';
import { iptablesSave, removeProxyChains } from '../../../../src/network/service-proxy/iptables.js';
import type { KObject } from '../../../../src/api/types.js';
import { createTestNetwork, httpGet, type TestNetwork } from '../service-proxy/netns.js';
import { service, slice } from '../service-proxy/fixtures.js';

const NODE = 'np-node';

async function ownRules(prefix: string): Promise<string[]> {
  const filter = await iptablesSave('filter');
  return [...filter.chains, ...filter.rules].filter((l) => l.includes(`${prefix}-`));
}

test('isolation, allow rules, Service traffic after DNAT, egress, prompt updates and cleanup on the real host', async (t) => {
  let cluster: ControllerCluster | undefined;
  let netw: TestNetwork | undefined;
  let enforcer: NetworkPolicyEnforcer | undefined;
  let proxy: ServiceProxy | undefined;
  const tag = Math.random().toString(16).slice(2, 6);
  const proxyPrefix = `KT${tag}`;
  let prefix = '';
  t.after(async () => {
    await enforcer?.stop().catch(() => undefined);
    if (prefix) await removeNetworkPolicyChains({ prefix }).catch(() => undefined);
    await proxy?.stop().catch(() => undefined);
    await removeProxyChains({ prefix: proxyPrefix }).catch(() => undefined);
    await netw?.destroy();
    await cluster?.close();
  });
  cluster = await controllerCluster([]);
  netw = await createTestNetwork();
  prefix = policyChainPrefix(netw.bridge);
  const a = await netw.addPod('a', 2);
  const b = await netw.addPod('b', 3);
  const c = await netw.addPod('c', 4);
  await Promise.all([netw.serveHttp(a.ns, 8080, 'pod-a'), netw.serveHttp(b.ns, 8080, 'pod-b')]);

  const pods = cluster.client.resource('v1', 'pods');
  const ns = 'default';
  for (const [name, ip, labels] of [['a', a.ip, { app: 'web' }], ['b', b.ip, { role: 'client' }], ['c', c.ip, { role: 'other' }]] as const) {
    const created = await pods.create(ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'k1s.local/busybox:1.35', ports: [{ name: 'http', containerPort: 8080 }] }] },
    } as KObject);
    await pods.update(ns, { ...created, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } } as KObject, { subresource: 'status' });
  }
  // a ClusterIP Service in front of pod a
  const svcIP = `10.43.${200 + Math.floor(Math.random() * 50)}.${10 + Math.floor(Math.random() * 200)}`;
  await cluster.client.resource('v1', 'services').create(ns, { ...service('web', { clusterIP: svcIP, clusterIPs: [svcIP], ports: [{ port: 80, targetPort: 8080 }] }), metadata: { name: 'web', namespace: ns } });
  await cluster.client.resource('discovery.k8s.io/v1', 'endpointslices').create(ns, slice('web', [{ ip: a.ip, node: NODE }], [{ port: 8080 }], { namespace: ns }));
  proxy = await ServiceProxy.start({ client: cluster.client, nodeName: NODE, clusterCIDR: netw.cidr, prefix: proxyPrefix, conntrackCleanup: false, log: (l) => cluster!.logs.push(l) });
  enforcer = await NetworkPolicyEnforcer.start({ client: cluster.client, nodeName: NODE, bridge: netw.bridge, log: (l) => cluster!.logs.push(l) });
  assert.equal(enforcer.stats.failures, 0, cluster.logs.join('\n'));

  const get = async (from: string, url: string, seconds = 1) => {
    const r = await netw!.exec(from, ['timeout', String(seconds), 'busybox', 'wget', '-qO-', url]);
    return r.exitCode === 0 ? r.stdout : 'blocked';
  };
  const webURL = `http://${a.ip}:8080/`;
  const svcURL = `http://${svcIP}/`;
  assert.equal(await get(b.ns, webURL, 3), 'pod-a');
  assert.equal(await get(c.ns, webURL, 3), 'pod-a');
  assert.equal(await get(c.ns, svcURL, 3), 'pod-a');

  const policies = cluster.client.resource('networking.k8s.io/v1', 'networkpolicies');
  /** creates/deletes, then waits for the sync that follows; returns the ms from the API write to the host rules */
  const applied = async (write: () => Promise<unknown>): Promise<number> => {
    const t0 = Date.now();
    const before = enforcer!.stats.syncs;
    await write();
    await cluster!.waitFor('network policy sync', () => enforcer!.stats.syncs > before && enforcer!.stats.lastSyncAt >= t0, 2000);
    syncMs.push(Math.round(enforcer!.stats.lastSyncMs));
    return enforcer!.stats.lastSyncAt - t0;
  };
  const latencies: number[] = [];
  const syncMs: number[] = [];

  // default deny ingress for app=web: both clients blocked, directly and through the Service; the node still reaches it
  latencies.push(await applied(() => policies.create(ns, { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny', namespace: ns }, spec: { podSelector: { matchLabels: { app: 'web' } } } } as KObject)));
  assert.deepEqual(enforcer.podPolicies().map((p) => p.name), ['a']);
  assert.equal(await get(b.ns, webURL), 'blocked');
  assert.equal(await get(c.ns, svcURL), 'blocked');
  assert.equal(await httpGet(webURL), 'pod-a', 'node → pod is always allowed');
  assert.equal(await get(a.ns, `http://${b.ip}:8080/`, 3), 'pod-b', 'egress of the isolated pod is not restricted');

  // allow role=client on the named port: b gets through (also via the Service IP), c does not
  latencies.push(
    await applied(() =>
      policies.create(ns, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'allow-client', namespace: ns },
        spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [
            {
              from: [{ podSelector: { matchLabels: { role: 'client' } } }],
              // the host's iptables must take every port form: named, ranges, SCTP, protocol-only
              ports: [{ port: 'http' }, { protocol: 'SCTP', port: 9000, endPort: 9010 }, { protocol: 'UDP', port: 5000, endPort: 5100 }, { protocol: 'UDP' }],
            },
          ],
        },
      } as KObject),
    ),
  );
  assert.equal(await get(b.ns, webURL, 3), 'pod-a');
  assert.equal(await get(b.ns, svcURL, 3), 'pod-a');
  assert.equal(await get(c.ns, webURL), 'blocked');
  assert.equal(await get(c.ns, svcURL), 'blocked');
  const ingressRules = (await ownRules(prefix)).filter((l) => l.includes(`-s ${b.ip}/32`));
  for (const want of ['-p tcp -m tcp --dport 8080', '-p sctp -m sctp --dport 9000:9010', '-p udp -m udp --dport 5000:5100', '-p udp -j RETURN']) {
    assert.ok(ingressRules.some((l) => l.includes(want)), `${want} in\n${ingressRules.join('\n')}`);
  }

  // egress isolation of b with only DNS allowed: b can no longer reach a or c's peer b; an allow for port 8080 reopens
  latencies.push(
    await applied(() =>
      policies.create(ns, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'b-egress', namespace: ns },
        spec: { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }] },
      } as KObject),
    ),
  );
  assert.equal(await get(b.ns, webURL), 'blocked');
  assert.equal(await get(b.ns, `http://${netw.gateway}:1/`), 'blocked', 'egress to the node is judged too');
  assert.equal(await get(c.ns, `http://${b.ip}:8080/`, 3), 'pod-b', 'replies of allowed connections pass');
  latencies.push(
    await applied(async () => {
      const cur = await policies.get(ns, 'b-egress');
      const spec = { ...(cur.spec as object), egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }, { to: [{ ipBlock: { cidr: netw!.cidr, except: [`${c.ip}/32`] } }], ports: [{ port: 8080 }] }] };
      return policies.update(ns, { ...cur, spec } as KObject);
    }),
  );
  assert.equal(await get(b.ns, webURL, 3), 'pod-a');
  const rules = await ownRules(prefix);
  assert.ok(rules.some((l) => l.includes(`-A ${prefix}-FORWARD`) && l.includes(`-s ${b.ip}/32`)), rules.join('\n'));

  // removing the policies restores traffic; the chains of pods no longer isolated go
  latencies.push(await applied(() => Promise.all(['deny', 'allow-client', 'b-egress'].map((n) => policies.delete(ns, n)))));
  assert.equal(await get(c.ns, webURL, 3), 'pod-a');
  assert.equal(await get(c.ns, svcURL, 3), 'pod-a');
  assert.deepEqual((await iptablesSave('filter')).chains.filter((ch) => ch.startsWith(`${prefix}-`)).sort(), [`${prefix}-FORWARD`, `${prefix}-INPUT`]);
  t.diagnostic(`API write → rules on the host: ${latencies.join(', ')} ms (of which sync: ${syncMs.join(', ')} ms)`);
  for (const ms of latencies) assert.ok(ms < 250, `sync took ${ms} ms`);

  // stop removes everything: chains and the jumps from FORWARD / INPUT
  await enforcer.stop();
  enforcer = undefined;
  assert.deepEqual(await ownRules(prefix), []);
});

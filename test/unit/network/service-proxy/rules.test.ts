import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { buildServicePorts, categorizeEndpoints } from '../../../../src/network/service-proxy/model.js';
import { buildProxyRules, chainContents, chainHash, restoreText, jumpRules, type ProxyRules } from '../../../../src/network/service-proxy/rules.js';
import { parseSave } from '../../../../src/network/service-proxy/iptables.js';
import { proxyChainPrefix } from '../../../../src/network/service-proxy/node.js';
import { service, slice } from './fixtures.js';

const OPTS = { prefix: 'K1S', clusterCIDR: '10.42.0.0/16' };

function rulesFor(services: ReturnType<typeof service>[], slices: ReturnType<typeof slice>[], nodeName = 'n1'): ProxyRules {
  return buildProxyRules(buildServicePorts(services, slices, { nodeName }), OPTS);
}

test('chain names hash like kube-proxy (base32 of sha256, 16 characters)', () => {
  // values from kube-proxy's own golden rules (pkg/proxy/iptables)
  assert.equal(chainHash('ns1/svc1:p80', 'tcp'), 'XPGD46QRK7WJZT7O');
  assert.equal(chainHash('ns1/svc1:p80', 'tcp', '10.180.0.1:80'), 'SXIVWICOYRO3J4NJ');
  assert.equal(chainHash('ns4/svc4:p80', 'tcp'), '4SW47YFZTEDKD3PK');
});

test('golden: a ClusterIP Service with two endpoints and one without endpoints', () => {
  const r = rulesFor(
    [service('web', { clusterIP: '10.43.0.20', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }), service('empty', { clusterIP: '10.43.0.21', ports: [{ port: 80 }] })],
    [slice('web', [{ ip: '10.42.0.5', node: 'n1' }, { ip: '10.42.0.4', node: 'n2' }], [{ name: 'http', port: 8080 }])],
  );
  const text = restoreText(r, { stale: { nat: ['K1S-SVC-GONE'], filter: [] }, missingJumps: jumpRules('K1S').slice(0, 1) });
  assert.equal(
    text,
    `*filter
:K1S-SERVICES - [0:0]
:K1S-EXTERNAL-SERVICES - [0:0]
:K1S-FORWARD - [0:0]
:K1S-FIREWALL - [0:0]
-A K1S-FORWARD -m conntrack --ctstate INVALID -j DROP
-A K1S-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
-A K1S-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A K1S-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A K1S-SERVICES -m comment --comment "ns1/empty has no endpoints" -m tcp -p tcp -d 10.43.0.21 --dport 80 -j REJECT
COMMIT
*nat
:K1S-SERVICES - [0:0]
:K1S-NODEPORTS - [0:0]
:K1S-POSTROUTING - [0:0]
:K1S-MARK-MASQ - [0:0]
:K1S-SVC-4LVCYZMTA5CQO6SX - [0:0]
:K1S-SEP-HLDZENOJCEHZDNS5 - [0:0]
:K1S-SEP-MHXJ4ILTEQGBXWXZ - [0:0]
:K1S-SVC-GONE - [0:0]
-I PREROUTING 1 -m comment --comment "k1s service portals" -j K1S-SERVICES
-A K1S-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A K1S-POSTROUTING -j MARK --xor-mark 0x4000
-A K1S-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A K1S-MARK-MASQ -j MARK --or-mark 0x4000
-A K1S-SERVICES -m comment --comment "ns1/web:http cluster IP" -m tcp -p tcp -d 10.43.0.20 --dport 80 -j K1S-SVC-4LVCYZMTA5CQO6SX
-A K1S-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j K1S-NODEPORTS
-A K1S-SVC-4LVCYZMTA5CQO6SX -m comment --comment "ns1/web:http cluster IP" -m tcp -p tcp -d 10.43.0.20 --dport 80 ! -s 10.42.0.0/16 -j K1S-MARK-MASQ
-A K1S-SVC-4LVCYZMTA5CQO6SX -m comment --comment "ns1/web:http -> 10.42.0.4:8080" -m statistic --mode random --probability 0.5000000000 -j K1S-SEP-HLDZENOJCEHZDNS5
-A K1S-SVC-4LVCYZMTA5CQO6SX -m comment --comment "ns1/web:http -> 10.42.0.5:8080" -j K1S-SEP-MHXJ4ILTEQGBXWXZ
-A K1S-SEP-HLDZENOJCEHZDNS5 -m comment --comment ns1/web:http -s 10.42.0.4 -j K1S-MARK-MASQ
-A K1S-SEP-HLDZENOJCEHZDNS5 -m comment --comment ns1/web:http -m tcp -p tcp -j DNAT --to-destination 10.42.0.4:8080
-A K1S-SEP-MHXJ4ILTEQGBXWXZ -m comment --comment ns1/web:http -s 10.42.0.5 -j K1S-MARK-MASQ
-A K1S-SEP-MHXJ4ILTEQGBXWXZ -m comment --comment ns1/web:http -m tcp -p tcp -j DNAT --to-destination 10.42.0.5:8080
-X K1S-SVC-GONE
COMMIT
`,
  );
});

test('probabilities spread evenly over three endpoints; the last jump is unconditional', () => {
  const r = rulesFor(
    [service('s', { clusterIP: '10.43.0.30', ports: [{ port: 53, protocol: 'UDP' }] })],
    [slice('s', [{ ip: '10.42.0.7' }, { ip: '10.42.0.10' }, { ip: '10.42.0.9' }], [{ port: 5353, protocol: 'UDP' }])],
  );
  const jumps = r.nat.rules.filter((l) => l.includes(' -> '));
  assert.deepEqual(
    jumps.map((l) => [/-> (\S+)"/.exec(l)?.[1], /--probability (\S+)/.exec(l)?.[1]]),
    [
      ['10.42.0.7:5353', '0.3333333333'],
      ['10.42.0.9:5353', '0.5000000000'],
      ['10.42.0.10:5353', undefined],
    ],
    'sorted by address, not by string',
  );
  assert.ok(r.nat.rules.some((l) => l.includes('-m udp -p udp -j DNAT --to-destination 10.42.0.10:5353')));
});

test('sessionAffinity ClientIP: recent checks before the random jumps, --set on the DNAT', () => {
  const r = rulesFor(
    [service('s', { clusterIP: '10.43.0.31', ports: [{ port: 80 }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })],
    [slice('s', [{ ip: '10.42.0.2' }, { ip: '10.42.0.3' }], [{ port: 80 }])],
  );
  const svc = r.nat.chains.find((c) => c.startsWith('K1S-SVC-'))!;
  const chainRules = r.nat.rules.filter((l) => l.startsWith(`-A ${svc} `));
  assert.match(chainRules[1]!, /-m recent --name K1S-SEP-\S+ --rcheck --seconds 60 --reap -j K1S-SEP-/);
  assert.match(chainRules[2]!, /-m recent --name K1S-SEP-\S+ --rcheck --seconds 60 --reap/);
  assert.match(chainRules[3]!, /--probability 0.5000000000/);
  assert.equal(r.nat.rules.filter((l) => / -m recent --name (K1S-SEP-\S+) --set -j DNAT/.test(l)).length, 2);
  const sep = /-j (K1S-SEP-\S+)$/.exec(chainRules[1]!)![1];
  assert.ok(r.nat.rules.some((l) => l.startsWith(`-A ${sep} `) && l.includes(`--name ${sep} --set`)), 'the recent list is named after its endpoint chain');
  // the default timeout is 3 hours
  const d = rulesFor([service('s', { clusterIP: '10.43.0.31', ports: [{ port: 80 }], sessionAffinity: 'ClientIP' })], [slice('s', [{ ip: '10.42.0.2' }], [{ port: 80 }])]);
  assert.ok(d.nat.rules.some((l) => l.includes('--seconds 10800 --reap')));
});

test('NodePort: KUBE-NODEPORTS → EXT chain that masquerades; no endpoints rejects on the node port', () => {
  const svcs = [service('np', { type: 'NodePort', clusterIP: '10.43.0.40', ports: [{ name: 'web', port: 80, nodePort: 30080 }] })];
  const r = rulesFor(svcs, [slice('np', [{ ip: '10.42.0.2' }], [{ name: 'web', port: 8080 }])]);
  const { ext, svc } = chains('np:web');
  assert.ok(r.nat.rules.includes(`-A K1S-NODEPORTS -m comment --comment ns1/np:web -m tcp -p tcp --dport 30080 -j ${ext}`));
  assert.ok(r.nat.rules.includes(`-A ${ext} -m comment --comment "masquerade traffic for ns1/np:web external destinations" -j K1S-MARK-MASQ`));
  assert.ok(r.nat.rules.includes(`-A ${ext} -j ${svc}`));
  const none = rulesFor(svcs, []);
  assert.ok(
    none.filter.rules.includes(
      '-A K1S-EXTERNAL-SERVICES -m comment --comment "ns1/np:web has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT',
    ),
  );
  assert.ok(!none.nat.rules.some((l) => l.includes('30080')), 'no DNAT without endpoints');
  // the node ports rule stays the last of K1S-SERVICES
  const services = r.nat.rules.filter((l) => l.startsWith('-A K1S-SERVICES '));
  assert.match(services.at(-1)!, /-m addrtype --dst-type LOCAL -j K1S-NODEPORTS$/);
});

test('externalTrafficPolicy Local: pod and LOCAL traffic may use any endpoint, the rest only local ones', () => {
  const svcs = [service('lb', { type: 'NodePort', externalTrafficPolicy: 'Local', clusterIP: '10.43.0.41', ports: [{ port: 80, nodePort: 30081 }] })];
  const r = rulesFor(svcs, [slice('lb', [{ ip: '10.42.0.2', node: 'n1' }, { ip: '10.42.1.2', node: 'n2' }], [{ port: 80 }])]);
  const { ext, svc, svl } = chains('lb');
  const extRules = r.nat.rules.filter((l) => l.startsWith(`-A ${ext} `));
  assert.deepEqual(extRules, [
    `-A ${ext} -m comment --comment "pod traffic for ns1/lb external destinations" -s 10.42.0.0/16 -j ${svc}`,
    `-A ${ext} -m comment --comment "masquerade LOCAL traffic for ns1/lb external destinations" -m addrtype --src-type LOCAL -j K1S-MARK-MASQ`,
    `-A ${ext} -m comment --comment "route LOCAL traffic for ns1/lb external destinations" -m addrtype --src-type LOCAL -j ${svc}`,
    `-A ${ext} -j ${svl}`,
  ]);
  assert.deepEqual(r.nat.rules.filter((l) => l.startsWith(`-A ${svl} `)).length, 1, 'one local endpoint');
  // on a node without local endpoints the node port drops (no REJECT: other nodes do have endpoints)
  const other = rulesFor(svcs, [slice('lb', [{ ip: '10.42.1.2', node: 'n2' }], [{ port: 80 }])]);
  assert.ok(other.filter.rules.some((l) => l.includes('"ns1/lb has no local endpoints" -m addrtype --dst-type LOCAL') && l.endsWith('-j DROP')));
  assert.ok(other.nat.rules.some((l) => l.includes('ns1/lb cluster IP')), 'the cluster IP still works');
});

test('internalTrafficPolicy Local: the cluster IP jumps to the local chain, or drops without local endpoints', () => {
  const svcs = [service('itp', { internalTrafficPolicy: 'Local', clusterIP: '10.43.0.42', ports: [{ port: 80 }] })];
  const r = rulesFor(svcs, [slice('itp', [{ ip: '10.42.0.2', node: 'n1' }, { ip: '10.42.1.2', node: 'n2' }], [{ port: 80 }])]);
  const { svl } = chains('itp');
  assert.ok(r.nat.rules.includes(`-A K1S-SERVICES -m comment --comment "ns1/itp cluster IP" -m tcp -p tcp -d 10.43.0.42 --dport 80 -j ${svl}`));
  assert.deepEqual(r.nat.rules.filter((l) => l.startsWith(`-A ${svl} `)), [`-A ${svl} -m comment --comment "ns1/itp -> 10.42.0.2:80" -j ${chainsOf(r, 'SEP')[0]}`]);
  const other = rulesFor(svcs, [slice('itp', [{ ip: '10.42.1.2', node: 'n2' }], [{ port: 80 }])]);
  assert.ok(other.filter.rules.includes('-A K1S-SERVICES -m comment --comment "ns1/itp has no local endpoints" -m tcp -p tcp -d 10.43.0.42 --dport 80 -j DROP'));
});

test('endpoint choice: ready ones; else serving terminating ones; never not-ready ones', () => {
  const mk = (eps: Parameters<typeof slice>[1]) =>
    buildServicePorts([service('s', { clusterIP: '10.43.0.50', ports: [{ port: 80 }] })], [slice('s', eps, [{ port: 80 }])], { nodeName: 'n1' })[0]!;
  assert.deepEqual(categorizeEndpoints(mk([{ ip: '10.42.0.1' }, { ip: '10.42.0.2', ready: false, serving: true, terminating: true }])).cluster.map((e) => e.ip), ['10.42.0.1']);
  assert.deepEqual(categorizeEndpoints(mk([{ ip: '10.42.0.2', ready: false, serving: true, terminating: true }])).cluster.map((e) => e.ip), ['10.42.0.2']);
  assert.deepEqual(categorizeEndpoints(mk([{ ip: '10.42.0.3', ready: false, serving: false }])).cluster, []);
});

test('ports match EndpointSlice ports by name and protocol; slices of other Services and IPv6 are ignored', () => {
  const ports = buildServicePorts(
    [
      service('s', { clusterIP: '10.43.0.60', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, protocol: 'UDP' }] }),
      service('ext', { type: 'ExternalName', externalName: 'example.com' }),
      service('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
    ],
    [
      slice('s', [{ ip: '10.42.0.1' }], [{ name: 'a', port: 8080 }, { name: 'b', port: 8081, protocol: 'UDP' }]),
      slice('s', [{ ip: '10.42.0.2' }, { ip: '10.42.0.1' }], [{ name: 'a', port: 8080 }], { name: 's-2' }),
      slice('s', [{ ip: '10.42.0.9' }], [{ name: 'a', port: 8080 }], { namespace: 'other' }),
      { ...slice('s', [{ ip: 'fd00::1' }], [{ name: 'a', port: 8080 }], { name: 's-v6' }), addressType: 'IPv6' },
    ],
    { nodeName: 'n1' },
  );
  assert.deepEqual(
    ports.map((p) => [p.name, p.protocol, p.endpoints.map((e) => `${e.ip}:${e.port}`)]),
    [
      ['ns1/s:a', 'TCP', ['10.42.0.1:8080', '10.42.0.2:8080']],
      ['ns1/s:b', 'UDP', ['10.42.0.1:8081']],
    ],
  );
});

test('iptables-restore accepts the generated rules (--test, nothing applied)', async () => {
  const r = rulesFor(
    [
      service('a', { type: 'NodePort', externalTrafficPolicy: 'Local', externalIPs: ['192.0.2.200'], clusterIP: '10.43.0.70', ports: [{ port: 80, nodePort: 30090 }], sessionAffinity: 'ClientIP' }),
      service('b', { internalTrafficPolicy: 'Local', clusterIP: '10.43.0.71', ports: [{ port: 53, protocol: 'UDP' }] }),
      service('c', { clusterIP: '10.43.0.72', ports: [{ port: 80 }] }),
    ],
    [slice('a', [{ ip: '10.42.0.2', node: 'n1' }, { ip: '10.42.0.3' }], [{ port: 80 }]), slice('b', [{ ip: '10.42.1.2', node: 'n2' }], [{ port: 53, protocol: 'UDP' }])],
  );
  const res = await execa('iptables-restore', ['--test', '--noflush'], { input: restoreText(r, { stale: { nat: [], filter: [] }, missingJumps: [] }), reject: false });
  assert.equal(res.exitCode, 0, res.stderr);
});

test('chain prefixes: K1S for cni0, a per-bridge one otherwise, short enough for iptables', () => {
  assert.equal(proxyChainPrefix(undefined), 'K1S');
  assert.equal(proxyChainPrefix('cni0'), 'K1S');
  const other = proxyChainPrefix('k1sbr1');
  assert.match(other, /^K1S[A-Z2-7]{4}$/);
  assert.notEqual(other, proxyChainPrefix('k1sbr2'));
  assert.ok(`${other}-SVC-${chainHash('x')}`.length <= 28);
});

test('partial sync: only chains whose rules changed are flushed and written; the chains of removed endpoints deleted', () => {
  const svcs = [service('a', { clusterIP: '10.43.0.80', ports: [{ port: 80 }] }), service('b', { clusterIP: '10.43.0.81', ports: [{ port: 80 }] })];
  const before = rulesFor(svcs, [slice('a', [{ ip: '10.42.0.2' }], [{ port: 80 }]), slice('b', [{ ip: '10.42.0.3' }, { ip: '10.42.0.4' }], [{ port: 80 }])]);
  const after = rulesFor(svcs, [slice('a', [{ ip: '10.42.0.2' }], [{ port: 80 }]), slice('b', [{ ip: '10.42.0.3' }], [{ port: 80 }])]);
  const previous = { nat: chainContents(before.nat), filter: chainContents(before.filter) };
  const gone = before.nat.chains.filter((c) => !after.nat.chains.includes(c));
  assert.equal(gone.length, 1, 'the SEP chain of 10.42.0.4');
  const text = restoreText(after, { stale: { nat: before.nat.chains, filter: before.filter.chains }, missingJumps: [], previous });
  const svcB = `K1S-SVC-${chainHash('ns1/b', 'tcp')}`;
  assert.equal(
    text,
    `*nat\n:${svcB} - [0:0]\n:${gone[0]} - [0:0]\n` +
      after.nat.rules.filter((l) => l.startsWith(`-A ${svcB} `)).join('\n') +
      `\n-X ${gone[0]}\nCOMMIT\n`,
  );
  assert.equal(restoreText(after, { stale: { nat: after.nat.chains, filter: after.filter.chains }, missingJumps: [], previous: { nat: chainContents(after.nat), filter: chainContents(after.filter) } }), '', 'nothing changed: nothing to run');
});

test('parseSave skips comment and warning lines', () => {
  const t = parseSave('# Warning: iptables-legacy tables present\n*nat\n:PREROUTING ACCEPT [0:0]\n:K1S-SERVICES - [0:0]\n-A PREROUTING -j K1S-SERVICES\nCOMMIT\n# done\n');
  assert.deepEqual(t, { chains: ['PREROUTING', 'K1S-SERVICES'], rules: ['-A PREROUTING -j K1S-SERVICES'] });
});

function chainsOf(r: ProxyRules, kind: string): string[] {
  return r.nat.chains.filter((c) => c.startsWith(`K1S-${kind}-`));
}

function chains(svcName: string): { svc: string; svl: string; ext: string } {
  const hash = chainHash(`ns1/${svcName}`, 'tcp');
  return { svc: `K1S-SVC-${hash}`, svl: `K1S-SVL-${hash}`, ext: `K1S-EXT-${hash}` };
}

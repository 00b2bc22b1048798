import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { parseResolvConf, podDNSConfig, podHostnameAndDomain, type DNSSettings } from '../../../../src/kubelet/cri/dns-config.js';

const host = parseResolvConf('# generated\nnameserver 192.168.0.1\nnameserver 192.168.0.2 ; second\nsearch corp.example.com. lab.example.com\noptions timeout:2 attempts:3\n');
const cluster: DNSSettings = { clusterDNS: ['10.43.0.10'], clusterDomain: 'cluster.local', hostResolvConf: host };

const pod = (spec: Record<string, unknown>, ns = 'default'): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dns-example', namespace: ns, uid: 'u' }, spec: { containers: [{ name: 'c' }], ...spec } }) as Pod;

test('host resolv.conf parsing: nameservers, the search line without trailing dots, options', () => {
  assert.deepEqual(host, { servers: ['192.168.0.1', '192.168.0.2'], searches: ['corp.example.com', 'lab.example.com'], options: ['timeout:2', 'attempts:3'] });
});

test('ClusterFirst: the cluster DNS, namespace search path before the host search, ndots:5', () => {
  const r = podDNSConfig(pod({ dnsPolicy: 'ClusterFirst' }, 'web'), cluster);
  assert.deepEqual(r.config, {
    servers: ['10.43.0.10'],
    searches: ['web.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example.com', 'lab.example.com'],
    options: ['ndots:5'],
  });
  assert.deepEqual(r.events, []);
  // the default policy is ClusterFirst
  assert.deepEqual(podDNSConfig(pod({}, 'web'), cluster).config, r.config);
});

test('hostNetwork: ClusterFirst falls back to the host, ClusterFirstWithHostNet keeps the cluster DNS', () => {
  assert.deepEqual(podDNSConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirst' }), cluster).config, host);
  assert.deepEqual(podDNSConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), cluster).config.servers, ['10.43.0.10']);
  assert.deepEqual(podDNSConfig(pod({ dnsPolicy: 'Default' }), cluster).config, host);
});

test('the docs example: dnsPolicy None with dnsConfig', () => {
  const r = podDNSConfig(
    pod({
      dnsPolicy: 'None',
      dnsConfig: {
        nameservers: ['192.0.2.1'],
        searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'],
        options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
      },
    }),
    cluster,
  );
  assert.deepEqual(r.config, { servers: ['192.0.2.1'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: ['ndots:2', 'edns0'] });
});

test('dnsConfig merges into ClusterFirst: duplicates dropped, options replaced by name', () => {
  const r = podDNSConfig(pod({ dnsConfig: { nameservers: ['10.43.0.10', '1.1.1.1'], searches: ['cluster.local', 'extra.example'], options: [{ name: 'ndots', value: '1' }, { name: 'single-request' }] } }), cluster);
  assert.deepEqual(r.config, {
    servers: ['10.43.0.10', '1.1.1.1'],
    searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example.com', 'lab.example.com', 'extra.example'],
    options: ['ndots:1', 'single-request'],
  });
});

test('ClusterFirst without a cluster DNS falls back to Default with the kubelet event; no resolv.conf means localhost', () => {
  const r = podDNSConfig(pod({}), { clusterDNS: [], clusterDomain: 'cluster.local', hostResolvConf: host });
  assert.deepEqual(r.config, host);
  assert.deepEqual(r.events, [{
    reason: 'MissingClusterDNS',
    message: 'pod: "dns-example_default(u)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.',
  }]);
  assert.deepEqual(podDNSConfig(pod({ dnsPolicy: 'Default' }), { clusterDNS: [], clusterDomain: 'cluster.local', nodeIPs: ['10.0.0.1', 'fd00::1'] }).config, {
    servers: ['127.0.0.1', '::1'], searches: ['.'], options: [],
  });
});

test('limits: 3 nameservers, 32 search paths, 253-character domains, a 2048-character search line', () => {
  const many = podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'] } }), cluster);
  assert.deepEqual(many.config.servers, ['1.1.1.1', '2.2.2.2', '3.3.3.3']);
  assert.deepEqual(many.events, [{ reason: 'DNSConfigForming', message: 'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 1.1.1.1 2.2.2.2 3.3.3.3' }]);

  const searches = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
  const r = podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches } }), cluster);
  assert.deepEqual(r.config.searches, searches.slice(0, 32));
  assert.equal(r.events[0].message, `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${searches.slice(0, 32).join(' ')}`);

  const long = 'a'.repeat(254);
  assert.deepEqual(podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches: ['ok.example', long] } }), cluster).config.searches, ['ok.example']);

  const wide = Array.from({ length: 10 }, (_, i) => `${String(i).repeat(249)}.ex`); // 10 × 252 characters + spaces
  const w = podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches: wide } }), cluster);
  assert.deepEqual(w.config.searches, wide.slice(0, 8));
  assert.ok(w.config.searches!.join(' ').length <= 2048);
});

test('hostname and domain: spec.hostname/subdomain, the 63-character cap', () => {
  assert.deepEqual(podHostnameAndDomain(pod({ hostname: 'busybox-1', subdomain: 'busybox-subdomain' }, 'my-ns'), 'cluster.local'), {
    hostname: 'busybox-1',
    hostDomain: 'busybox-subdomain.my-ns.svc.cluster.local',
  });
  const p = pod({});
  p.metadata!.name = `${'x'.repeat(62)}-yyyy`;
  assert.deepEqual(podHostnameAndDomain(p, 'cluster.local'), { hostname: 'x'.repeat(62), hostDomain: '' });
});

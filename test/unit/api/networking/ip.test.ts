import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cidrContains, cidrString, cidrWarnings, ipString, parseCIDR, parseIP } from '../../../../src/api/networking/ip.js';
import { isFullyQualifiedDomainName, validateEndpointIP } from '../../../../src/api/networking/util.js';

describe('Go IP and CIDR parsing', () => {
  it('parses sloppy IPv4 (leading zeros) and IPv6, and prints like net.IP.String()', () => {
    assert.deepEqual(parseIP('010.001.2.3'), [10, 1, 2, 3]);
    assert.equal(parseIP('256.1.1.1'), undefined);
    assert.equal(parseIP('fe80::1%eth0'), undefined);
    assert.equal(ipString(parseIP('2001:0DB8:0:0:1:0:0:1')!), '2001:db8::1:0:0:1');
    assert.equal(ipString(parseIP('::ffff:1.2.3.4')!), '1.2.3.4');
    assert.equal(ipString(parseIP('::')!), '::');
    assert.equal(ipString(parseIP('1:0:0:2:0:0:0:3')!), '1:0:0:2::3');
  });

  it('parses CIDRs like ParseCIDRSloppy, with IPNet.String() and Contains()', () => {
    assert.equal(parseCIDR('10.0.0.0'), undefined);
    assert.equal(parseCIDR('10.0.0.0/33'), undefined);
    assert.equal(cidrString(parseCIDR('10.1.2.3/8')!), '10.0.0.0/8');
    assert.equal(cidrString(parseCIDR('::ffff:10.0.0.0/104')!), '10.0.0.0/8');
    assert.equal(cidrString(parseCIDR('2001:db8::1/32')!), '2001:db8::/32');
    const net = parseCIDR('10.0.0.0/8')!;
    assert.equal(cidrContains(net, parseCIDR('10.20.0.0/16')!.net), true);
    assert.equal(cidrContains(net, parseCIDR('11.0.0.0/16')!.net), false);
    assert.equal(cidrContains(net, parseCIDR('::ffff:10.1.0.0/112')!.net), true);
  });

  it('warns like GetWarningsForCIDR', () => {
    assert.deepEqual(cidrWarnings('p', '10.0.0.0/8'), []);
    assert.deepEqual(cidrWarnings('p', '::ffff:10.0.0.0/104'), [
      'p: non-standard CIDR value "::ffff:10.0.0.0/104" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    assert.deepEqual(cidrWarnings('p', '10.0.0.0/08'), [
      'p: non-standard CIDR value "10.0.0.0/08" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    assert.deepEqual(cidrWarnings('p', '2001:db8::1/64'), ['p: CIDR value "2001:db8::1/64" is ambiguous in this context (should be "2001:db8::/64" or "2001:db8::1/128"?)']);
  });
});

describe('endpoint address checks', () => {
  it('rejects special IPs (ValidateEndpointIP)', () => {
    assert.deepEqual(validateEndpointIP('0.0.0.0', 'a').map(String), ['a: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
    assert.deepEqual(validateEndpointIP('127.0.0.2', 'a').map(String), ['a: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    assert.deepEqual(validateEndpointIP('fe80::1', 'a').map(String), ['a: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    assert.deepEqual(validateEndpointIP('224.0.0.1', 'a').map(String), [
      'a: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    ]);
    assert.deepEqual(validateEndpointIP('10.1.2.3', 'a'), []);
  });
  it('checks FQDNs (IsFullyQualifiedDomainName)', () => {
    assert.deepEqual(isFullyQualifiedDomainName('a', 'example.com.'), []);
    assert.deepEqual(isFullyQualifiedDomainName('a', 'localhost').map(String), [
      'a: Invalid value: "localhost": should be a domain with at least two segments separated by dots',
    ]);
    assert.deepEqual(isFullyQualifiedDomainName('a', '').map(String), ['a: Required value']);
  });
});

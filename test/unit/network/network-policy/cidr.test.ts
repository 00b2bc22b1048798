import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCidr4, ipBlockRanges, ipInCidr, parseCidr4, subtractCidrs } from '../../../../src/network/network-policy/cidr.js';

const c = (s: string) => parseCidr4(s)!;

test('parses and normalises IPv4 CIDRs; rejects IPv6 and garbage', () => {
  assert.equal(formatCidr4(c('10.1.2.3/16')), '10.1.0.0/16');
  assert.equal(formatCidr4(c('10.1.2.3')), '10.1.2.3/32');
  assert.equal(formatCidr4(c('0.0.0.0/0')), '0.0.0.0/0');
  assert.equal(formatCidr4(c('255.255.255.255/1')), '128.0.0.0/1');
  assert.equal(parseCidr4('fd00::/8'), undefined);
  assert.equal(parseCidr4('10.0.0.0/33'), undefined);
  assert.equal(parseCidr4('10.0.0/8'), undefined);
  assert.equal(parseCidr4('10.0.0.256/8'), undefined);
});

test('ipInCidr', () => {
  assert.ok(ipInCidr('10.44.3.4', c('10.44.0.0/16')));
  assert.ok(!ipInCidr('10.45.3.4', c('10.44.0.0/16')));
  assert.ok(ipInCidr('1.2.3.4', c('0.0.0.0/0')));
});

test('subtracting excepts leaves the fewest disjoint CIDRs covering exactly the rest', () => {
  assert.deepEqual(subtractCidrs(c('10.0.0.0/24'), [c('10.0.0.0/25')]).map(formatCidr4), ['10.0.0.128/25']);
  assert.deepEqual(subtractCidrs(c('10.0.0.0/30'), [c('10.0.0.1/32')]).map(formatCidr4), ['10.0.0.0/32', '10.0.0.2/31']);
  assert.deepEqual(subtractCidrs(c('10.0.0.0/24'), [c('10.0.0.0/24')]), []);
  assert.deepEqual(subtractCidrs(c('10.0.0.0/24'), [c('192.168.0.0/16')]).map(formatCidr4), ['10.0.0.0/24']);
  // the whole IPv4 space minus a private range (a common "internet only" egress rule)
  const internet = subtractCidrs(c('0.0.0.0/0'), [c('10.0.0.0/8'), c('172.16.0.0/12'), c('192.168.0.0/16')]);
  const size = (x: { bits: number }) => 2 ** (32 - x.bits);
  assert.equal(internet.reduce((n, x) => n + size(x), 0), 2 ** 32 - 2 ** 24 - 2 ** 20 - 2 ** 16);
  for (const ip of ['10.1.2.3', '172.20.0.1', '192.168.5.5']) assert.ok(!internet.some((x) => ipInCidr(ip, x)), ip);
  for (const ip of ['8.8.8.8', '172.32.0.1', '11.0.0.1', '255.255.255.255', '0.0.0.0']) assert.equal(internet.filter((x) => ipInCidr(ip, x)).length, 1, ip);
});

test('nested and overlapping excepts', () => {
  const r = subtractCidrs(c('10.0.0.0/16'), [c('10.0.1.0/24'), c('10.0.1.128/25'), c('10.0.0.0/17')]);
  assert.deepEqual(r.map(formatCidr4), ['10.0.128.0/17']);
});

test('ipBlockRanges', () => {
  assert.deepEqual(ipBlockRanges({ cidr: '192.168.0.0/23', except: ['192.168.1.0/24'] }), ['192.168.0.0/24']);
  assert.deepEqual(ipBlockRanges({ cidr: '192.168.0.0/23' }), ['192.168.0.0/23']);
  assert.equal(ipBlockRanges({ cidr: '2001:db8::/32' }), undefined);
});

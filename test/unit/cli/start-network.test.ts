import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sideBySideArgs, slotSettings } from '../../../src/cli/start-network.js';

test('a real-node cluster alone keeps the defaults; API-only clusters never get network flags', () => {
  assert.deepEqual(sideBySideArgs([], []), []);
  assert.deepEqual(sideBySideArgs(['--disable-agent'], [[]]), []);
  // an API-only neighbour does not count
  assert.deepEqual(sideBySideArgs([], [['--disable-agent']]), []);
});

test('a second cluster on the defaults gets slot 1: own bridge, pod and Service ranges, ingress ports', () => {
  assert.deepEqual(sideBySideArgs([], [[]]), [
    '--cni-bridge', 'k1s1', '--cluster-cidr', '10.62.0.0/16', '--service-cidr', '10.63.0.0/16', '--ingress-http-port', '18081', '--ingress-https-port', '18444',
  ]);
  // slot 1 taken too: slot 2
  const slot1 = ['--cni-bridge', 'k1s1', '--cluster-cidr', '10.62.0.0/16', '--service-cidr', '10.63.0.0/16', '--ingress-http-port', '18081', '--ingress-https-port', '18444'];
  const got = sideBySideArgs([], [[], slot1]);
  assert.deepEqual(got.slice(0, 6), ['--cni-bridge', 'k1s2', '--cluster-cidr', '10.64.0.0/16', '--service-cidr', '10.65.0.0/16']);
  assert.deepEqual(slotSettings(2).httpPort, '18082');
});

test('only what collides moves; flags typed on this command line are kept', () => {
  // ingress disabled: only the network moves
  assert.deepEqual(sideBySideArgs(['--disable-ingress'], [[]]), ['--cni-bridge', 'k1s1', '--cluster-cidr', '10.62.0.0/16', '--service-cidr', '10.63.0.0/16']);
  // own network given, default ingress ports collide: only the ports move
  const mine = ['--cni-bridge', 'b2', '--cluster-cidr', '10.90.0.0/16', '--service-cidr', '10.91.0.0/16'];
  assert.deepEqual(sideBySideArgs(mine, [[]]), ['--ingress-http-port', '18081', '--ingress-https-port', '18444']);
  // the user typed --cni-bridge cni0 on purpose: it stays, the rest moves
  assert.deepEqual(sideBySideArgs(['--cni-bridge', 'cni0'], [[]], ['--cni-bridge', 'cni0']).filter((a) => a.startsWith('--')), [
    '--cluster-cidr', '--service-cidr', '--ingress-http-port', '--ingress-https-port',
  ]);
});

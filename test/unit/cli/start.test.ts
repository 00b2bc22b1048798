import { test } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { queryA } from '../../../src/cli/dns-probe.js';
import { parseStartArgs, serverArgsFor, type StartFlags } from '../../../src/cli/start-args.js';
import { parseDnsLine } from '../../../src/cli/start-wait.js';
import { missingImages, missingImagesReport } from '../../../src/cli/snapshot-images.js';

/** parseStartArgs prints help and usage errors: keep them out of the test output */
function quiet<T>(fn: () => T): T {
  const [log, error] = [console.log, console.error];
  console.log = console.error = () => undefined;
  try {
    return fn();
  } finally {
    [console.log, console.error] = [log, error];
  }
}

test('start flags: pass-through server flags are validated, applied over the previous run and kept', () => {
  const flags = quiet(() => parseStartArgs(['accept', '--cni-bridge', 'k1sacc0', '--cluster-cidr', '10.48.0.0/16', '--ingress-http-port', '0', '--disable-servicelb', '--wait', '2m'])) as StartFlags;
  assert.equal(flags.name, 'accept');
  assert.equal(flags.waitMs, 120_000);
  assert.deepEqual(flags.passThrough, ['--cni-bridge', 'k1sacc0', '--cluster-cidr', '10.48.0.0/16', '--ingress-http-port', '0', '--disable-servicelb']);
  const notes: string[] = [];
  const previous = ['--cni-bridge', 'old0', '--simulated-nodes', '1', '--disable-servicelb'];
  assert.deepEqual(serverArgsFor(flags, previous, { isRoot: true, note: (l) => notes.push(l) }), [
    '--simulated-nodes', '1', '--cni-bridge', 'k1sacc0', '--cluster-cidr', '10.48.0.0/16', '--ingress-http-port', '0', '--disable-servicelb',
  ]);
  assert.equal(notes.length, 0);
  // a plain restart keeps what the cluster had; not root means no real node, said once
  const plain = quiet(() => parseStartArgs(['accept'])) as StartFlags;
  assert.deepEqual(serverArgsFor(plain, previous, { isRoot: true, note: (l) => notes.push(l) }), previous);
  assert.deepEqual(serverArgsFor(plain, [], { isRoot: false, note: (l) => notes.push(l) }), ['--disable-agent']);
  assert.match(notes[0] ?? '', /not running as root/);

  // a CNI plugin directory is made absolute: the server does not run in this shell's directory
  const cni = quiet(() => parseStartArgs(['accept', '--cni-bin-dir', 'plugins'])) as StartFlags;
  assert.deepEqual(cni.passThrough, ['--cni-bin-dir', `${process.cwd()}/plugins`]);
  // audit files are made absolute too ("-" is stdout), numbers and switches pass unchanged
  const audit = quiet(() => parseStartArgs(['accept', '--audit-policy-file', 'p.yaml', '--audit-log-path', '-', '--audit-log-maxsize', '5', '--audit-log-compress'])) as StartFlags;
  assert.deepEqual(audit.passThrough, ['--audit-policy-file', `${process.cwd()}/p.yaml`, '--audit-log-path', '-', '--audit-log-maxsize', '5', '--audit-log-compress']);

  for (const bad of [['--cluster-cidr', '10.48.0.0'], ['--ingress-https-port', '70000'], ['--kubelet-port', 'x'], ['--wait', 'soon'], ['a', 'b'], ['--bogus']]) {
    assert.deepEqual(quiet(() => parseStartArgs(bad)), { exit: 2 }, bad.join(' '));
  }
  assert.deepEqual(quiet(() => parseStartArgs(['--help'])), { exit: 0 });
});

test('the node DNS line of the server log', () => {
  assert.deepEqual(parseDnsLine('k1s: agent: cluster DNS serving cluster.local on 10.48.0.1:53 (Service IP 10.43.0.10)'), { domain: 'cluster.local', address: '10.48.0.1' });
  assert.deepEqual(parseDnsLine('k1s: agent: cluster DNS not started: bind EADDRINUSE; pods get the host\'s resolv.conf'), { error: "bind EADDRINUSE; pods get the host's resolv.conf" });
  assert.equal(parseDnsLine('k1s: agent: pod network 10.48.0.0/24'), undefined);
});

test('queryA asks one UDP question and reads the A records, the rcode, or times out', async (t) => {
  const server = dgram.createSocket('udp4');
  t.after(() => server.close());
  const seen: string[] = [];
  server.on('message', (msg, rinfo) => {
    const q = dnsPacket.decode(msg);
    const name = q.questions![0]!.name;
    seen.push(`${q.questions![0]!.type} ${name}`);
    if (name === 'slow.example') return; // never answers
    const found = name === 'kubernetes.default.svc.cluster.local';
    // an unrelated id first (a late reply to an earlier probe), which must be ignored
    server.send(dnsPacket.encode({ type: 'response', id: (q.id! + 1) & 0xffff, questions: q.questions, answers: [{ type: 'A', name, data: '9.9.9.9' }] }), rinfo.port, rinfo.address);
    const reply = dnsPacket.encode({
      type: 'response',
      id: q.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (found ? 0 : 3), // rcode 3 = NXDOMAIN
      questions: q.questions,
      answers: found ? [{ type: 'A', name, ttl: 5, data: '10.43.0.1' }] : [],
    });
    server.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => server.bind(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  assert.deepEqual(await queryA('127.0.0.1', 'kubernetes.default.svc.cluster.local', { port }), { rcode: 'NOERROR', addresses: ['10.43.0.1'] });
  assert.deepEqual(await queryA('127.0.0.1', 'nope.cluster.local', { port }), { rcode: 'NXDOMAIN', addresses: [] });
  const t0 = performance.now();
  await assert.rejects(queryA('127.0.0.1', 'slow.example', { port, timeoutMs: 200 }), /no answer from 127\.0\.0\.1:\d+ within 200 ms/);
  assert.ok(performance.now() - t0 < 1000);
  assert.deepEqual(seen, ['A kubernetes.default.svc.cluster.local', 'A nope.cluster.local', 'A slow.example']);
});

test('images of a snapshot missing from a node, and what to run', () => {
  const busybox = { name: 'k1s.local/busybox:1.35', id: 'sha256:b', size: 1 };
  const pause = { name: 'k1s.local/pause:3.10', id: 'sha256:p', size: 1 };
  const byDigest = { name: 'k1s.local/app@sha256:aaa', id: 'sha256:a', size: 1 };
  assert.deepEqual(missingImages([busybox, pause, byDigest], [pause, { name: 'k1s.local/other:1', id: 'sha256:a', size: 1 }]), [busybox]);
  assert.deepEqual(missingImagesReport([], 'fork'), []);
  assert.deepEqual(missingImagesReport([busybox], 'fork'), [
    "1 image of the snapshot is not in the node's containerd (pods using it will fail with ErrImageNeverPull or ErrImagePull):",
    '  k1s.local/busybox:1.35',
    'load them from their image tarballs with: k1s image load --name fork FILE.tar…',
  ]);
  assert.match(missingImagesReport([busybox, byDigest], 'k1s').at(-1)!, /with: k1s image load FILE\.tar…$/);
});

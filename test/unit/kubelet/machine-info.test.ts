import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, statfs } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import {
  allocatableFromCapacity,
  defaultRouteInterface,
  osImageFrom,
  parseMeminfo,
  parsePercentage,
  readMachineInfo,
} from '../../../src/kubelet/node/machine-info.js';
import { Quantity } from '../../../src/machinery/quantity.js';

test('allocatable = capacity − memory.available 100Mi − nodefs.available 10% (float32 percentage, truncated)', () => {
  const capacity = {
    cpu: '2',
    'ephemeral-storage': '264212084Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: '24731700Ki',
    pods: '110',
  };
  const a = allocatableFromCapacity(capacity);
  assert.equal(a.cpu, '2');
  assert.equal(a.pods, '110');
  assert.equal(a.memory, '24629300Ki', '24731700Ki − 102400Ki');
  // 264212084Ki = 270553174016 bytes; × float32(0.1) = 27055317804.6… → 27055317804 reserved
  assert.equal(a['ephemeral-storage'], String(270553174016 - 27055317804));
  assert.equal(a['hugepages-2Mi'], '0');
  assert.equal(parsePercentage('10%'), Math.fround(0.1));
});

test('allocatable follows the docs example thresholds and subtracts pre-allocated huge pages from memory', () => {
  // kubernetes.io "Reserve Compute Resources": --eviction-hard=memory.available<500Mi,nodefs.available<10%
  const a = allocatableFromCapacity(
    { memory: '32Gi', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '1Gi' },
    { memoryAvailable: { quantity: '500Mi' }, nodefsAvailable: { percentage: parsePercentage('10%') } },
  );
  assert.equal(a.memory, '31244Mi', '32768Mi − 500Mi − 1024Mi of huge pages');
  assert.equal(Quantity.parse(a['ephemeral-storage']).value(), 107374182400 - Math.trunc(107374182400 * Math.fround(0.1)));
  assert.equal(allocatableFromCapacity({ memory: '50Mi' }).memory, '0', 'never negative');
});

test('parsers: meminfo, default route, os-release', () => {
  const mem = parseMeminfo('MemTotal:       24731700 kB\nMemAvailable:   24099652 kB\nHugePages_Total:       0\n');
  assert.equal(mem.MemTotal, 24731700 * 1024);
  assert.equal(mem.HugePages_Total, 0);
  const route = [
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
    'cni0\t00002A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
    'wlan0\t00000000\t0102A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0',
    'eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
  ].join('\n');
  assert.equal(defaultRouteInterface(route), 'eth0', 'lowest metric wins');
  assert.equal(defaultRouteInterface(route.split('\n').slice(0, 2).join('\n')), undefined);
  assert.equal(osImageFrom('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'), 'Debian GNU/Linux 12 (bookworm)');
  assert.equal(osImageFrom('ID=alpine\n'), 'Linux');
});

test('readMachineInfo reads this machine', async () => {
  const info = await readMachineInfo({ dataDir: tmpdir() });
  const memTotal = /MemTotal:\s+(\d+) kB/.exec(await readFile('/proc/meminfo', 'utf8'))![1];
  assert.equal(info.capacity.memory, `${memTotal}Ki`);
  assert.ok(Number(info.capacity.cpu) >= 1);
  assert.equal(info.capacity.pods, '110');
  const fs = await statfs(tmpdir());
  assert.equal(Quantity.parse(info.capacity['ephemeral-storage']).value(), fs.blocks * fs.bsize);
  assert.ok(Quantity.parse(info.allocatable.memory).cmp(Quantity.parse(info.capacity.memory)) < 0);
  for (const k of Object.keys(info.capacity)) if (k.startsWith('hugepages-')) assert.match(k, /^hugepages-\d+(Ki|Mi|Gi)$/);

  assert.equal(info.addresses.at(-1)!.type, 'Hostname');
  assert.equal(info.addresses.at(-1)!.address, hostname().toLowerCase());
  const internal = info.addresses.find((a) => a.type === 'InternalIP');
  assert.ok(internal && /^\d+\.\d+\.\d+\.\d+$/.test(internal.address) && internal.address !== '127.0.0.1', JSON.stringify(info.addresses));
  assert.equal(info.addresses[0], internal, 'InternalIP comes first');

  assert.equal(info.nodeInfo.machineID, (await readFile('/etc/machine-id', 'utf8')).trim());
  assert.equal(info.nodeInfo.bootID, (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
  assert.match(info.nodeInfo.osImage, /\S/);
  assert.equal(info.nodeInfo.operatingSystem, 'linux');
  assert.ok(['amd64', 'arm64'].includes(info.nodeInfo.architecture));
  assert.match(info.nodeInfo.kernelVersion, /^\d+\.\d+/);
});

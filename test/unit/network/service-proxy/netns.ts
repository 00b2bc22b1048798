// "Pods" for the service proxy's real test: network namespaces with a veth on a test bridge, each able to run a
// busybox httpd. Everything is named after a random tag and removed by `destroy()`, even after a partial set-up.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { execa } from 'execa';

export interface TestNetwork {
  tag: string;
  bridge: string;
  /** the bridge's address: the pods' gateway */
  gateway: string;
  cidr: string;
  /** adds a namespace with address `<subnet>.<host>`; returns its name and IP (hairpin on, as the bridge plugin sets) */
  addPod(name: string, host: number): Promise<{ ns: string; ip: string }>;
  /** busybox httpd in the namespace on `port`, serving `body` at / */
  serveHttp(ns: string, port: number, body: string): Promise<void>;
  /** runs a command inside the namespace */
  exec(ns: string, cmd: string[], opts?: { timeoutMs?: number }): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  destroy(): Promise<void>;
}

export async function createTestNetwork(): Promise<TestNetwork> {
  const tag = Math.random().toString(16).slice(2, 6);
  const third = 100 + Math.floor(Math.random() * 150);
  const subnet = `10.199.${third}`;
  const bridge = `ktb${tag}`;
  const gateway = `${subnet}.1`;
  const namespaces: string[] = [];
  const servers: ChildProcess[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'k1s-svcproxy-'));
  const ip = (...args: string[]) => execa('ip', args);
  const net: TestNetwork = {
    tag,
    bridge,
    gateway,
    cidr: `${subnet}.0/24`,
    async addPod(name, host) {
      const ns = `kt${tag}-${name}`;
      const veth = `ktv${tag}${name}`;
      namespaces.push(ns);
      await ip('netns', 'add', ns);
      await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('link', 'set', veth, 'master', bridge, 'up');
      await ip('link', 'set', veth, 'type', 'bridge_slave', 'hairpin', 'on');
      await ip('-n', ns, 'addr', 'add', `${subnet}.${host}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      await ip('-n', ns, 'route', 'add', 'default', 'via', gateway);
      return { ns, ip: `${subnet}.${host}` };
    },
    async serveHttp(ns, port, body) {
      const root = join(dir, ns);
      await execa('mkdir', ['-p', root]);
      await writeFile(join(root, 'index.html'), body);
      const child = spawn('ip', ['netns', 'exec', ns, 'busybox', 'httpd', '-f', '-p', String(port), '-h', root], { stdio: 'ignore' });
      servers.push(child);
      const podIP = (await execa('ip', ['-n', ns, '-4', '-o', 'addr', 'show', 'eth0'])).stdout.match(/inet (\S+)\//)![1]!;
      for (let i = 0; i < 100; i++) {
        if ((await httpGet(`http://${podIP}:${port}/`, 500).catch(() => '')) === body) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`httpd in ${ns} did not answer`);
    },
    async exec(ns, cmd, opts = {}) {
      const r = await execa('ip', ['netns', 'exec', ns, ...cmd], { reject: false, timeout: opts.timeoutMs ?? 5000 });
      return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    async destroy() {
      for (const s of servers) s.kill('SIGKILL');
      for (const ns of namespaces) await execa('ip', ['netns', 'del', ns], { reject: false });
      await execa('ip', ['link', 'del', bridge], { reject: false });
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    await ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    // DNATed pod-to-pod traffic is routed back out of the bridge; the bridge plugin (isGateway) turns this on for
    // real pods, so a test that runs before any pod must too
    await writeFile('/proc/sys/net/ipv4/ip_forward', '1');
  } catch (e) {
    await net.destroy();
    throw e;
  }
  return net;
}

/** One HTTP GET on a fresh connection (no keep-alive: each request is a new conntrack entry, a new DNAT choice). */
export function httpGet(url: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${url}`)));
    req.on('error', reject);
  });
}

// Real etcd members for tests: each on free loopback ports with its own temporary data directory, one alone or
// three in a cluster, killed and restarted on demand. Every member is killed when the test process exits, even when
// a test fails half-way.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ETCD_BIN = process.env.K1S_TEST_ETCD ?? '/usr/bin/etcd';
export const ETCDCTL_BIN = process.env.K1S_TEST_ETCDCTL ?? '/usr/bin/etcdctl';

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export class EtcdMember {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  output = '';

  constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly clientPort: number,
    readonly peerPort: number,
    private readonly initialCluster: string,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.clientPort}`;
  }

  get peerURL(): string {
    return `http://127.0.0.1:${this.peerPort}`;
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.alive) return;
    const child = spawn(
      ETCD_BIN,
      [
        `--name=${this.name}`,
        `--data-dir=${this.dataDir}`,
        `--listen-client-urls=${this.endpoint}`,
        `--advertise-client-urls=${this.endpoint}`,
        `--listen-peer-urls=${this.peerURL}`,
        `--initial-advertise-peer-urls=${this.peerURL}`,
        `--initial-cluster=${this.initialCluster}`,
        '--initial-cluster-state=new',
        '--initial-cluster-token=k1s-test',
        // a shared, noisy machine: elections tolerate slow heartbeats
        '--heartbeat-interval=100',
        '--election-timeout=1500',
        '--logger=zap',
        '--log-level=error',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      this.output = (this.output + d).slice(-8000);
    });
    running.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        running.delete(child);
        resolve();
      }),
    );
    this.child = child;
  }

  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /** Waits until the member answers /health with a leader (bounded). */
  async healthy(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.alive) throw new Error(`etcd ${this.name} exited: ${this.output}`);
      try {
        const r = await fetch(`${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await r.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd ${this.name} not healthy after ${timeoutMs} ms: ${this.output}`);
  }
}

export class EtcdCluster {
  private constructor(
    readonly members: EtcdMember[],
    private readonly dir: string,
  ) {}

  /** Starts `size` members (1 or 3) and waits for them to be healthy. */
  static async start(size = 1): Promise<EtcdCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k1s-etcd-'));
    const ports = [];
    for (let i = 0; i < size; i++) ports.push([await freePort(), await freePort()] as const);
    const initial = ports.map(([, peer], i) => `m${i}=http://127.0.0.1:${peer}`).join(',');
    const members = ports.map(([client, peer], i) => new EtcdMember(`m${i}`, path.join(dir, `m${i}`), client, peer, initial));
    const c = new EtcdCluster(members, dir);
    try {
      for (const m of members) m.start();
      await Promise.all(members.map((m) => m.healthy()));
    } catch (e) {
      await c.stop();
      throw e;
    }
    return c;
  }

  get endpoints(): string[] {
    return this.members.map((m) => m.endpoint);
  }

  /** Runs etcdctl against the cluster; resolves with its stdout. */
  async etcdctl(...args: string[]): Promise<string> {
    const child = spawn(ETCDCTL_BIN, [`--endpoints=${this.members.filter((m) => m.alive).map((m) => m.endpoint).join(',')}`, ...args], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`etcdctl ${args.join(' ')}: ${err}`);
    return out;
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.kill()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

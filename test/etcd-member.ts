// Real etcd members for tests: each on free loopback ports with its own temporary data directory, one alone or
// three in a cluster, killed and restarted on demand. Every member is killed when the test process exits, even when
// a test fails half-way.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
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

/** PEM files of a test CA, a serving certificate for 127.0.0.1 and a client certificate */
export interface EtcdTls {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Makes a CA and the two certificates it signs with openssl, in dir. */
export function makeTls(dir: string): EtcdTls {
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '1', '-subj', '/CN=k1s-test-etcd-ca');
  for (const [name, ext] of [['server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
    fs.writeFileSync(f(`${name}.ext`), `${ext}\n`);
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=k1s-test-${name}`);
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '1', '-extfile', f(`${name}.ext`));
  }
  return { ca: f('ca.crt'), serverCert: f('server.crt'), serverKey: f('server.key'), clientCert: f('client.crt'), clientKey: f('client.key') };
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
    readonly tls?: EtcdTls,
  ) {}

  get endpoint(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.clientPort}`;
  }

  get peerURL(): string {
    return `http://127.0.0.1:${this.peerPort}`;
  }

  /** the running member's process id */
  get pid(): number | undefined {
    return this.alive ? this.child!.pid : undefined;
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
        ...(this.tls
          ? [`--cert-file=${this.tls.serverCert}`, `--key-file=${this.tls.serverKey}`, `--trusted-ca-file=${this.tls.ca}`, '--client-cert-auth']
          : []),
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

  /** the member's /health answer ("true" with a leader) */
  private health(): Promise<string | undefined> {
    const t = this.tls;
    return new Promise((resolve, reject) => {
      const opts = t ? { ca: fs.readFileSync(t.ca), cert: fs.readFileSync(t.clientCert), key: fs.readFileSync(t.clientKey) } : {};
      const req = (t ? https : http).get(`${this.endpoint}/health`, { ...opts, timeout: 1000 }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve((JSON.parse(body) as { health?: string }).health));
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
    });
  }

  /** Lets the test process exit while the member runs (then stopNow() from an exit handler ends it). */
  unref(): void {
    this.child?.unref();
    (this.child?.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** SIGKILL without waiting (exit handlers) */
  stopNow(): void {
    this.child?.kill('SIGKILL');
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
        if ((await this.health()) === 'true') return;
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
    readonly dir: string,
  ) {}

  /** Starts `size` members (1 or 3), with https client URLs and client certificates when tls, and waits for them. */
  static async start(size = 1, opts: { tls?: boolean } = {}): Promise<EtcdCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k1s-etcd-'));
    const tls = opts.tls ? makeTls(dir) : undefined;
    const ports = [];
    for (let i = 0; i < size; i++) ports.push([await freePort(), await freePort()] as const);
    const initial = ports.map(([, peer], i) => `m${i}=http://127.0.0.1:${peer}`).join(',');
    const members = ports.map(([client, peer], i) => new EtcdMember(`m${i}`, path.join(dir, `m${i}`), client, peer, initial, tls));
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
    const t = this.members[0]!.tls;
    const certs = t ? [`--cacert=${t.ca}`, `--cert=${t.clientCert}`, `--key=${t.clientKey}`] : [];
    const child = spawn(ETCDCTL_BIN, [`--endpoints=${this.members.filter((m) => m.alive).map((m) => m.endpoint).join(',')}`, ...certs, ...args], {
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

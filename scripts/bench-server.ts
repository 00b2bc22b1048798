// The k1s server process the benchmarks drive, and small figures helpers.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const root = resolve(fileURLToPath(import.meta.url), '../../..');
const bin = join(root, 'bin', 'k1s');

export interface Server {
  proc: ChildProcess;
  url: string;
  agent: https.Agent;
  dataDir: string;
}

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export function median(xs: number[]): number {
  return pct(xs, 50);
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** `k1s server` without its node unless `opts.agent` (a real node: root, containerd) */
export async function startServer(dataDir: string, extraArgs: string[] = [], opts: { agent?: boolean } = {}): Promise<{ server: Server; readyMs: number }> {
  const kubeconfig = join(dataDir, 'kubeconfig');
  const t0 = performance.now();
  // K1S_BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server
  const nodeArgs = (process.env.K1S_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, bin, 'server', '--data-dir', dataDir, '--https-listen-port', '0', '--write-kubeconfig', kubeconfig, ...(opts.agent ? [] : ['--disable-agent']), ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    const on = (d: Buffer) => {
      out += d;
      const m = /ready at (https:\/\/\S+)/.exec(out);
      if (m) res(m[1]);
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.on('exit', (c) => rej(new Error(`server exited ${c}: ${out}`)));
  });
  const readyMs = performance.now() - t0;
  const kc = YAML.parse(readFileSync(kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 64,
    ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
    cert: b64(kc.users[0].user['client-certificate-data']),
    key: b64(kc.users[0].user['client-key-data']),
  });
  return { server: { proc, url, agent, dataDir }, readyMs };
}

export async function stop(s: Server): Promise<void> {
  s.agent.destroy();
  await new Promise<void>((res) => {
    s.proc.once('exit', () => res());
    s.proc.kill('SIGTERM');
  });
}

export function request(s: Server, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(`${s.url}${path}`, { method, agent: s.agent, headers: data ? { 'content-type': contentType } : {} }, (r) => {
      let text = '';
      r.on('data', (d) => (text += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, body: text }));
    });
    req.on('error', rej);
    req.end(data);
  });
}

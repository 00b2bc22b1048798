// The k1s server process the benchmarks drive, and small figures helpers.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { SERVER_NODE_FLAGS } from '../src/cli/server-node-flags.js';

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
export async function startServer(
  dataDir: string,
  extraArgs: string[] = [],
  opts: { agent?: boolean; nodeArgs?: string[] } = {},
): Promise<{ server: Server; readyMs: number }> {
  const kubeconfig = join(dataDir, 'kubeconfig');
  const t0 = performance.now();
  // K1S_BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server; K1S_BENCH_SERVER_LOG
  // names a file that gets the server's output (with "--trace-gc": its collections)
  // the flags `k1s start` runs its server with, then the bench's own (the last value of a flag wins)
  const nodeArgs = [...SERVER_NODE_FLAGS, ...(opts.nodeArgs ?? []), ...(process.env.K1S_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const proc = spawn(process.execPath, [...nodeArgs, bin, 'server', '--data-dir', dataDir, '--https-listen-port', '0', '--write-kubeconfig', kubeconfig, ...(opts.agent ? [] : ['--disable-agent']), ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const log = process.env.K1S_BENCH_SERVER_LOG;
  if (log) for (const s of [proc.stdout!, proc.stderr!]) s.on('data', (d: Buffer) => appendFileSync(log, d));
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
    // idle sockets go before the server's 72 s keep-alive timeout closes them under a request reusing one
    timeout: 30_000,
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

/** CPU time (user + system, all threads) the process has used so far, in ms (from /proc: Linux only). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const WRK_POD_SCRIPT = `
local counter = 0
function init(args)
  token = args[1]
  prefix = args[2]
  namespace = args[3]
end
request = function()
  counter = counter + 1
  local body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"' .. prefix .. '-' .. counter .. '","labels":{"app":"bench"}},"spec":{"containers":[{"name":"c","image":"busybox:1.36","command":["sleep","3600"],"resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]}}'
  return wrk.format("POST", "/api/v1/namespaces/" .. namespace .. "/pods", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end
`;

/**
 * Pod creates driven by wrk (one thread, `clients` keep-alive HTTPS connections, bearer `token`) for `seconds`, the
 * same pod as the Node.js-client row; every response must be 201. Also reports the server's CPU per create, which
 * other load on the machine disturbs far less than the rate.
 */
export function wrkPodCreates(
  s: Server,
  opts: { token: string; namespace: string; clients: number; seconds: number; prefix: string },
): { rate: number; p50: number; p99: number; count: number; cpuUsPerCreate: number } {
  const script = join(s.dataDir, 'wrk-pods.lua');
  writeFileSync(script, WRK_POD_SCRIPT);
  const c0 = cpuMs(s.proc.pid!);
  const out = execFileSync('wrk', ['-t1', `-c${opts.clients}`, `-d${opts.seconds}s`, '--latency', '-s', script, s.url, '--', opts.token, opts.prefix, opts.namespace], {
    encoding: 'utf8',
  });
  const cpu = cpuMs(s.proc.pid!) - c0;
  if (/Non-2xx or 3xx responses/.test(out) || /Socket errors/.test(out)) throw new Error(`wrk saw failed requests:\n${out}`);
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    if (!m) throw new Error(`no ${label}% latency in wrk output:\n${out}`);
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const count = Number(/^\s*(\d+) requests in/m.exec(out)?.[1] ?? 0);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  return { rate, p50: ms('50'), p99: ms('99'), count, cpuUsPerCreate: count ? (cpu * 1000) / count : 0 };
}

// Starts a real k1s server process and drives it with real kubectl.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatastoreArgs } from './datastore.js';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
export const k1sBin = join(repoRoot, 'bin', 'k1s');
export const kubectlVersions = ['1.33', '1.27'] as const;

export function kubectlPath(version: string): string {
  return `/usr/lib/google-cloud-sdk/bin/kubectl.${version}`;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface K1sServer {
  dataDir: string;
  kubeconfig: string;
  url: string;
  proc: ChildProcess;
  log: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `k1s server` on a free port and waits for its ready line; with `agent` it runs its real node (root,
 * containerd; ingress on free ports) and waits for the node too.
 */
export async function startServer(opts: { dataDir?: string; port?: number; extraArgs?: string[]; env?: NodeJS.ProcessEnv; agent?: boolean; sqlite?: boolean } = {}): Promise<K1sServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'k1s-e2e-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  // sqlite: this server's state must be in SQLite whatever K1S_TEST_DATASTORE says (a test of moving it)
  const storeArgs = opts.sqlite ? [] : await testDatastoreArgs(dataDir, opts.extraArgs);
  const proc = spawn(
    process.execPath,
    [k1sBin, 'server', '--data-dir', dataDir, '--https-listen-port', String(opts.port ?? 0), '--write-kubeconfig', kubeconfig, ...(opts.agent ? ['--ingress-http-port', '0', '--ingress-https-port', '0', '--registry-port', '0'] : ['--disable-agent']), ...storeArgs, ...(opts.extraArgs ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } },
  );
  let output = '';
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`k1s server did not become ready:\n${output}`)), opts.agent ? 60_000 : 30_000);
    const ready = opts.agent ? /k1s API server ready at (https:\/\/\S+)[\s\S]*k1s: node \S+ ready/ : /k1s API server ready at (https:\/\/\S+)/;
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = ready.exec(output);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`k1s server exited with ${code}:\n${output}`));
    });
  });
  return {
    dataDir,
    kubeconfig,
    url,
    proc,
    log: () => output,
    stop: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise((res) => {
        if (proc.exitCode !== null) return res(proc.exitCode);
        proc.once('exit', (code) => res(code));
        proc.kill(signal);
      }),
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function run(cmd: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((res) => {
    const child = execFile(
      cmd,
      args,
      { env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        res({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (opts.input !== undefined) {
      child.stdin!.end(opts.input);
    }
  });
}

/** A kubectl bound to one server and version. */
export function kubectl(server: K1sServer, version: string) {
  const bin = kubectlPath(version);
  const env = { KUBECONFIG: server.kubeconfig, HOME: server.dataDir };
  const k = (args: string[], o: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) =>
    run(bin, args, { ...o, env: { ...env, ...o.env } });
  /** runs kubectl and fails with its output when it exits non-zero */
  const ok = async (args: string[], o: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) => {
    const r = await k(args, o);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  };
  return { run: k, ok, version };
}

/** Polls `fn` every 100 ms until it returns a truthy value (default 60 s), else fails naming `what`. */
export async function until<T>(fn: () => Promise<T | undefined | false>, what = 'condition', timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** a free TCP port on 127.0.0.1 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

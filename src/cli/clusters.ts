// Named clusters of the k1s CLI: each name has its own data dir under the base dir `k1s server` defaults to
// (~/.k1s, /var/lib/k1s as root), a state file with the server's pid/port/url, and its own API port.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export const DEFAULT_CLUSTER = 'k1s';
const STATE_FILE = 'k1s-cluster.json';
/** names the plain `k1s server` layout uses inside the base dir, so no cluster may be called that */
const RESERVED = new Set(['tls', 'db', 'images', 'containerd', 'cni']);
const FIRST_PORT = 6443;

export interface ClusterState {
  name: string;
  pid: number;
  port: number;
  /** known once the API server is ready */
  url?: string;
  startedAt: string;
  /** the server's flags, so a plain `k1s start NAME` resumes with the same ones */
  serverArgs: string[];
}

export interface ClusterPaths {
  name: string;
  dir: string;
  state: string;
  log: string;
  /** the standalone admin kubeconfig the server writes */
  kubeconfig: string;
  db: string;
  tls: string;
}

/**
 * Base dir of all named clusters: where `k1s server` keeps its state by default (server.ts' defaultDataDir, not
 * imported: that would load the whole cluster into every CLI command); K1S_HOME overrides (tests, several users).
 */
export function baseDir(): string {
  if (process.env.K1S_HOME) return process.env.K1S_HOME;
  return process.getuid?.() === 0 ? '/var/lib/k1s' : join(process.env.HOME || homedir(), '.k1s');
}

/** Undefined when the name is valid, else why not. */
export function invalidName(name: string): string | undefined {
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(name)) {
    return `cluster name "${name}" must be 1-40 lower-case letters, digits and '-', starting and ending with a letter or digit`;
  }
  if (RESERVED.has(name)) return `cluster name "${name}" is reserved: pick another`;
  return undefined;
}

export function clusterPaths(name: string, base = baseDir()): ClusterPaths {
  const dir = join(base, name);
  return {
    name,
    dir,
    state: join(dir, STATE_FILE),
    log: join(dir, 'server.log'),
    kubeconfig: join(dir, 'kubeconfig.yaml'),
    db: join(dir, 'db', 'state.db'),
    tls: join(dir, 'tls'),
  };
}

/** The kubeconfig context (and cluster/user entries) name of a cluster: `k1s` for the default, else `k1s-<name>`. */
export function contextName(name: string): string {
  return name === DEFAULT_CLUSTER ? DEFAULT_CLUSTER : `k1s-${name}`;
}

export function readState(paths: ClusterPaths): ClusterState | undefined {
  try {
    return JSON.parse(readFileSync(paths.state, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function writeState(paths: ClusterPaths, state: ClusterState): void {
  const tmp = `${paths.state}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, paths.state);
}

/**
 * Whether pid is this cluster's server: pids are reused, so the process must also be a k1s server of this data
 * dir (its command line names it).
 */
export function isServerProcess(pid: number, paths: ClusterPaths): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z') return false;
    return argv.includes('server') && argv.includes(paths.dir);
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

export interface ClusterInfo {
  paths: ClusterPaths;
  state?: ClusterState;
  running: boolean;
}

export function clusterInfo(name: string, base = baseDir()): ClusterInfo {
  const paths = clusterPaths(name, base);
  const state = readState(paths);
  return { paths, state, running: state ? isServerProcess(state.pid, paths) : false };
}

/** Every cluster with a data dir under the base dir, by name. */
export function listClusters(base = baseDir()): ClusterInfo[] {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  return names
    .filter((n) => !invalidName(n) && existsSync(join(base, n, STATE_FILE)) && statSync(join(base, n)).isDirectory())
    .sort()
    .map((n) => clusterInfo(n, base));
}

export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * The API port of a cluster: the one it had (so its kubeconfig stays valid), else the first free one from 6443
 * that no other cluster of this base dir claims (a stopped cluster keeps its port).
 */
export async function choosePort(name: string, base = baseDir()): Promise<number> {
  const own = readState(clusterPaths(name, base))?.port;
  if (own && (await portFree(own))) return own;
  const claimed = new Set(listClusters(base).filter((c) => c.paths.name !== name).map((c) => c.state?.port));
  for (let p = FIRST_PORT; p < FIRST_PORT + 1000; p++) {
    if (!claimed.has(p) && (await portFree(p))) return p;
  }
  throw new Error(`no free port from ${FIRST_PORT} to ${FIRST_PORT + 999}: pass --port`);
}

/** The cluster name of a command: the positional NAME, else --name, else `k1s`; an error message when invalid. */
export function resolveName(positional: string | undefined, flag: string | undefined): { name: string } | { error: string } {
  if (positional && flag && positional !== flag) return { error: `cluster named twice ("${positional}" and --name ${flag})` };
  const name = positional ?? flag ?? DEFAULT_CLUSTER;
  const bad = invalidName(name);
  return bad ? { error: bad } : { name };
}

/** The last n lines of a file ('' when it does not exist). */
/** What a command that acts on a data dir (certs, secrets-encrypt) acts on, and the server running there. */
export interface DataDirTarget {
  dataDir: string;
  /** when the dir belongs to a cluster of k1s start (or has its state file): its server's pid and URL */
  running?: { pid: number; url?: string };
}

/** --data-dir, else the named cluster, else k1s start's default cluster if it exists, else k1s server's default dir. */
export function dataDirTarget(dataDirFlag: string | undefined, name: string | undefined): DataDirTarget {
  let dataDir: string;
  if (dataDirFlag) dataDir = resolve(dataDirFlag);
  else if (name) dataDir = clusterPaths(name).dir;
  else {
    const byStart = clusterPaths(DEFAULT_CLUSTER);
    dataDir = readState(byStart) ? byStart.dir : baseDir();
  }
  const paths = clusterPaths(basename(dataDir), dirname(dataDir));
  const state = readState(paths);
  return { dataDir, running: state && isServerProcess(state.pid, paths) ? { pid: state.pid, url: state.url } : undefined };
}

export function lastLines(file: string, n: number): string {
  try {
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-n).join('\n');
  } catch {
    return '';
  }
}

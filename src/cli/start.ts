// `k1s start [NAME]`: runs `k1s server` for a named cluster in the background (its output goes to the data dir's
// server.log), follows its phases, waits until the API and the nodes are Ready, and merges a kubeconfig context.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HttpClient } from '../client/http.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import {
  choosePort,
  clusterInfo,
  contextName,
  isServerProcess,
  lastLines,
  portFree,
  resolveName,
  writeState,
  type ClusterPaths,
  type ClusterState,
} from './clusters.js';
import { mergeKubeconfig, userKubeconfigPath } from './kubeconfig-merge.js';
import { Progress } from './progress.js';
import { restoreSnapshot } from './snapshot.js';
import { parseDuration } from './stop.js';

const help = `Usage: k1s start [NAME] [flags]

Starts the cluster NAME (default "k1s") in the background, waits until it is ready and makes its kubectl context
current (context "k1s" for the default cluster, "k1s-NAME" for others, in $KUBECONFIG's first file or
~/.kube/config). Starting a cluster again resumes it with the same objects and flags; starting a running cluster
does nothing. Several clusters can run side by side, each with its own data dir and port.

Examples:
  k1s start                                  # the default cluster (a real node when run as root)
  k1s start dev --simulated-nodes 3 --no-kubelet
  k1s start ci-1 --from-snapshot golden.tar  # a new cluster with the objects of a snapshot
  k1s start --port 7443 --wait 2m

Flags:
  --name NAME              the cluster (same as the NAME argument)
  --simulated-nodes N      register N simulated nodes (no container runtime needed)
  --no-kubelet             run no real node (API, controllers, scheduler and simulated nodes only; the default
                           when not root)
  --port P                 API server port (default: the cluster's previous port, else the first free from 6443)
  --wait D                 how long to wait for the API and nodes to be Ready (default 60s; e.g. 90s, 2m)
  --from-snapshot FILE     create the cluster from a snapshot (see k1s snapshot --help)
  --no-switch-context      merge the kubeconfig context without making it current
  -h, --help               show this help`;

interface StartFlags {
  name: string;
  simulatedNodes?: number;
  noKubelet: boolean;
  port?: number;
  waitMs: number;
  fromSnapshot?: string;
  switchContext: boolean;
}

function parse(args: string[]): StartFlags | { exit: number } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'simulated-nodes': { type: 'string' },
        'no-kubelet': { type: 'boolean' },
        port: { type: 'string' },
        wait: { type: 'string' },
        'from-snapshot': { type: 'string' },
        'no-switch-context': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`k1s start: ${(e as Error).message}\n\n${help}`);
    return { exit: 2 };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return { exit: 0 };
  }
  const usage = (msg: string) => {
    console.error(`k1s start: ${msg}\n\nRun "k1s start --help" for the flags.`);
    return { exit: 2 };
  };
  if (positionals.length > 1) return usage(`one cluster name at most, got ${positionals.join(' ')}`);
  const r = resolveName(positionals[0], values.name);
  if ('error' in r) return usage(r.error);
  const sim = values['simulated-nodes'];
  const simulatedNodes = sim === undefined ? undefined : Number(sim);
  if (simulatedNodes !== undefined && (!Number.isInteger(simulatedNodes) || simulatedNodes < 0 || simulatedNodes > 10_000)) {
    return usage(`--simulated-nodes must be a whole number from 0 to 10000, got "${sim}"`);
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) return usage(`--port must be a port number (1-65535), got "${values.port}"`);
  const waitMs = parseDuration(values.wait ?? '60s');
  if (waitMs === undefined || waitMs <= 0) return usage(`--wait must be a duration such as 60s or 2m, got "${values.wait}"`);
  return {
    name: r.name,
    simulatedNodes,
    noKubelet: values['no-kubelet'] ?? false,
    port,
    waitMs,
    fromSnapshot: values['from-snapshot'],
    switchContext: !values['no-switch-context'],
  };
}

/** The cluster-describing server flags: the previous run's, with this start's flags applied. */
function serverArgsFor(flags: StartFlags, previous: string[], note: (l: string) => void): string[] {
  const args = [...previous];
  const setValue = (flag: string, value: string) => {
    const i = args.indexOf(flag);
    if (i >= 0) args.splice(i, 2);
    args.push(flag, value);
  };
  if (flags.simulatedNodes !== undefined) setValue('--simulated-nodes', String(flags.simulatedNodes));
  const isRoot = process.getuid?.() === 0;
  if ((flags.noKubelet || !isRoot) && !args.includes('--disable-agent')) {
    if (!flags.noKubelet) note('not running as root: starting without a real node (API, controllers, simulated nodes); run as root for real pods');
    args.push('--disable-agent');
  }
  return args;
}

/** How the server is started: this same k1s (K1S_SELF names another entry script, for tests). */
function selfCommand(): { file: string; args: string[] } {
  const entry = process.env.K1S_SELF || process.argv[1];
  return { file: process.execPath, args: [...process.execArgv, entry] };
}

/** Reads what the log got since `offset`. */
function readFrom(file: string, offset: number): { text: string; offset: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { text: '', offset };
  }
  try {
    const size = statSync(file).size;
    if (size <= offset) return { text: '', offset };
    const buf = Buffer.alloc(size - offset);
    const n = readSync(fd, buf, 0, buf.length, offset);
    return { text: buf.subarray(0, n).toString('utf8'), offset: offset + n };
  } finally {
    closeSync(fd);
  }
}

/** Log lines of the server that mark a phase (see Cluster.start's phase() lines). */
const PHASES: [RegExp, string][] = [
  [/certificates (created|loaded)/, 'Certificates'],
  [/storage opened/, 'Object store'],
  [/system namespaces ready|API server listening/, 'API server'],
  [/API server ready at/, 'Controllers and scheduler'],
];

export async function startCommand(args: string[]): Promise<number> {
  const flags = parse(args);
  if ('exit' in flags) return flags.exit;
  let info = clusterInfo(flags.name);
  const progress = new Progress();
  if (info.running && info.state) {
    if (flags.fromSnapshot) {
      console.error(`k1s start: cluster "${flags.name}" exists and is running: pick another name for the snapshot's cluster`);
      return 1;
    }
    console.log(`cluster "${flags.name}" is already running at ${info.state.url ?? `port ${info.state.port}`} (pid ${info.state.pid})`);
    return 0;
  }
  if (flags.fromSnapshot) {
    progress.phase(`Restoring snapshot ${flags.fromSnapshot}`);
    try {
      const { manifest } = await restoreSnapshot(flags.fromSnapshot, info.paths);
      progress.done(`(${manifest.objects} objects of cluster "${manifest.cluster}")`);
    } catch (e) {
      progress.fail((e as Error).message);
      return 1;
    }
    info = clusterInfo(flags.name);
  }
  const { paths } = info;
  let port = flags.port;
  if (port !== undefined && !(await portFree(port))) {
    console.error(`k1s start: port ${port} is in use (see: ss -ltnp 'sport = :${port}'): stop what uses it or pick another with --port`);
    return 1;
  }
  port ??= await choosePort(flags.name);
  const notes: string[] = [];
  const serverArgs = serverArgsFor(flags, info.state?.serverArgs ?? [], (l) => notes.push(l));
  for (const n of notes) console.error(`note: ${n}`);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const logOffset = existsSync(paths.log) ? statSync(paths.log).size : 0;
  const logFd = openSync(paths.log, 'a', 0o600);
  writeSync(logFd, `--- k1s start ${flags.name} at ${new Date().toISOString()}\n`);
  const self = selfCommand();
  const fullArgs = ['server', '--data-dir', paths.dir, '--https-listen-port', String(port), '--write-kubeconfig', paths.kubeconfig, ...serverArgs];
  const child = spawn(self.file, [...self.args, ...fullArgs], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    // the writer thread's connections share the file, so snapshot/history can read it while the server runs
    env: { ...process.env, K1S_SQLITE_WRITER: process.env.K1S_SQLITE_WRITER ?? 'thread' },
  });
  closeSync(logFd);
  let exited: number | string | undefined;
  child.once('exit', (code, signal) => (exited = signal ?? code ?? 'unknown'));
  child.unref();
  const state: ClusterState = { name: flags.name, pid: child.pid ?? 0, port, startedAt: new Date().toISOString(), serverArgs };
  writeState(paths, state);
  const result = await waitReady({ paths, state, progress, waitMs: flags.waitMs, logOffset, exited: () => exited });
  if (!result.ok) {
    console.error(`k1s start: ${result.reason}`);
    const tail = lastLines(paths.log, 20);
    if (tail) console.error(`last lines of ${paths.log}:\n${tail}`);
    if (isServerProcess(state.pid, paths)) {
      console.error(`the server (pid ${state.pid}) is still running: follow it with "k1s logs -f ${flags.name}", or "k1s stop ${flags.name}"`);
    }
    return 1;
  }
  state.url = result.url;
  writeState(paths, state);
  const target = userKubeconfigPath();
  const ctx = contextName(flags.name);
  try {
    mergeKubeconfig(target, paths.kubeconfig, { name: ctx, setCurrent: flags.switchContext });
  } catch (e) {
    console.error(`k1s start: the cluster runs, but its context could not be merged into ${target}: ${(e as Error).message}`);
    console.error(`use it with: export KUBECONFIG=${paths.kubeconfig}`);
    return 1;
  }
  const name = flags.name === 'k1s' ? '' : ` ${flags.name}`;
  console.log(`cluster "${flags.name}" is ready at ${result.url} (${progress.elapsedMs()} ms)`);
  console.log(`kubectl context "${ctx}" ${flags.switchContext ? 'is now current' : 'was added'} in ${target}. Try:`);
  console.log(`  kubectl ${flags.switchContext ? '' : `--context ${ctx} `}get nodes`);
  console.log(`  k1s kubectl${name} -- get pods -A      k1s status${name}      k1s stop${name}      k1s delete${name}`);
  return 0;
}

interface WaitOptions {
  paths: ClusterPaths;
  state: ClusterState;
  progress: Progress;
  waitMs: number;
  logOffset: number;
  exited: () => number | string | undefined;
}

async function waitReady(o: WaitOptions): Promise<{ ok: true; url: string } | { ok: false; reason: string }> {
  const deadline = performance.now() + o.waitMs;
  let offset = o.logOffset;
  let pending = '';
  let url: string | undefined;
  let client: HttpClient | undefined;
  const sim = Number(argValue(o.state.serverArgs, '--simulated-nodes') ?? '0');
  const expectedNodes = sim + (o.state.serverArgs.includes('--disable-agent') ? 0 : 1);
  o.progress.phase('Starting the server');
  try {
    while (performance.now() < deadline) {
      const code = o.exited();
      if (code !== undefined) {
        o.progress.fail();
        return { ok: false, reason: `the server exited (${code}) before it was ready` };
      }
      const chunk = readFrom(o.paths.log, offset);
      offset = chunk.offset;
      pending += chunk.text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        for (const [re, title] of PHASES) if (re.test(line)) o.progress.phase(title);
        const m = /API server ready at (\S+)/.exec(line);
        if (m) url = m[1];
      }
      if (url && !client && existsSync(o.paths.kubeconfig)) {
        client = new HttpClient(loadKubeconfig(o.paths.kubeconfig), 'k1s-start');
        o.progress.phase(expectedNodes ? `Waiting for ${expectedNodes} node${expectedNodes > 1 ? 's' : ''} to be Ready` : 'Checking the API');
      }
      if (client) {
        try {
          const nodes = await client.resource('v1', 'nodes').list('');
          const ready = nodes.items.filter((n) =>
            ((n.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
          ).length;
          if (ready >= expectedNodes) {
            o.progress.done(expectedNodes ? `(${ready} Ready)` : undefined);
            return { ok: true, url: url! };
          }
        } catch {
          // not serving yet
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    o.progress.fail('timed out');
    return { ok: false, reason: `the cluster was not ready within ${Math.round(o.waitMs / 1000)} s (raise --wait)` };
  } finally {
    client?.close();
  }
}

function argValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

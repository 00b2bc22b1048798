// `k1s stop [NAME]`: a graceful stop (SIGTERM: the server stops its pods and closes the store); state is kept and
// `k1s start` resumes with the same objects.
import { clusterInfo, isServerProcess, readState, writeState, type ClusterPaths } from './clusters.js';
import { parseClusterArgs } from './command-args.js';

/** "60s", "2m", "1500ms", "1h" or plain seconds → milliseconds; undefined when malformed. */
export function parseDuration(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Math.round(Number(m[1]) * unit);
}

export interface StopResult {
  /** whether a server was running */
  wasRunning: boolean;
  /** it ignored SIGTERM for the whole timeout and was killed */
  killed: boolean;
}

/** Stops the cluster's server: SIGTERM, then SIGKILL after timeoutMs. */
export async function stopCluster(paths: ClusterPaths, opts: { timeoutMs: number }): Promise<StopResult> {
  const state = readState(paths);
  if (!state || !isServerProcess(state.pid, paths)) return { wasRunning: false, killed: false };
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + opts.timeoutMs;
  let killed = false;
  while (isServerProcess(state.pid, paths)) {
    if (Date.now() > deadline && !killed) {
      process.kill(state.pid, 'SIGKILL');
      killed = true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  writeState(paths, { ...state, pid: 0, url: undefined });
  return { wasRunning: true, killed };
}

const help = `Usage: k1s stop [NAME] [flags]

Stops the cluster NAME (default "k1s") gracefully: its pods are stopped and its state is kept; "k1s start NAME"
resumes it with the same objects.

Examples:
  k1s stop
  k1s stop dev --timeout 10s

Flags:
  --name NAME      the cluster (same as the NAME argument)
  --timeout D      how long to wait before killing the server (default 60s)
  -h, --help       show this help`;

export async function stopCommand(args: string[]): Promise<number> {
  const parsed = parseClusterArgs('stop', args, { timeout: { type: 'string' } }, help);
  if ('exit' in parsed) return parsed.exit;
  const { values } = parsed;
  const r = { name: parsed.name };
  const timeoutMs = parseDuration((values.timeout as string | undefined) ?? '60s');
  if (timeoutMs === undefined) {
    console.error(`k1s stop: --timeout must be a duration such as 30s, got "${values.timeout}"`);
    return 2;
  }
  const info = clusterInfo(r.name);
  if (!info.state) {
    console.error(`k1s stop: no cluster named "${r.name}": see k1s list`);
    return 1;
  }
  const t0 = performance.now();
  const res = await stopCluster(info.paths, { timeoutMs });
  if (!res.wasRunning) console.log(`cluster "${r.name}" is not running`);
  else if (res.killed) console.log(`cluster "${r.name}" did not stop within ${values.timeout ?? '60s'} and was killed; see k1s logs ${r.name}`);
  else console.log(`cluster "${r.name}" stopped (${Math.round(performance.now() - t0)} ms); start it again with: k1s start${r.name === 'k1s' ? '' : ` ${r.name}`}`);
  return 0;
}

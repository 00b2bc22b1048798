// `k1s stop [NAME]`: a graceful stop (SIGTERM: the server closes the store), then the real node's pods are stopped
// (their containers outlive the server, as they outlive k3s; a stopped cluster should use no CPU or memory, as with
// kind or minikube). State is kept: `k1s start` resumes with the same objects and the kubelet runs the pods again.
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

Stops the cluster NAME (default "k1s") gracefully: its server ends, its pods are stopped and its state is kept;
"k1s start NAME" resumes it with the same objects (the same pods, started again).

Examples:
  k1s stop
  k1s stop dev --timeout 10s
  k1s stop --keep-pods     # leave the containers running (a quicker restart; they run unsupervised meanwhile)

Flags:
  --name NAME      the cluster (same as the NAME argument)
  --timeout D      how long to wait before killing the server (default 60s)
  --keep-pods      do not stop the real node's containers
  -h, --help       show this help

Exit status: 0 stopped (or was not running), 1 no such cluster or its pods could not be stopped, 2 usage error.`;

export async function stopCommand(args: string[]): Promise<number> {
  const parsed = parseClusterArgs('stop', args, { timeout: { type: 'string' }, 'keep-pods': { type: 'boolean' } }, help);
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
  let code = 0;
  const sa = info.state.serverArgs;
  if (!values['keep-pods'] && !sa.includes('--disable-agent') && !sa.includes('--container-runtime-endpoint') && process.getuid?.() === 0) {
    try {
      const pause = sa.includes('--pause-image') ? sa[sa.indexOf('--pause-image') + 1] : undefined;
      const pods = await stopNodePods(info.paths, pause);
      if (pods) console.log(`${pods} pod${pods === 1 ? '' : 's'} of the node stopped`);
    } catch (e) {
      console.error(`k1s stop: could not stop the node's pods: ${(e as Error).message}; they keep running until "k1s start ${r.name}" or "k1s delete ${r.name}"`);
      code = 1;
    }
  }
  if (res.wasRunning && !res.killed) {
    console.log(`cluster "${r.name}" stopped (${Math.round(performance.now() - t0)} ms); start it again with: k1s start${r.name === 'k1s' ? '' : ` ${r.name}`}`);
  }
  return code;
}

/** Stops and removes the pod sandboxes of a stopped cluster's node (the kubelet makes them again on start). */
async function stopNodePods(paths: ClusterPaths, pauseImage: string | undefined): Promise<number> {
  const { removeAllPods } = await import('../kubelet/node/teardown.js');
  const { DEFAULT_PAUSE_IMAGE } = await import('../kubelet/node/agent.js');
  return removeAllPods(paths.dir, { sandboxImage: pauseImage ?? DEFAULT_PAUSE_IMAGE });
}

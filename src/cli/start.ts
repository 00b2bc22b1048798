// `k1s start [NAME]`: runs `k1s server` for a named cluster in the background (its output goes to the data dir's
// server.log), follows its phases, waits until the API and the nodes are Ready, and merges a kubeconfig context.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { choosePort, clusterInfo, contextName, isServerProcess, lastLines, listClusters, portFree, writeState, type ClusterPaths, type ClusterState } from './clusters.js';
import { mergeKubeconfig, userKubeconfigPath } from './kubeconfig-merge.js';
import { Progress } from './progress.js';
import { restoreSnapshot } from './snapshot.js';
import { datastoreFlags } from './datastore-flags.js';
import { isStandaloneExecutable, withServerNodeFlags } from './server-node-flags.js';
import { parseStartArgs, serverArgsFor, setFlag } from './start-args.js';
import { sideBySideArgs } from './start-network.js';
import { argValue, waitReady } from './start-wait.js';
import { missingImages, missingImagesReport, nodeImages, restoredImages } from './snapshot-images.js';

/** How the server is started: this same k1s (K1S_SELF names another entry script, for tests), with its node flags. */
function selfCommand(): { file: string; args: string[] } {
  const entry = process.env.K1S_SELF || process.argv[1];
  const nodeArgs = isStandaloneExecutable() ? process.execArgv : withServerNodeFlags(process.execArgv);
  return { file: process.execPath, args: [...nodeArgs, entry] };
}

/** The --datastore-* and --etcd-prefix flags among the flags passed through to the server. */
function datastoreValues(passThrough: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (let i = 0; i < passThrough.length; i++) {
    const f = passThrough[i]!;
    if (f.startsWith('--datastore-') || f === '--etcd-prefix') values[f.slice(2)] = passThrough[++i]!;
  }
  return values;
}

/** Host ports the server will need besides the API port, with the flag that changes each. */
function hostPorts(serverArgs: string[]): { port: number; flag: string }[] {
  if (serverArgs.includes('--disable-agent') || serverArgs.includes('--disable-ingress')) return [];
  return [
    { port: Number(argValue(serverArgs, '--ingress-http-port') ?? '80'), flag: '--ingress-http-port' },
    { port: Number(argValue(serverArgs, '--ingress-https-port') ?? '443'), flag: '--ingress-https-port' },
  ].filter((p) => p.port > 0);
}

export async function startCommand(args: string[]): Promise<number> {
  const flags = parseStartArgs(args);
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
      // a start on etcd restores into that etcd: the server would find an empty prefix otherwise
      const etcd = datastoreFlags(datastoreValues(flags.passThrough));
      if (typeof etcd === 'string') throw new Error(etcd);
      const { manifest } = await restoreSnapshot(flags.fromSnapshot, info.paths, { etcd });
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
  const serverArgs = serverArgsFor(flags, info.state?.serverArgs ?? [], { isRoot: process.getuid?.() === 0, note: (l) => console.error(`note: ${l}`) });
  // another cluster's bridge, ranges or ingress ports (defaults included): this one takes a free slot of its own
  const others = listClusters().filter((c) => c.paths.name !== flags.name).map((c) => c.state?.serverArgs ?? []);
  const own = sideBySideArgs(serverArgs, others, flags.passThrough);
  for (let i = 0; i < own.length; i += 2) setFlag(serverArgs, own[i]!, own[i + 1]);
  if (own.length) console.error(`note: other clusters use this network; "${flags.name}" gets its own: ${own.join(' ')}`);
  if (!serverArgs.includes('--disable-agent') && !serverArgs.includes('--container-runtime-endpoint')) {
    const { checkNodePrerequisites } = await import('../runtime/prerequisites.js');
    const pre = checkNodePrerequisites();
    if (!pre.ok) {
      console.error(`k1s start: ${pre.message.replace('run with --disable-agent', 'start without a real node: k1s start --no-kubelet')}`);
      return 1;
    }
  }
  for (const p of hostPorts(serverArgs)) {
    if (!(await portFree(p.port))) {
      console.error(`k1s start: port ${p.port} is in use (see: ss -ltnp 'sport = :${p.port}'): stop what uses it or pick another with ${p.flag} (or --disable-ingress)`);
      return 1;
    }
  }
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
  await reportMissingImages(paths, serverArgs, flags.name);
  console.log(`cluster "${flags.name}" is ready at ${result.url} (${progress.elapsedMs()} ms)`);
  console.log(`kubectl context "${ctx}" ${flags.switchContext ? 'is now current' : 'was added'} in ${target}. Try:`);
  console.log(`  kubectl ${flags.switchContext ? '' : `--context ${ctx} `}get nodes`);
  console.log(`  k1s kubectl${name} -- get pods -A      k1s status${name}      k1s stop${name}      k1s delete${name}`);
  return 0;
}

/** A cluster made from a snapshot: which of the snapshot's images its node lacks (there is no registry to pull). */
async function reportMissingImages(paths: ClusterPaths, serverArgs: string[], cluster: string): Promise<void> {
  const wanted = restoredImages(paths);
  if (!wanted?.length) return;
  try {
    const present = await nodeImages(paths, serverArgs);
    if (!present) return;
    for (const line of missingImagesReport(missingImages(wanted, present), cluster)) console.error(line);
  } catch (e) {
    console.error(`note: could not compare the snapshot's images with the node's: ${(e as Error).message}`);
  }
}

// The V8 flags the k1s server process runs with: `k1s start` passes them to the server it starts, bin/k1s's
// shebang carries the same ones, and the benchmark starts its servers with them.
//
// Why: a busy API server allocates objects that live a few milliseconds to a few hundred (a request, a commit, a
// watch delivery, a kubelet's status write and its events). With node's default 16 MiB semi-spaces, young-generation
// collections come often enough to catch them alive, promote them, and leave them to full collections of a heap
// holding every informer's objects. 64 MiB semi-spaces (a5c3a6b) took scheduling 20,000 pods on 1,000 simulated
// nodes from 304 to 374 pods/s. At 100,000 pods on 1,000 nodes a scavenge still came every ~0.25 s, promoted ~4 MB
// and paused ~21 ms (a fifth of the main thread); 256 MiB: 1,121-1,182 pods/s against 884 (128 MiB: 961), and 10,000
// pods on 100 nodes 1,361 against 1,255. The price is memory once a server is busy for long: 5,000 running pods on
// 100 simulated nodes settle at 759 MiB RSS against 542; with 1,000 pods, or idle, nothing changes (the flag only
// sets a maximum, and V8 grows the young generation only while much of it survives).
import { createRequire } from 'node:module';

export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=256'];

/** `execArgv` with each server flag added unless a value for it is already given (a user's own wins). */
export function withServerNodeFlags(execArgv: readonly string[]): string[] {
  const name = (f: string) => f.split('=')[0];
  const given = new Set(execArgv.map(name));
  return [...execArgv, ...SERVER_NODE_FLAGS.filter((f) => !given.has(name(f)))];
}

/**
 * Whether this process is the standalone executable (dist/k1s), which takes no node flags on its command line
 * (they would be the program's arguments) and whose built-in code cache was made without them.
 */
export function isStandaloneExecutable(): boolean {
  try {
    return (createRequire(import.meta.url)('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false; // node < 20.12 has no node:sea and no executable of ours
  }
}

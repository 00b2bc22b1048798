// The V8 flags the k1s server process runs with: `k1s start` passes them to the server it starts, bin/k1s's
// shebang carries the same ones, and the benchmark starts its servers with them.
//
// Why: a busy API server allocates objects that live a few milliseconds (a request, a commit's fsync, a watch
// delivery). With node's default 16 MiB semi-spaces, young-generation collections come often enough to catch them
// alive, promote them, and leave them to full collections of a heap holding every informer's objects. 64 MiB
// semi-spaces let them die young: scheduling 20,000 pods on 1,000 simulated nodes went 304 -> 374 pods/s, and the
// server's RSS after 10,000 pods dropped by a fifth. The flags only set maximums: a small cluster does not grow
// into them.
import { createRequire } from 'node:module';

export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

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

// What a simulated container does, declared as data (KWOK's stages): rules over the pod and container pick how long
// a container runs, how it exits, how long it takes to stop and whether it is ready. The simulated runtime only
// executes these verdicts; tests read the rules like a table.
import type { Container, Pod } from '../../api/core/pod/types.js';

export const SIM_ANNOTATIONS = {
  exitAfter: 'sim.k1s.dev/exit-after',
  exitCode: 'sim.k1s.dev/exit-code',
  stopDelay: 'sim.k1s.dev/stop-delay',
  ready: 'sim.k1s.dev/ready',
} as const;

export interface SimBehaviour {
  /** ms after start at which the container exits on its own; undefined: runs until killed */
  exitAfterMs?: number;
  exitCode: number;
  /** ms a SIGTERM takes to stop it (capped by the grace period; past it the container is SIGKILLed) */
  stopDelayMs: number;
  ready: boolean;
}

/** A rule: when `match` returns a partial behaviour, it applies (first match wins per field). */
export interface SimRule {
  name: string;
  match(pod: Pod, c: Container): Partial<SimBehaviour> | undefined;
}

/** "2s", "500ms", "1m30s", "1.5h", or a bare number of seconds. */
export function parseDuration(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const v = s.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of v.matchAll(re)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0].length;
  }
  return consumed === v.length && consumed > 0 ? total : undefined;
}

const SHELLS = new Set(['sh', '/bin/sh', 'bash', '/bin/bash', '/usr/bin/sh', '/usr/bin/bash', 'ash', '/bin/ash']);

/** `sh -c "sleep 1; exit 3"` and friends: the script's sleeps and final exit code, if that is all it does. */
export function shellScriptBehaviour(argv: string[]): Partial<SimBehaviour> | undefined {
  if (argv.length === 1 && (argv[0] === 'true' || argv[0] === '/bin/true')) return { exitAfterMs: 0, exitCode: 0 };
  if (argv.length === 1 && (argv[0] === 'false' || argv[0] === '/bin/false')) return { exitAfterMs: 0, exitCode: 1 };
  if (argv.length < 3 || !SHELLS.has(argv[0]) || argv[1] !== '-c') return undefined;
  let delay = 0;
  let code: number | undefined;
  for (const raw of argv[2].split(/;|&&|\n/)) {
    const stmt = raw.trim();
    if (!stmt) continue;
    const sleep = /^sleep\s+(\S+)$/.exec(stmt);
    if (sleep && code === undefined) {
      const d = parseDuration(sleep[1]);
      if (d === undefined) return undefined; // sleep infinity: runs until killed
      delay += d;
      continue;
    }
    const exit = /^exit(?:\s+(\d+))?$/.exec(stmt);
    if (exit) {
      code = exit[1] === undefined ? 0 : Number(exit[1]) & 255;
      break;
    }
    if (stmt === 'true' || stmt === 'false') {
      code = stmt === 'true' ? 0 : 1;
      continue;
    }
    return undefined; // anything else: treat as a long-running program
  }
  if (code === undefined) return undefined;
  return { exitAfterMs: delay, exitCode: code };
}

const annotations = (pod: Pod) => pod.metadata.annotations ?? {};

/** The default rules, first match per field wins: annotations, then the container's own command. */
export const defaultSimRules: SimRule[] = [
  {
    name: 'exit-after annotation',
    match: (pod) => {
      const ms = parseDuration(annotations(pod)[SIM_ANNOTATIONS.exitAfter]);
      if (ms === undefined) return undefined;
      return { exitAfterMs: ms, exitCode: Number(annotations(pod)[SIM_ANNOTATIONS.exitCode] ?? '0') || 0 };
    },
  },
  { name: 'shell exit', match: (_, c) => shellScriptBehaviour([...((c.command as string[] | undefined) ?? []), ...((c.args as string[] | undefined) ?? [])]) },
  {
    name: 'stop-delay annotation',
    match: (pod) => {
      const ms = parseDuration(annotations(pod)[SIM_ANNOTATIONS.stopDelay]);
      return ms === undefined ? undefined : { stopDelayMs: ms };
    },
  },
  { name: 'not ready annotation', match: (pod) => (annotations(pod)[SIM_ANNOTATIONS.ready] === 'false' ? { ready: false } : undefined) },
];

/** Folds the rules into one behaviour for a container. */
export function simBehaviour(pod: Pod, c: Container, rules: SimRule[] = defaultSimRules): SimBehaviour {
  const out: Partial<SimBehaviour> = {};
  for (const r of rules) {
    const b = r.match(pod, c);
    if (!b) continue;
    for (const [k, v] of Object.entries(b) as [keyof SimBehaviour, never][]) if (out[k] === undefined) out[k] = v;
  }
  return { exitAfterMs: out.exitAfterMs, exitCode: out.exitCode ?? 0, stopDelayMs: out.stopDelayMs ?? 0, ready: out.ready ?? true };
}

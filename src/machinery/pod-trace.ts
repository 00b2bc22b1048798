// K1S_TRACE_POD: a per-pod timeline for latency work. Set to a file path (or 1 for stderr), every trace point
// appends "<epoch ms with µs> <namespace/name> <event>" there; unset, tracePod is a no-op. Timestamps are
// performance.timeOrigin + performance.now(), so lines from the bench and the server compare.
import { appendFileSync } from 'node:fs';

const target = process.env.K1S_TRACE_POD;

export const podTraceOn = !!target;

export function tracePod(pod: { metadata?: { namespace?: string; name?: string } } | string, event: string): void {
  if (!target) return;
  const who = typeof pod === 'string' ? pod : `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  // each line also carries the monotonic clock in µs (what V8's CPU profiles count in)
  const line = `${(performance.timeOrigin + performance.now()).toFixed(3)} ${who} ${event} @${process.hrtime.bigint() / 1000n}\n`;
  if (target === '1') process.stderr.write(line);
  else appendFileSync(target, line);
}

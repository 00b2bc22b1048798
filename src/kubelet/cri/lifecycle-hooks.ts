// Lifecycle hooks (pkg/kubelet/lifecycle handlers.go): postStart right after StartContainer, preStop before
// StopContainer, each exec (ExecSync in the container), httpGet (from the host to the pod IP) or sleep. A failed
// postStart kills the container (FailedPostStartHook event, PostStartHookError); a failed preStop is only reported
// (FailedPreStopHook "PreStopHook failed": kube keeps hook output out of events), the stop goes on.
import type { Container, Handler, Pod } from '../../api/core/pod/types.js';
import type { CriClient } from '../../runtime/cri-client.js';
import { podDesc } from './dns-config.js';
import { httpGetProbe } from './probes.js';
import { rpcMessage } from './images.js';

export interface HookTarget {
  cri: CriClient;
  pod: Pod;
  container: Container;
  containerId: string;
  podIP: string;
  /** hooks run at most this long (the remaining grace period for preStop) */
  timeoutSeconds: number;
}

/** Runs the hook; the kubelet's failure message, or undefined on success. */
export async function runLifecycleHook(t: HookTarget, h: Handler, signal?: AbortSignal): Promise<string | undefined> {
  const where = `for Container "${t.container.name}" in Pod "${podDesc(t.pod)}"`;
  const target = { cri: t.cri, containerId: t.containerId, container: t.container, podIP: t.podIP, timeoutSeconds: Math.max(1, Math.ceil(t.timeoutSeconds)) };
  if (h.exec) {
    const cmd = h.exec.command ?? [];
    const r = await execHook(t, cmd);
    if (!r.error) return undefined;
    return `Exec lifecycle hook ([${cmd.join(' ')}]) ${where} failed - error: ${r.error}, message: ${JSON.stringify(r.output)}`;
  }
  if (h.httpGet) {
    const r = await httpGetProbe(target, h.httpGet, 'kube-lifecycle/1.33');
    // only a failed request fails an HTTP hook: any response, whatever its status code, is a success
    if (r.ok || r.output.startsWith('HTTP probe failed with statuscode')) return undefined;
    return `HTTP lifecycle hook (${h.httpGet.path ?? ''}) ${where} failed - error: ${goDialError(r.output)}`;
  }
  if (h.sleep) {
    const ms = Math.min(h.sleep.seconds ?? 0, t.timeoutSeconds) * 1000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return undefined;
  }
  if (h.tcpSocket) return `tcpSocket lifecycle hooks are deprecated and not supported ${where}`;
  return `cannot run handler: unknown handler type ${where}`;
}

/**
 * RunInContainer through ExecSync: stdout then stderr, and the remote runtime's error for a non-zero exit
 * ("command '<cmd>' exited with <code>: <stderr>").
 */
async function execHook(t: HookTarget, cmd: string[]): Promise<{ output: string; error?: string }> {
  try {
    const r = await t.cri.execSync({ container_id: t.containerId, cmd, timeout: 0 });
    const stdout = (r.stdout ?? Buffer.alloc(0)).toString();
    const stderr = (r.stderr ?? Buffer.alloc(0)).toString();
    if (r.exit_code === 0) return { output: stdout + stderr };
    return { output: stdout + stderr, error: `command '${cmd.join(' ')}' exited with ${r.exit_code}: ${stderr}` };
  } catch (e) {
    return { output: '', error: rpcMessage(e) };
  }
}

/** Node's "connect ECONNREFUSED 10.0.0.5:80" as Go's net/http prints it ("dial tcp 10.0.0.5:80: connect: connection refused"). */
export function goDialError(msg: string): string {
  return msg.replace(/connect ECONNREFUSED (\S+)/, 'dial tcp $1: connect: connection refused').replace(/connect EHOSTUNREACH (\S+)/, 'dial tcp $1: connect: no route to host');
}

/** Runs `hook` but gives up after `seconds` (a preStop may not outlive the grace period). */
export async function withDeadline<T>(p: Promise<T>, seconds: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, seconds) * 1000);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

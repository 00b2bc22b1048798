// Lifecycle hooks (pkg/kubelet/lifecycle handlers.go): postStart right after StartContainer, preStop before
// StopContainer, each exec (ExecSync in the container), httpGet (from the host to the pod IP) or sleep. A failed
// postStart kills the container (PostStartHookError); a failed preStop is only reported, the stop goes on.
import type { Container, Handler, Pod } from '../api/core-pod-types.js';
import type { CriClient } from '../runtime/cri-client.js';
import { podDesc } from './dns-config.js';
import { execProbe, httpGetProbe } from './cri-probes.js';

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
    const r = await execProbe(target, cmd);
    if (r.ok) return undefined;
    return `Exec lifecycle hook ([${cmd.join(' ')}]) ${where} failed - error: ${r.output}, message: ""`;
  }
  if (h.httpGet) {
    const r = await httpGetProbe(target, h.httpGet, 'kube-lifecycle/1.33');
    if (r.ok) return undefined;
    return `HTTP lifecycle hook (${h.httpGet.path ?? ''}) ${where} failed - error: ${r.output}`;
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

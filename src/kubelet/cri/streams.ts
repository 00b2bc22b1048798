// The CRI side of the kubelet's streaming server (src/kubelet/server.ts KubeletStreams): log paths and running state
// from ContainerStatus, and the runtime streaming URLs of Exec / Attach / PortForward for the pod's current instances.
import type { Pod } from '../../api/core/pod/types.js';
import { CriError, isCriNotFound } from '../../runtime/cri-client.js';
import type { CriRuntime } from './runtime.js';
import type { KubeletStreams, StreamFailure, StreamOptions } from '../server.js';

const criId = (containerId: string): string => containerId.replace(/^[a-z]+:\/\//, '');

/** gRPC status → the HTTP status kube's streaming server writes (NotFound 404, InvalidArgument 400, else 500) */
function failure(e: unknown): StreamFailure {
  if (e instanceof CriError) return { code: e.code === 5 ? 404 : e.code === 3 ? 400 : 500, message: e.details };
  return { code: 500, message: (e as Error).message };
}

export function criStreams(runtime: CriRuntime, getPod: (namespace: string, name: string) => Pod | undefined): KubeletStreams {
  const running = (pod: Pod, name: string): string | undefined =>
    runtime.state
      .get(pod.metadata.uid!)
      ?.containers.filter((c) => c.name === name && c.state === 'running')
      .sort((a, b) => b.attempt - a.attempt)[0]?.criId;
  const notFound = (name: string): StreamFailure => ({ code: 500, message: `container not found ("${name}")` });
  return {
    getPod,
    async containerLogPath(containerId) {
      try {
        return (await runtime.cri.containerStatus({ container_id: criId(containerId) })).status?.log_path || undefined;
      } catch (e) {
        if (isCriNotFound(e)) return undefined;
        throw e;
      }
    },
    async isContainerRunning(containerId) {
      const res = await runtime.cri.containerStatus({ container_id: criId(containerId) }).catch(() => undefined);
      return res?.status?.state === 'CONTAINER_RUNNING';
    },
    async exec(pod: Pod, container: string, cmd: string[], opts: StreamOptions) {
      const id = running(pod, container);
      if (!id) return notFound(container);
      try {
        return (await runtime.cri.exec({ container_id: id, cmd, tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr && !opts.tty })).url;
      } catch (e) {
        return failure(e);
      }
    },
    async attach(pod: Pod, container: string, opts: StreamOptions) {
      const id = running(pod, container);
      if (!id) return notFound(container);
      try {
        return (await runtime.cri.attach({ container_id: id, tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr && !opts.tty })).url;
      } catch (e) {
        return failure(e);
      }
    },
    async portForward(pod: Pod, ports: number[]) {
      const sb = runtime.state.get(pod.metadata.uid!)?.sandboxes[0];
      if (!sb?.ready) return { code: 500, message: `pod ${pod.metadata.name} has no running sandbox` };
      try {
        return (await runtime.cri.portForward({ pod_sandbox_id: sb.id, port: ports })).url;
      } catch (e) {
        return failure(e);
      }
    },
  };
}

// What `k1s start` waits for after spawning the server: its phases (read from the server log as it grows), the API,
// every node Ready, and — with a real node — cluster DNS answering `kubernetes.default.svc.<domain>` over UDP at
// the node's DNS address (the pod network's gateway, which is this cluster's own; the kube-dns Service IP is the
// same in every k1s cluster, so from the host it could reach another cluster's server).
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { HttpClient } from '../client/http.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import type { ClusterPaths, ClusterState } from './clusters.js';
import { queryA } from './dns-probe.js';
import type { Progress } from './progress.js';

export interface WaitOptions {
  paths: ClusterPaths;
  state: ClusterState;
  progress: Progress;
  waitMs: number;
  /** where the log of this start begins */
  logOffset: number;
  /** the server's exit code or signal once it exited */
  exited: () => number | string | undefined;
}

export type WaitResult = { ok: true; url: string; dns?: string } | { ok: false; reason: string };

/** Reads what the log got since `offset`. */
function readFrom(file: string, offset: number): { text: string; offset: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { text: '', offset };
  }
  try {
    const size = statSync(file).size;
    if (size <= offset) return { text: '', offset };
    const buf = Buffer.alloc(size - offset);
    const n = readSync(fd, buf, 0, buf.length, offset);
    return { text: buf.subarray(0, n).toString('utf8'), offset: offset + n };
  } finally {
    closeSync(fd);
  }
}

/** Log lines of the server that mark a phase (Cluster.start's and the node agent's phase() lines). */
const PHASES: [RegExp, string][] = [
  [/certificates (created|loaded)/, 'Certificates'],
  [/storage (\(\w+\) )?opened/, 'Object store'],
  [/system namespaces ready|API server listening/, 'API server'],
  [/API server ready at/, 'Controllers and scheduler'],
];

/** What the node's DNS line says: where it serves and its domain, or why it did not start. */
export function parseDnsLine(line: string): { address: string; domain: string } | { error: string } | undefined {
  const m = /cluster DNS serving (\S+) on (\S+):53\b/.exec(line);
  if (m) return { domain: m[1]!, address: m[2]! };
  const f = /cluster DNS not started: (.*)/.exec(line);
  return f ? { error: f[1]! } : undefined;
}

export function argValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

const DNS_ERROR_GRACE_MS = 8000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitReady(o: WaitOptions): Promise<WaitResult> {
  const deadline = performance.now() + o.waitMs;
  let offset = o.logOffset;
  let pending = '';
  let url: string | undefined;
  // the node may log a failed DNS start and then a working one (start-up paths racing): serving wins, and a
  // failure only counts once no serving line followed it for DNS_ERROR_GRACE_MS (the serving line waits up to 5 s
  // for the service proxy to route the kube-dns IP)
  let dns: { address: string; domain: string } | undefined;
  let dnsError: { message: string; at: number } | undefined;
  let client: HttpClient | undefined;
  const sim = Number(argValue(o.state.serverArgs, '--simulated-nodes') ?? '0');
  const realNode = !o.state.serverArgs.includes('--disable-agent');
  const expectedNodes = sim + (realNode ? 1 : 0);
  let nodesReady = false;
  let runtimeUp = false;
  let containerdShown = false;
  let lastDnsError = 'the node has not started cluster DNS yet';
  o.progress.phase('Starting the server');
  try {
    while (performance.now() < deadline) {
      const code = o.exited();
      if (code !== undefined) {
        o.progress.fail();
        return { ok: false, reason: `the server exited (${code}) before it was ready` };
      }
      const chunk = readFrom(o.paths.log, offset);
      offset = chunk.offset;
      pending += chunk.text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!url) for (const [re, title] of PHASES) if (re.test(line)) o.progress.phase(title);
        if (/agent: (containerd started|container runtime at \S+ ready)/.test(line)) runtimeUp = true;
        const m = /API server ready at (\S+)/.exec(line);
        if (m) url = m[1];
        const d = parseDnsLine(line);
        if (d && 'error' in d) dnsError ??= { message: d.error, at: performance.now() };
        else if (d) dns = d;
      }
      if (url && !client && existsSync(o.paths.kubeconfig)) client = new HttpClient(loadKubeconfig(o.paths.kubeconfig), 'k1s-start');
      // the real node's agent starts after the API: its container runtime first, then the node
      if (client && !nodesReady) {
        // the containerd phase is shown once on a real node, also when k1s' own containerd (started beside the API
        // server) was up first: then it ends at once
        if (realNode && (!runtimeUp || !containerdShown)) {
          o.progress.phase('containerd');
          containerdShown = true;
        }
        if (!realNode || runtimeUp) o.progress.phase(expectedNodes ? `Waiting for ${expectedNodes} node${expectedNodes > 1 ? 's' : ''} to be Ready` : 'Checking the API');
      }
      if (client && !nodesReady) {
        try {
          const nodes = await client.resource('v1', 'nodes').list('');
          const ready = nodes.items.filter((n) =>
            ((n.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
          ).length;
          if (ready >= expectedNodes && (!realNode || runtimeUp)) {
            o.progress.done(expectedNodes ? `(${ready} Ready)` : undefined);
            nodesReady = true;
            if (!realNode) return { ok: true, url: url! };
            o.progress.phase('DNS');
          }
        } catch {
          // not serving yet
        }
      }
      if (nodesReady && !dns && dnsError && performance.now() - dnsError.at > DNS_ERROR_GRACE_MS) {
        o.progress.fail(dnsError.message);
        return { ok: false, reason: `cluster DNS did not start: ${dnsError.message}` };
      }
      if (nodesReady && dns) {
        const name = `kubernetes.default.svc.${dns.domain}`;
        try {
          const res = await queryA(dns.address, name, { timeoutMs: Math.max(50, Math.min(1000, deadline - performance.now())) });
          if (res.rcode === 'NOERROR' && res.addresses.length) {
            o.progress.done(`(${name} is ${res.addresses[0]} at ${dns.address})`);
            return { ok: true, url: url!, dns: dns.address };
          }
          lastDnsError = `${dns.address} answered ${res.rcode} with ${res.addresses.length} addresses for ${name}`;
        } catch (e) {
          lastDnsError = (e as Error).message;
        }
      }
      await sleep(nodesReady ? 100 : 50);
    }
    o.progress.fail('timed out');
    const what = nodesReady ? `cluster DNS did not answer (${lastDnsError})` : 'the cluster was not ready';
    return { ok: false, reason: `${what} within ${Math.round(o.waitMs / 1000)} s (raise --wait)` };
  } finally {
    client?.close();
  }
}

// containerd's registry host configuration (hosts.toml files under the CRI plugin's config_path) that makes k1s'
// registry a mirror of the public registries: the upstream first, so that online a tag resolves where it is
// published (blobs containerd already has are not fetched again); the local registry second, so that offline
// what the node has is served. An upstream whose name does not resolve fails in milliseconds, but one whose packets
// are dropped holds every pull for containerd 1.6's 30 s dial timeout (its hosts.toml has no dial_timeout), so an
// upstream that does not answer a probe is left out until it answers again. containerd reads these files at every
// pull, so they can be rewritten while it runs.
import { connect } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The registries mirrored, with the endpoint containerd uses for each when no hosts.toml says otherwise. */
export const MIRRORED_REGISTRIES: Record<string, string> = {
  'docker.io': 'https://registry-1.docker.io',
  'registry.k8s.io': 'https://registry.k8s.io',
  'quay.io': 'https://quay.io',
  'ghcr.io': 'https://ghcr.io',
};

/** registry names that exist only on k1s' nodes (the images k1s builds): served by the local registry alone */
export const LOCAL_REGISTRIES = ['k1s.local'] as const;

/** the directory config_path names: <containerd dir>/certs.d */
export const registryConfigDir = (containerdDir: string): string => path.join(containerdDir, 'certs.d');

const q = (s: string): string => JSON.stringify(s);

/**
 * hosts.toml of a mirrored registry: the upstream as the first host and k1s' registry as `server`, which
 * containerd tries after the hosts; containerd adds `?ns=<registry>` to requests to any host not the registry's
 * own, so the registry knows which upstream a repository belongs to.
 */
export function mirrorHostsToml(upstream: string, local: string, opts: { upstreamReachable?: boolean } = {}): string {
  const head = `# written by k1s on every start; edits are overwritten
server = ${q(local)}
`;
  // containerd 1.6 refuses a hosts.toml without a [host] table ("invalid `host` tree"): the registry stands in
  const host = opts.upstreamReachable === false ? local : upstream;
  const note = opts.upstreamReachable === false ? `# ${upstream} did not answer k1s' last probe: left out until it does\n` : '';
  return `${head}
${note}[host.${q(host)}]
  capabilities = ["pull", "resolve"]
`;
}

/** hosts.toml of the registry's own names (localhost:<port>, 127.0.0.1:<port>, k1s.local): plain HTTP, push too */
export function selfHostsToml(local: string): string {
  return `# written by k1s on every start; edits are overwritten
server = ${q(local)}

[host.${q(local)}]
  capabilities = ["pull", "resolve", "push"]
`;
}

/**
 * Writes the mirror configuration for a registry on 127.0.0.1:port (port undefined: none, removes it);
 * `unreachable` names mirrored registries (docker.io …) whose upstream is left out.
 */
export async function writeRegistryHosts(dir: string, port: number | undefined, unreachable: ReadonlySet<string> = new Set()): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  if (port === undefined) return;
  const local = `http://127.0.0.1:${port}`;
  const files: [string, string][] = Object.entries(MIRRORED_REGISTRIES).map(([host, upstream]) => [host, mirrorHostsToml(upstream, local, { upstreamReachable: !unreachable.has(host) })]);
  for (const self of [`localhost:${port}`, `127.0.0.1:${port}`, ...LOCAL_REGISTRIES]) files.push([self, selfHostsToml(local)]);
  for (const [host, text] of files) {
    await mkdir(path.join(dir, host), { recursive: true });
    await writeFile(path.join(dir, host, 'hosts.toml'), text);
  }
}

/** Whether a TCP connection to the upstream's HTTPS port opens within timeoutMs (name resolution included). */
export function probeUpstream(upstream: string, timeoutMs = 2000): Promise<boolean> {
  const u = new URL(upstream);
  return new Promise((done) => {
    const socket = connect({ host: u.hostname, port: Number(u.port || (u.protocol === 'http:' ? 80 : 443)) });
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(ok: boolean) {
      clearTimeout(timer);
      socket.destroy();
      done(ok);
    }
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** The mirrored registries whose upstream does not answer now, probed side by side. */
export async function unreachableUpstreams(timeoutMs = 2000, probe = probeUpstream): Promise<Set<string>> {
  const entries = Object.entries(MIRRORED_REGISTRIES);
  const ok = await Promise.all(entries.map(([, upstream]) => probe(upstream, timeoutMs)));
  return new Set(entries.filter((_, i) => !ok[i]).map(([host]) => host));
}

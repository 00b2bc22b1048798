// Where k1s' own containerd keeps its files, and the containerd 1.6 config (TOML, version 2)
// that works on these machines (see shared/RUNTIME.md for why each setting is there).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface ContainerdPaths {
  /** <dataDir>/agent/containerd: everything below belongs to this containerd */
  dir: string;
  root: string;
  state: string;
  /** gRPC unix socket path (no unix:// prefix) */
  address: string;
  config: string;
  /** CNI conflists containerd watches; k1s' network code writes them */
  cniConfDir: string;
  cniBinDir: string;
  log: string;
  /** per-pod log directories (the kubelet's /var/log/pods) */
  podLogDir: string;
}

/** Linux sun_path is 108 bytes including the NUL; containerd also binds `<address>.ttrpc`. */
const MAX_SOCKET_PATH = 107 - '.ttrpc'.length;

/** Where the CNI plugins live: Debian puts them in /usr/lib/cni, upstream tarballs in /opt/cni/bin. */
export const CNI_BIN_DIRS = ['/usr/lib/cni', '/opt/cni/bin'] as const;

export function defaultCniBinDir(): string {
  return CNI_BIN_DIRS.find((d) => existsSync(path.join(d, 'bridge'))) ?? CNI_BIN_DIRS[0];
}

export function containerdPaths(dataDir: string, opts: { cniBinDir?: string } = {}): ContainerdPaths {
  const agent = path.join(path.resolve(dataDir), 'agent');
  const dir = path.join(agent, 'containerd');
  let address = path.join(dir, 'containerd.sock');
  if (Buffer.byteLength(address) > MAX_SOCKET_PATH) {
    // A deep data dir would overflow sun_path: keep the socket in a short per-data-dir run dir.
    const hash = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
    address = path.join('/run/k1s', hash, 'containerd.sock');
  }
  return {
    dir,
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    address,
    config: path.join(dir, 'config.toml'),
    cniConfDir: path.join(agent, 'cni', 'net.d'),
    cniBinDir: opts.cniBinDir ?? defaultCniBinDir(),
    log: path.join(dir, 'containerd.log'),
    podLogDir: path.join(agent, 'pods'),
  };
}

/**
 * Plugins k1s never uses. Disabling them keeps start-up fast and the log quiet
 * (the btrfs/zfs/devmapper/aufs snapshotters probe the host and log errors, otlp tracing
 * is dead weight, the restart monitor would fight the kubelet; tasks-service needs the v1 runtime).
 */
export const DISABLED_PLUGINS = [
  'io.containerd.snapshotter.v1.aufs',
  'io.containerd.snapshotter.v1.btrfs',
  'io.containerd.snapshotter.v1.devmapper',
  'io.containerd.snapshotter.v1.zfs',
  'io.containerd.tracing.processor.v1.otlp',
  'io.containerd.internal.v1.tracing',
  'io.containerd.internal.v1.restart',
] as const;

export interface ContainerdConfigOptions {
  paths: ContainerdPaths;
  /** image every sandbox runs (must be present locally: there is no registry) */
  sandboxImage: string;
  /** containerd log level (default "info") */
  logLevel?: string;
}

const q = (s: string): string => JSON.stringify(s); // TOML basic strings share JSON's escapes

export function renderContainerdConfig(opts: ContainerdConfigOptions): string {
  const p = opts.paths;
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `# written by k1s on every start; edits are overwritten
version = 2
root = ${q(p.root)}
state = ${q(p.state)}
oom_score = 0
imports = []
disabled_plugins = [${DISABLED_PLUGINS.map(q).join(', ')}]

[grpc]
  address = ${q(p.address)}
  max_recv_message_size = 16777216
  max_send_message_size = 16777216

[ttrpc]
  address = ${q(`${p.address}.ttrpc`)}

[debug]
  level = ${q(opts.logLevel ?? 'info')}

[metrics]
  address = ""

[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = ${q(path.join(p.dir, 'opt'))}

  [${cri}]
    sandbox_image = ${q(opts.sandboxImage)}
    # required here: without it runc fails every sandbox with "can't get final child's PID from pipe"
    restrict_oom_score_adj = true
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    enable_tls_streaming = false
    disable_tcp_service = true
    max_container_log_line_size = 16384
    tolerate_missing_hugetlb_controller = true
    disable_hugetlb_controller = true

    # hosts.toml per registry (k1s' registry as a mirror); read at every pull
    [${cri}.registry]
      config_path = ${q(path.join(p.dir, 'certs.d'))}

    [${cri}.cni]
      bin_dir = ${q(p.cniBinDir)}
      conf_dir = ${q(p.cniConfDir)}
      max_conf_num = 1

    [${cri}.containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      # import with ctr unpacks for overlayfs; keep the layers for re-export
      discard_unpacked_layers = false

      [${cri}.containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"

        [${cri}.containerd.runtimes.runc.options]
          SystemdCgroup = false
          Root = ${q(path.join(p.state, 'runc'))}
`;
}

// What a node needs on the host before k1s can run real pods, and the exact Debian packages that provide it.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { CNI_BIN_DIRS } from './containerd-config.js';

export const PREREQUISITE_PACKAGES = 'containerd runc containernetworking-plugins iptables';
export const INSTALL_COMMAND = `apt-get install -y ${PREREQUISITE_PACKAGES}`;

/** programs looked up on PATH, with the Debian package that ships each */
const PROGRAMS: readonly (readonly [string, string])[] = [
  ['containerd', 'containerd'],
  ['containerd-shim-runc-v2', 'containerd'],
  ['ctr', 'containerd'],
  ['runc', 'runc'],
  ['iptables', 'iptables'],
];

/** CNI plugins k1s' conflist and containerd's CRI use (loopback is needed by every sandbox) */
export const CNI_PLUGINS = ['bridge', 'host-local', 'portmap', 'loopback'] as const;

export type PrerequisiteResult = { ok: true } | { ok: false; missing: string[]; message: string };

export interface PrerequisiteOptions {
  /** look only here for the CNI plugins (default: /usr/lib/cni, then /opt/cni/bin) */
  cniBinDir?: string;
  /** search path for programs (default: $PATH plus the sbin directories root has) */
  path?: string;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `name` in a PATH-style list of directories. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function defaultSearchPath(): string {
  // iptables and runc live in /usr/sbin, which a non-login root shell may lack on PATH
  const extra = ['/usr/local/sbin', '/usr/sbin', '/sbin'];
  return [process.env.PATH ?? '', ...extra].join(path.delimiter);
}

export function checkNodePrerequisites(opts: PrerequisiteOptions = {}): PrerequisiteResult {
  const searchPath = opts.path ?? defaultSearchPath();
  const missing: string[] = [];
  const packages = new Set<string>();
  for (const [program, pkg] of PROGRAMS) {
    if (!findExecutable(program, searchPath)) {
      missing.push(program);
      packages.add(pkg);
    }
  }
  const cniDirs = opts.cniBinDir ? [opts.cniBinDir] : [...CNI_BIN_DIRS];
  // all plugins must come from one directory: containerd gets a single bin_dir
  const best = cniDirs
    .map((dir) => ({ dir, absent: CNI_PLUGINS.filter((p) => !isExecutable(path.join(dir, p))) }))
    .sort((a, b) => a.absent.length - b.absent.length)[0]!;
  if (best.absent.length > 0) {
    missing.push(...best.absent.map((p) => `CNI plugin ${p} (in ${cniDirs.join(' or ')})`));
    packages.add('containernetworking-plugins');
  }
  if (missing.length === 0) return { ok: true };
  const pkgs = PREREQUISITE_PACKAGES.split(' ').filter((p) => packages.has(p));
  const message =
    `k1s needs these to run pods on this machine, but they are missing: ${missing.join(', ')}.\n` +
    `Install them (Debian/Ubuntu, as root): apt-get install -y ${pkgs.join(' ')}\n` +
    `(everything k1s needs: ${INSTALL_COMMAND}; or run with --disable-agent for a control plane only)`;
  return { ok: false, missing, message };
}

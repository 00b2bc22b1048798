// What /version reports: Kubernetes 1.33, so clients (and kubectl's version dispatcher) treat k1s as a 1.33 server.
import { readFileSync } from 'node:fs';

export const kubernetesVersion = { major: '1', minor: '33', patch: '0' };

let version: string | undefined;

/** package.json's version, read once (/version and every component's user agent ask for it). */
export function k1sVersion(): string {
  return (version ??= readVersion());
}

function readVersion(): string {
  // dist/src/machinery/version.js, or the single-file bundle dist/k1s.mjs
  for (const rel of ['../../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'k1s') return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

/**
 * The user agent a Kubernetes component's client sends (`kubelet/v1.33.0 (linux/amd64) kubernetes/…`): the API server
 * names the field manager of its writes after the part before the first slash, so managedFields show kubelet,
 * kube-scheduler and kube-controller-manager as on a real cluster.
 */
export function componentUserAgent(component: string): string {
  const { major, minor, patch } = kubernetesVersion;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `${component}/v${major}.${minor}.${patch} (${process.platform}/${arch}) kubernetes/k1s-${k1sVersion()}`;
}

export function versionInfo(): Record<string, string> {
  const { major, minor, patch } = kubernetesVersion;
  return {
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Number(minor) - 1),
    gitVersion: `v${major}.${minor}.${patch}+k1s-${k1sVersion()}`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-22T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'k1s',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

// The CNI network configuration k1s owns: a bridge + host-local IPAM on the node's pod CIDR, chained with portmap for
// hostPorts. containerd's CRI plugin watches the conf dir and adds `loopback` itself. Written atomically (tmp +
// rename, the tmp name not ending in .conflist so libcni never loads a half-written file); unchanged content is left
// alone so containerd does not reload for nothing.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The conflist `name`: CNI plugins put it in iptables comments and host-local uses it as its state sub-directory. */
export const K1S_NETWORK_NAME = 'k1s-pod-network';
export const K1S_CNI_CONFIG_FILE = '10-k1s.conflist';
export const DEFAULT_BRIDGE = 'cni0';
/** The newest CNI spec version Debian's containernetworking-plugins 1.1.1 (and containerd 1.6's libcni) accept. */
export const CNI_VERSION = '1.0.0';

export interface CniConfigOptions {
  confDir: string;
  /** the node's pod CIDR, e.g. 10.42.0.0/24 */
  podCIDR: string;
  /** host-local's state directory (instead of /var/lib/cni/networks), under k1s' data dir */
  ipamDataDir: string;
  bridge?: string;
  mtu?: number;
  networkName?: string;
}

interface ParsedCidr {
  base: number;
  prefix: number;
}

function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    v = v * 256 + Number(p);
  }
  return v;
}

function formatIPv4(v: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(v / 2 ** s) % 256).join('.');
}

/** An IPv4 CIDR with its network address (host bits cleared); throws on anything else. */
export function parseCidr(cidr: string): ParsedCidr {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(cidr.trim());
  const ip = m ? parseIPv4(m[1]) : undefined;
  const prefix = m ? Number(m[2]) : NaN;
  if (ip === undefined || !(prefix >= 0 && prefix <= 32)) throw new Error(`invalid IPv4 CIDR ${JSON.stringify(cidr)}`);
  const size = 2 ** (32 - prefix);
  return { base: ip - (ip % size), prefix };
}

/** True when the IPv4 address lies inside the CIDR. */
export function cidrContains(cidr: string, ip: string): boolean {
  const { base, prefix } = parseCidr(cidr);
  const v = parseIPv4(ip);
  return v !== undefined && v >= base && v < base + 2 ** (32 - prefix);
}

/** The bridge's address: the first host address of the pod CIDR (10.42.0.0/24 → 10.42.0.1). */
export function podCidrGateway(cidr: string): string {
  const { base, prefix } = parseCidr(cidr);
  if (prefix > 30) throw new Error(`pod CIDR ${cidr} is too small for a gateway and pods`);
  return formatIPv4(base + 1);
}

/** The conflist object (pure; writeCniConfig serialises it). */
export function buildCniConfig(opts: Omit<CniConfigOptions, 'confDir'>): Record<string, unknown> {
  const { base, prefix } = parseCidr(opts.podCIDR);
  const subnet = `${formatIPv4(base)}/${prefix}`;
  const bridge: Record<string, unknown> = {
    type: 'bridge',
    bridge: opts.bridge ?? DEFAULT_BRIDGE,
    isGateway: true,
    ipMasq: true,
    hairpinMode: true,
  };
  if (opts.mtu !== undefined) bridge.mtu = opts.mtu;
  bridge.ipam = {
    type: 'host-local',
    dataDir: opts.ipamDataDir,
    ranges: [[{ subnet, gateway: podCidrGateway(subnet) }]],
    routes: [{ dst: '0.0.0.0/0' }],
  };
  return {
    cniVersion: CNI_VERSION,
    name: opts.networkName ?? K1S_NETWORK_NAME,
    plugins: [bridge, { type: 'portmap', capabilities: { portMappings: true }, snat: true }],
  };
}

/** Writes `<confDir>/10-k1s.conflist` when its content differs from what is there. */
export async function writeCniConfig(opts: CniConfigOptions): Promise<{ file: string; changed: boolean }> {
  const file = join(opts.confDir, K1S_CNI_CONFIG_FILE);
  const content = `${JSON.stringify(buildCniConfig(opts), null, 2)}\n`;
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === content) return { file, changed: false };
  await mkdir(opts.confDir, { recursive: true });
  await mkdir(opts.ipamDataDir, { recursive: true });
  const tmp = join(opts.confDir, `.${K1S_CNI_CONFIG_FILE}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, content, { mode: 0o644 });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { file, changed: true };
}

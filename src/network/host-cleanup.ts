// Removes what pods of k1s' CNI network leave on the host once none runs (after a hard kill, or on `k1s delete`):
// dangling `cni-*` network namespaces, the per-container iptables chains of the bridge (ipMasq) and portmap plugins,
// the shared CNI-HOSTPORT-* chains when nothing else uses them, host-local reservations, libcni's result cache and
// the bridge. Ownership is proven, never guessed from a prefix alone: a chain is k1s' when a rule commented with k1s'
// network name points at it or when its name is the plugins' hash of (network name, a k1s container id); a netns is
// k1s' when no process holds it and it carries an address host-local handed out for k1s. So another runtime on the
// same machine (another containerd, docker, podman) is left alone.
import { createHash } from 'node:crypto';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { DEFAULT_BRIDGE, K1S_NETWORK_NAME } from './cni-config.js';

export interface CleanupOptions {
  bridge?: string;
  ipamDataDir: string;
  networkName?: string;
  netnsDir?: string;
  /** libcni's cache (containerd writes `results/<network>-<container id>-<ifname>` there) */
  cniCacheDir?: string;
}

/** The shared chains of the portmap plugin; removed only when no other network's container still uses them. */
const HOSTPORT_DNAT = 'CNI-HOSTPORT-DNAT';
const HOSTPORT_SETMARK = 'CNI-HOSTPORT-SETMARK';
const HOSTPORT_MASQ = 'CNI-HOSTPORT-MASQ';
const HOSTPORT_CHAINS = [HOSTPORT_DNAT, HOSTPORT_SETMARK, HOSTPORT_MASQ, 'CNI-HOSTPORT-SNAT'];

/** The plugins' chain naming (pkg/utils): "CNI-" + prefix + sha512(network name + container id) in hex, 28 chars. */
export function cniChainName(networkName: string, containerID: string, prefix = ''): string {
  const hash = createHash('sha512').update(networkName + containerID).digest('hex');
  return `CNI-${prefix}${hash}`.slice(0, 28);
}

/** One `iptables -S` line split like a shell would (the comment is double-quoted with backslash escapes). */
export function splitRule(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '\\' && i + 1 < line.length) cur += line[++i];
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') {
      quoted = true;
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

export interface IptablesRule {
  chain: string;
  /** the rule's arguments after `-A <chain>` */
  args: string[];
  comment?: string;
  /** the `-j`/`-g` target */
  target?: string;
}

export interface IptablesTable {
  chains: string[];
  rules: IptablesRule[];
}

/** Parses `iptables -t <table> -S`; warning lines (`# Warning: iptables-legacy tables present`) are skipped. */
export function parseIptablesSave(text: string): IptablesTable {
  const table: IptablesTable = { chains: [], rules: [] };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const words = splitRule(line);
    if (words[0] === '-N' && words[1]) table.chains.push(words[1]);
    if (words[0] !== '-A' || !words[1]) continue;
    const args = words.slice(2);
    const rule: IptablesRule = { chain: words[1], args };
    for (let i = 0; i < args.length - 1; i++) {
      if (args[i] === '--comment') rule.comment = args[i + 1];
      if (args[i] === '-j' || args[i] === '-g') rule.target = args[i + 1];
    }
    table.rules.push(rule);
  }
  return table;
}

/** `name: "<net>" id: "<id>"` (bridge ipMasq) or `dnat name: "<net>" id: "<id>"` (portmap) → the container id. */
export function commentContainerID(comment: string | undefined, networkName: string): string | undefined {
  if (!comment) return undefined;
  const m = /(?:^|\s)name: "((?:[^"\\]|\\.)*)" id: "((?:[^"\\]|\\.)*)"/.exec(comment);
  return m && m[1] === networkName ? m[2] : undefined;
}

/** The rules to delete and chains to remove from one table, given the container ids known to be k1s'. */
export function planTableCleanup(
  table: IptablesTable,
  opts: { networkName: string; knownIDs?: Iterable<string>; keepIDs?: Set<string>; liveIPs?: Set<string> },
): { rules: IptablesRule[]; chains: string[] } {
  const { networkName } = opts;
  const keep = new Set(opts.keepIDs ?? []);
  const isOurs = (r: IptablesRule): boolean => {
    const id = commentContainerID(r.comment, networkName);
    return id !== undefined && !keep.has(id);
  };
  const ids = new Set(opts.knownIDs ?? []);
  for (const r of table.rules) {
    const id = commentContainerID(r.comment, networkName);
    if (id !== undefined) ids.add(id);
  }
  // a container whose masquerade rule names the address of a running sandbox is alive whatever host-local says
  for (const r of table.rules) {
    const id = commentContainerID(r.comment, networkName);
    const src = r.args[r.args.indexOf('-s') + 1]?.replace(/\/32$/, '');
    if (id !== undefined && r.args.includes('-s') && opts.liveIPs?.has(src)) keep.add(id);
  }
  for (const id of keep) ids.delete(id);
  const existing = new Set(table.chains);
  const ours = new Set<string>();
  for (const id of ids) {
    for (const prefix of ['', 'DN-', 'SN-']) {
      const name = cniChainName(networkName, id, prefix);
      if (existing.has(name)) ours.add(name);
    }
  }
  for (const r of table.rules) {
    if (!isOurs(r)) continue;
    if (r.target && existing.has(r.target) && r.target.startsWith('CNI-') && !HOSTPORT_CHAINS.includes(r.target)) ours.add(r.target);
  }
  // Rules inside our chains go with the chain (flush); rules elsewhere that name us or jump to us are deleted one by one.
  const rules = table.rules.filter(
    (r) => !ours.has(r.chain) && (isOurs(r) || (r.target !== undefined && ours.has(r.target))),
  );
  return { rules, chains: [...ours] };
}

/** The shared portmap chains that may go once `table` (after our own removals) holds no other network's hostPorts. */
export function unusedHostportChains(table: IptablesTable): string[] {
  const present = HOSTPORT_CHAINS.filter((c) => table.chains.includes(c));
  if (present.length === 0) return [];
  const dnatInUse = table.rules.some((r) => r.chain === HOSTPORT_DNAT);
  const setmarkInUse = table.rules.some((r) => r.target === HOSTPORT_SETMARK && !HOSTPORT_CHAINS.includes(r.chain));
  const snatInUse = table.rules.some((r) => r.chain === 'CNI-HOSTPORT-SNAT');
  if (dnatInUse || setmarkInUse || snatInUse) return [];
  return present;
}

interface Runner {
  removed: string[];
  errors: string[];
}

async function iptables(args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  // Never iptables-legacy: on these machines `iptables` is the nf_tables variant and legacy tables poison its output.
  const r = await execa('iptables', ['-w', '5', ...args], { reject: false });
  return { ok: r.exitCode === 0, stdout: String(r.stdout), stderr: String(r.stderr) };
}

async function readTable(name: string): Promise<IptablesTable | undefined> {
  const r = await iptables(['-t', name, '-S']);
  return r.ok ? parseIptablesSave(r.stdout) : undefined;
}

async function deleteRule(run: Runner, tableName: string, rule: IptablesRule): Promise<void> {
  const r = await iptables(['-t', tableName, '-D', rule.chain, ...rule.args]);
  if (r.ok) run.removed.push(`iptables -t ${tableName} rule in ${rule.chain} -> ${rule.target ?? ''} ${rule.comment ?? ''}`.trim());
  else run.errors.push(r.stderr);
}

async function removeChains(run: Runner, tableName: string, table: IptablesTable, chains: string[]): Promise<void> {
  const set = new Set(chains);
  for (const rule of table.rules) if (rule.target && set.has(rule.target) && !set.has(rule.chain)) await deleteRule(run, tableName, rule);
  for (const c of chains) await iptables(['-t', tableName, '-F', c]);
  for (const c of chains) {
    const r = await iptables(['-t', tableName, '-X', c]);
    if (r.ok) run.removed.push(`iptables -t ${tableName} chain ${c}`);
    else run.errors.push(r.stderr);
  }
}

async function cleanupIptables(run: Runner, networkName: string, ids: { gone: Set<string>; keep: Set<string>; liveIPs: Set<string> }): Promise<void> {
  for (const tableName of ['nat', 'filter']) {
    const table = await readTable(tableName);
    if (!table) continue;
    const plan = planTableCleanup(table, { networkName, knownIDs: ids.gone, keepIDs: ids.keep, liveIPs: ids.liveIPs });
    for (const rule of plan.rules) await deleteRule(run, tableName, rule);
    if (plan.chains.length > 0) {
      const after = await readTable(tableName);
      if (after) await removeChains(run, tableName, after, plan.chains);
    }
    if (tableName !== 'nat') continue;
    const now = await readTable(tableName);
    const shared = now ? unusedHostportChains(now) : [];
    if (now && shared.length > 0) await removeChains(run, tableName, now, shared);
  }
}

/** The (device, inode) of every network namespace some process is in. */
async function liveNetnsInodes(): Promise<Set<string>> {
  const out = new Set<string>();
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  await Promise.all(
    pids.map(async (pid) => {
      const st = await stat(`/proc/${pid}/ns/net`).catch(() => undefined);
      if (st) out.add(`${st.dev}:${st.ino}`);
    }),
  );
  return out;
}

async function netnsIPv4(path: string): Promise<string[]> {
  const r = await execa('nsenter', [`--net=${path}`, 'ip', '-j', '-4', 'addr', 'show'], { reject: false });
  if (r.exitCode !== 0) return [];
  try {
    const links = JSON.parse(String(r.stdout)) as Array<{ ifname?: string; addr_info?: Array<{ local?: string }> }>;
    return links.filter((l) => l.ifname !== 'lo').flatMap((l) => (l.addr_info ?? []).map((a) => a.local ?? '')).filter(Boolean);
  } catch {
    return [];
  }
}

/** host-local's state: one file per reserved IP holding "<container id>\r\n<ifname>", plus last_reserved_ip.* and lock. */
async function readReservations(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name === 'lock' || name.startsWith('last_reserved_ip')) continue;
    const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) out.set(name, text.split(/\r?\n/)[0].trim());
  }
  return out;
}

async function cleanupNetns(run: Runner, netnsDir: string, ourIPs: Set<string>): Promise<Set<string>> {
  const stillUsed = new Set<string>();
  const names = (await readdir(netnsDir).catch(() => [] as string[])).filter((n) => n.startsWith('cni-'));
  if (names.length === 0) return stillUsed;
  const live = await liveNetnsInodes();
  for (const name of names) {
    const path = join(netnsDir, name);
    const ips = await netnsIPv4(path);
    const st = await stat(path).catch(() => undefined);
    if (st && live.has(`${st.dev}:${st.ino}`)) {
      // every address of a running sandbox is kept, even one host-local no longer remembers handing out
      for (const ip of ips) stillUsed.add(ip);
      continue;
    }
    if (!ips.some((ip) => ourIPs.has(ip))) continue;
    // Lazy unmount as containerd does; the veth inside goes with the namespace.
    await execa('umount', ['-l', path], { reject: false });
    await rm(path, { force: true });
    run.removed.push(`netns ${name}`);
  }
  return stillUsed;
}

async function cleanupBridge(run: Runner, bridge: string): Promise<void> {
  const r = await execa('ip', ['-j', '-d', 'link', 'show', 'dev', bridge], { reject: false });
  if (r.exitCode !== 0) return;
  const info = JSON.parse(String(r.stdout) || '[]') as Array<{ linkinfo?: { info_kind?: string } }>;
  if (info[0]?.linkinfo?.info_kind !== 'bridge') return;
  // A port still attached means a pod (ours or someone else's on a shared bridge name) still uses it.
  const ports = await execa('ip', ['-j', 'link', 'show', 'master', bridge], { reject: false });
  if (ports.exitCode === 0 && (JSON.parse(String(ports.stdout) || '[]') as unknown[]).length > 0) return;
  const del = await execa('ip', ['link', 'del', bridge], { reject: false });
  if (del.exitCode === 0) run.removed.push(`link ${bridge}`);
  else run.errors.push(String(del.stderr));
}

async function cleanupCniCache(run: Runner, cacheDir: string, networkName: string, keepIDs: Set<string>): Promise<void> {
  const dir = join(cacheDir, 'results');
  const prefix = `${networkName}-`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    if ([...keepIDs].some((id) => rest.startsWith(`${id}-`))) continue;
    await rm(join(dir, name), { force: true });
    run.removed.push(`cni cache ${name}`);
  }
}

/**
 * Removes the leftovers of k1s' pod network from the host; returns what was removed. Call it when no pod of this
 * node runs (node start before adopting nothing, `k1s delete`); anything still in use is kept.
 */
export async function cleanupNodeNetwork(opts: CleanupOptions): Promise<string[]> {
  const networkName = opts.networkName ?? K1S_NETWORK_NAME;
  const run: Runner = { removed: [], errors: [] };
  const ipamDir = join(opts.ipamDataDir, networkName);
  const reservations = await readReservations(ipamDir);

  const stillUsed = await cleanupNetns(run, opts.netnsDir ?? '/var/run/netns', new Set(reservations.keys()));
  const keepIDs = new Set([...reservations].filter(([ip]) => stillUsed.has(ip)).map(([, id]) => id));
  const goneIDs = new Set([...reservations].filter(([ip]) => !stillUsed.has(ip)).map(([, id]) => id));

  await cleanupIptables(run, networkName, { gone: goneIDs, keep: keepIDs, liveIPs: stillUsed });
  await cleanupBridge(run, opts.bridge ?? DEFAULT_BRIDGE);

  for (const [ip] of reservations) {
    if (stillUsed.has(ip)) continue;
    await rm(join(ipamDir, ip), { force: true });
    run.removed.push(`ipam reservation ${ip}`);
  }
  if (keepIDs.size === 0 && (await stat(ipamDir).catch(() => undefined))) {
    await rm(ipamDir, { recursive: true, force: true });
    run.removed.push(`ipam state ${ipamDir}`);
  }
  await cleanupCniCache(run, opts.cniCacheDir ?? '/var/lib/cni', networkName, keepIDs);
  return run.removed;
}

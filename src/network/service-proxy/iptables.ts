// The service proxy's host side: reading k1s' chains with iptables-save, applying rules in one
// `iptables-restore --noflush` transaction, the sysctls kube-proxy sets, and removing everything (`k1s delete`).
// Only the nf_tables `iptables` tools are used: never iptables-legacy (its tables poison every later iptables call).
import { writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { jumpRules, type JumpRule } from './rules.js';

export interface SavedTable {
  chains: string[];
  /** `-A <chain> …` lines as iptables-save printed them */
  rules: string[];
}

/** Parses `iptables-save -t <table>`; comment and warning lines (`#…`) are skipped. */
export function parseSave(text: string): SavedTable {
  const out: SavedTable = { chains: [], rules: [] };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith(':')) out.chains.push(line.slice(1).split(/\s+/)[0]!);
    else if (line.startsWith('-A ')) out.rules.push(line);
  }
  return out;
}

const ruleChain = (line: string) => line.split(/\s+/)[1] ?? '';
const ruleTarget = (line: string) => /\s-[jg]\s+(\S+)/.exec(line)?.[1];

export async function iptablesSave(table: 'nat' | 'filter'): Promise<SavedTable> {
  const r = await execa('iptables-save', ['-t', table], { reject: false });
  if (r.exitCode !== 0) throw new Error(`iptables-save -t ${table}: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
  return parseSave(r.stdout);
}

export async function iptablesRestore(text: string): Promise<void> {
  const r = await execa('iptables-restore', ['-w', '5', '--noflush'], { input: text, reject: false });
  if (r.exitCode !== 0) throw new Error(`iptables-restore: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
}

export interface HostChains {
  /** chains of the prefix that exist now */
  nat: string[];
  filter: string[];
  /** jumps from built-in chains that are not there */
  missingJumps: JumpRule[];
}

const ownedBy = (prefix: string) => (chain: string) => chain.startsWith(`${prefix}-`);

/** What of k1s' chains the host has now. */
export async function readHostChains(prefix: string): Promise<HostChains> {
  const [nat, filter] = await Promise.all([iptablesSave('nat'), iptablesSave('filter')]);
  const saved = { nat, filter };
  const missingJumps = jumpRules(prefix).filter(
    (j) => !saved[j.table].rules.some((r) => ruleChain(r) === j.chain && ruleTarget(r) === j.target),
  );
  return { nat: nat.chains.filter(ownedBy(prefix)), filter: filter.chains.filter(ownedBy(prefix)), missingJumps };
}

/**
 * Removes every rule jumping into a chain of the prefix and every such chain, in one transaction per table.
 * Returns what was removed (empty when nothing was there).
 */
export async function removeProxyChains(opts: { prefix?: string } = {}): Promise<string[]> {
  const prefix = opts.prefix ?? 'K1S';
  const removed: string[] = [];
  const lines: string[] = [];
  for (const table of ['nat', 'filter'] as const) {
    const saved = await iptablesSave(table);
    const own = saved.chains.filter(ownedBy(prefix));
    const jumps = saved.rules.filter((r) => !ownedBy(prefix)(ruleChain(r)) && ownedBy(prefix)(ruleTarget(r) ?? ''));
    if (own.length === 0 && jumps.length === 0) continue;
    lines.push(`*${table}`);
    for (const ch of own) lines.push(`:${ch} - [0:0]`);
    for (const j of jumps) lines.push(`-D ${j.slice(3)}`);
    for (const ch of own) lines.push(`-X ${ch}`);
    lines.push('COMMIT');
    removed.push(...jumps.map((j) => `iptables -t ${table} ${j}`), ...own.map((ch) => `iptables -t ${table} chain ${ch}`));
  }
  if (lines.length > 0) await iptablesRestore(lines.join('\n') + '\n');
  return removed;
}

/**
 * kube-proxy's host settings: route_localnet so NodePorts answer on 127.0.0.1; bridged pod traffic must traverse
 * iptables (br_netfilter) or replies between pods on one bridge skip the DNAT. Failures are reported, not thrown.
 */
export async function ensureProxySysctls(opts: { localhostNodePorts: boolean }): Promise<string[]> {
  const problems: string[] = [];
  const set = async (path: string, value: string) => {
    try {
      await writeFile(path, value);
    } catch (e) {
      problems.push(`${path}: ${(e as Error).message}`);
    }
  };
  if (opts.localhostNodePorts) await set('/proc/sys/net/ipv4/conf/all/route_localnet', '1');
  await set('/proc/sys/net/bridge/bridge-nf-call-iptables', '1');
  return problems;
}

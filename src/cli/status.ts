// `k1s status [NAME]`: one cluster's state (running or not, pid, URL, nodes Ready, data dir, kubeconfig context).
import { HttpClient } from '../client/http.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { clusterInfo, contextName, type ClusterInfo } from './clusters.js';
import { parseClusterArgs } from './command-args.js';

export interface ClusterRow {
  name: string;
  status: 'Running' | 'Stopped' | 'Starting';
  pid?: number;
  url?: string;
  /** "2/3" Ready/total, when running */
  nodes?: string;
  dataDir: string;
  context: string;
  simulatedNodes: number;
  kubelet: boolean;
}

/** A cluster's row, asking its API for the nodes when it runs (briefly: a hung server must not hang the CLI). */
export async function describeCluster(info: ClusterInfo): Promise<ClusterRow> {
  const args = info.state?.serverArgs ?? [];
  const i = args.indexOf('--simulated-nodes');
  const row: ClusterRow = {
    name: info.paths.name,
    status: info.running ? (info.state?.url ? 'Running' : 'Starting') : 'Stopped',
    dataDir: info.paths.dir,
    context: contextName(info.paths.name),
    simulatedNodes: i >= 0 ? Number(args[i + 1]) : 0,
    kubelet: !args.includes('--disable-agent'),
  };
  if (!info.running) return row;
  row.pid = info.state?.pid;
  row.url = info.state?.url;
  if (!row.url) return row;
  let client: HttpClient | undefined;
  try {
    client = new HttpClient(loadKubeconfig(info.paths.kubeconfig), 'k1s-status');
    const list = client.resource('v1', 'nodes').list('');
    const nodes = await Promise.race([list, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000).unref())]);
    const ready = nodes.items.filter((n) =>
      ((n.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    row.nodes = `${ready}/${nodes.items.length}`;
  } catch {
    row.nodes = '?';
  } finally {
    client?.close();
  }
  return row;
}

/** Rows as a left-aligned table (kubectl's style: columns two spaces apart). */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  return [header, ...rows].map((r) => r.map((v, c) => (c === r.length - 1 ? v : (v ?? '').padEnd(widths[c] + 2))).join('').trimEnd()).join('\n');
}

const help = `Usage: k1s status [NAME] [flags]

Shows whether the cluster NAME (default "k1s") runs, its URL, pid, nodes Ready, data dir and kubeconfig context,
and warns about certificates that expired or expire within 30 days (renew them with "k1s certs rotate").
Exit code 0 when it runs, 1 when it is stopped or does not exist.

Examples:
  k1s status
  k1s status dev -o json

Flags:
  --name NAME      the cluster (same as the NAME argument)
  -o, --output F   text (default) or json
  -h, --help       show this help`;

export async function statusCommand(args: string[]): Promise<number> {
  const parsed = parseClusterArgs('status', args, { output: { type: 'string', short: 'o' } }, help);
  if ('exit' in parsed) return parsed.exit;
  const { values } = parsed;
  const r = { name: parsed.name };
  if (values.output && !['text', 'json'].includes(values.output as string)) {
    console.error('k1s status: usage: k1s status [NAME] [-o text|json]');
    return 2;
  }
  const info = clusterInfo(r.name);
  if (!info.state) {
    console.error(`no cluster named "${r.name}": create it with k1s start${r.name === 'k1s' ? '' : ` ${r.name}`}`);
    return 1;
  }
  const row = await describeCluster(info);
  // certificates that expired or expire within 30 days, with what to do
  const { expiryWarnings, readInventory } = await import('../pki/inventory.js');
  const certWarnings = expiryWarnings((await readInventory(info.paths.tls).catch(() => ({ certificates: [] }))).certificates);
  if (values.output === 'json') console.log(JSON.stringify({ ...row, certificateWarnings: certWarnings }, null, 2));
  else {
    const lines: [string, string][] = [
      ['Name', row.name],
      ['Status', row.status],
      ['PID', row.pid ? String(row.pid) : '-'],
      ['URL', row.url ?? '-'],
      ['Nodes Ready', row.nodes ?? '-'],
      ['Kubelet', row.kubelet ? 'yes' : 'no'],
      ['Simulated nodes', String(row.simulatedNodes)],
      ['Data dir', row.dataDir],
      ['Context', row.context],
    ];
    for (const [k, v] of lines) console.log(`${(k + ':').padEnd(17)}${v}`);
    for (const w of certWarnings) console.log(`Warning: ${w}`);
  }
  return row.status === 'Stopped' ? 1 : 0;
}

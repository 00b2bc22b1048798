// `k1s list`: every cluster of this user (data dirs under ~/.k1s, /var/lib/k1s as root) as a table.
import { parseArgs } from 'node:util';
import { listClusters } from './clusters.js';
import { describeCluster, formatTable } from './status.js';

const help = `Usage: k1s list [flags]

Lists the clusters (running and stopped) with their status, URL, nodes Ready and kubeconfig context.

Examples:
  k1s list
  k1s list -o json

Flags:
  -o, --output F   text (default) or json
  -h, --help       show this help`;

export async function listCommand(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, options: { output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    console.error(`k1s list: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  if (values.help) {
    console.log(help);
    return 0;
  }
  if (values.output && !['text', 'json'].includes(values.output)) {
    console.error(`k1s list: --output must be text or json, got "${values.output}"`);
    return 2;
  }
  const rows = await Promise.all(listClusters().map(describeCluster));
  if (values.output === 'json') {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (!rows.length) {
    console.log('no clusters; create one with: k1s start');
    return 0;
  }
  console.log(
    formatTable(
      ['NAME', 'STATUS', 'URL', 'NODES', 'CONTEXT', 'PID'],
      rows.map((r) => [r.name, r.status, r.url ?? '-', r.nodes ?? '-', r.context, r.pid ? String(r.pid) : '-']),
    ),
  );
  return 0;
}

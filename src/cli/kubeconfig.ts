// `k1s kubeconfig [NAME]`: prints the cluster's admin kubeconfig (or its path), for KUBECONFIG=… or CI secrets.
import { readFileSync } from 'node:fs';
import { clusterInfo } from './clusters.js';
import { parseClusterArgs } from './command-args.js';

const help = `Usage: k1s kubeconfig [NAME] [flags]

Prints the admin kubeconfig of the cluster NAME (default "k1s"). It holds the admin's private key: keep it 0600.

Examples:
  k1s kubeconfig > /tmp/k1s.yaml
  export KUBECONFIG=$(k1s kubeconfig dev --path)

Flags:
  --name NAME      the cluster (same as the NAME argument)
  --path           print the file's path instead of its content
  -h, --help       show this help`;

export async function kubeconfigCommand(args: string[]): Promise<number> {
  const parsed = parseClusterArgs('kubeconfig', args, { path: { type: 'boolean' } }, help);
  if ('exit' in parsed) return parsed.exit;
  const { values } = parsed;
  const r = { name: parsed.name };
  const { paths } = clusterInfo(r.name);
  let text: string;
  try {
    text = readFileSync(paths.kubeconfig, 'utf8');
  } catch {
    console.error(`k1s kubeconfig: cluster "${r.name}" has no kubeconfig yet: start it with k1s start${r.name === 'k1s' ? '' : ` ${r.name}`}`);
    return 1;
  }
  process.stdout.write(values.path ? `${paths.kubeconfig}\n` : text);
  return 0;
}

// `k1s kubeconfig [NAME]`: prints the cluster's admin kubeconfig (or its path), for KUBECONFIG=… or CI secrets.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { clusterInfo, resolveName } from './clusters.js';

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
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { name: { type: 'string' }, path: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    console.error(`k1s kubeconfig: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const r = resolveName(positionals[0], values.name);
  if ('error' in r || positionals.length > 1) {
    console.error(`k1s kubeconfig: ${'error' in r ? r.error : 'one cluster name at most'}`);
    return 2;
  }
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

// k1s command dispatch: one file per command.
import { nodeCommand } from './node.js';
import { serverCommand } from './server.js';

const commands: Record<string, { summary: string; run: (args: string[]) => Promise<number | void> }> = {
  server: { summary: 'run the cluster (API server, controllers, scheduler, nodes) in the foreground', run: serverCommand },
  node: { summary: 'add, remove or list simulated nodes of a running cluster', run: nodeCommand },
  image: { summary: "load, list and remove the images of a cluster's containerd", run: async (args) => (await import('./image.js')).imageCommand(args) },
  // cluster lifecycle (named clusters, see clusters.ts); loaded on use so `k1s server` does not pay for them
  start: { summary: 'start a cluster in the background and make its kubectl context current', run: async (a) => (await import('./start.js')).startCommand(a) },
  stop: { summary: 'stop a cluster, keeping its state', run: async (a) => (await import('./stop.js')).stopCommand(a) },
  delete: { summary: 'stop a cluster and remove its state and kubeconfig entries', run: async (a) => (await import('./delete.js')).deleteCommand(a) },
  status: { summary: "show a cluster's state, URL and nodes", run: async (a) => (await import('./status.js')).statusCommand(a) },
  list: { summary: 'list the clusters', run: async (a) => (await import('./list.js')).listCommand(a) },
  logs: { summary: "print (-f: follow) a cluster's server log", run: async (a) => (await import('./logs.js')).logsCommand(a) },
  kubeconfig: { summary: "print a cluster's admin kubeconfig", run: async (a) => (await import('./kubeconfig.js')).kubeconfigCommand(a) },
  kubectl: { summary: 'run kubectl against a cluster', run: async (a) => (await import('./kubectl.js')).kubectlCommand(a) },
  snapshot: { summary: "save a cluster's state to a file, or restore one as a new cluster", run: async (a) => (await import('./snapshot-command.js')).snapshotCommand(a) },
  certs: { summary: "check a cluster's certificates' expiry, or rotate them (same CA)", run: async (a) => (await import('./certs.js')).certsCommand(a) },
  'secrets-encrypt': { summary: "a cluster's Secrets encryption at rest: status, rotate the key, re-encrypt, prune old keys", run: async (a) => (await import('./secrets-encrypt.js')).secretsEncryptCommand(a) },
  agent: { summary: 'join this machine to a running k1s server as a node (token discovery, TLS bootstrapping)', run: async (a) => (await import('./agent.js')).agentCommand(a) },
  token: { summary: 'create, list or delete the bootstrap tokens nodes join with', run: async (a) => (await import('./token.js')).tokenCommand(a) },
  datastore: { summary: "copy a cluster's state between SQLite and etcd (k1s datastore migrate)", run: async (a) => (await import('./datastore.js')).datastoreCommand(a) },
  history: { summary: 'every stored revision of an object, with diffs', run: async (a) => (await import('./history.js')).historyCommand(a) },
  completion: { summary: 'print a shell completion script (bash, zsh, fish)', run: async (a) => (await import('./completion.js')).completionCommand(a, summaries()) },
  version: { summary: "print k1s' version (the Kubernetes version it serves)", run: versionCommand },
};

function summaries(): { name: string; summary: string }[] {
  return Object.entries(commands).map(([name, c]) => ({ name, summary: c.summary }));
}

const versionHelp = `Usage: k1s version

Prints the Kubernetes version k1s serves (what "kubectl version" shows as the server version).

Examples:
  k1s version
  k1s --version`;

async function versionCommand(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) {
    console.log(versionHelp);
    return 0;
  }
  if (args.length) {
    console.error(`k1s version: takes no arguments, got "${args.join(' ')}"\n\n${versionHelp}`);
    return 2;
  }
  const { versionInfo } = await import('../machinery/version.js');
  console.log(versionInfo().gitVersion);
  return 0;
}

function usage(): string {
  const lines = ['Usage: k1s <command> [flags]', '', 'Commands:'];
  const width = Math.max(12, ...Object.keys(commands).map((n) => n.length + 1));
  for (const [name, c] of Object.entries(commands)) lines.push(`  ${name.padEnd(width)} ${c.summary}`);
  lines.push(
    '',
    'Examples:',
    '  k1s start                         # a cluster with a real node (root) and its kubectl context',
    '  k1s start ci --simulated-nodes 3 --no-kubelet',
    '  k1s image load app.tar && kubectl apply -f app.yaml',
    '  k1s snapshot save golden.tar && k1s start ci-2 --from-snapshot golden.tar',
    '  k1s stop; k1s delete',
    '',
    'Exit status: 0 ok, 1 failure, 2 usage error.',
    'Run "k1s <command> --help" for the flags and examples of a command.',
  );
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0] && commands[rest[0]]) {
    // `k1s help start` is `k1s start --help`
    const code = await commands[rest[0]]!.run(['--help']);
    if (typeof code === 'number') process.exitCode = code;
    return;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return;
  }
  if (name === '--version') {
    process.exitCode = await versionCommand([]);
    return;
  }
  const cmd = commands[name];
  if (!cmd) {
    console.error(`k1s: unknown command "${name}"\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  const code = await cmd.run(rest);
  if (typeof code === 'number') process.exitCode = code;
}

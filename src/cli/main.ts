// k1s command dispatch: one file per command.
import { imageCommand } from './image.js';
import { nodeCommand } from './node.js';
import { serverCommand } from './server.js';

const commands: Record<string, { summary: string; run: (args: string[]) => Promise<number | void> }> = {
  server: { summary: 'run the cluster (API server, controllers, scheduler, nodes) in the foreground', run: serverCommand },
  node: { summary: 'add, remove or list simulated nodes of a running cluster', run: nodeCommand },
  image: { summary: "load image tarballs into the cluster's containerd and list its images", run: (args) => imageCommand(args) },
};

function usage(): string {
  const lines = ['Usage: k1s <command> [flags]', '', 'Commands:'];
  for (const [name, c] of Object.entries(commands)) lines.push(`  ${name.padEnd(12)} ${c.summary}`);
  lines.push('', 'Run "k1s <command> --help" for the flags of a command.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return;
  }
  if (name === '--version' || name === 'version') {
    const { versionInfo } = await import('../cluster/version.js');
    console.log(versionInfo().gitVersion);
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

// `k1s kubectl [NAME] -- ARGS…`: runs the kubectl on PATH against the cluster (its own kubeconfig, so the user's
// current context does not matter).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { clusterInfo, resolveName } from './clusters.js';

const help = `Usage: k1s kubectl [--name NAME | NAME --] ARGS…

Runs kubectl (from PATH, or $K1S_KUBECTL) with the admin kubeconfig of the cluster (default "k1s"). Its exit code is
kubectl's.

Examples:
  k1s kubectl get nodes
  k1s kubectl --name dev get pods -A
  k1s kubectl dev -- apply -f app.yaml`;

/** Splits `[--name N | N --] args…` into the cluster name and kubectl's arguments. */
export function splitKubectlArgs(args: string[]): { name?: string; rest: string[] } {
  if (args[0] === '--name' && args.length >= 2) return { name: args[1], rest: args.slice(2)[0] === '--' ? args.slice(3) : args.slice(2) };
  if (args[0]?.startsWith('--name=')) return { name: args[0].slice(7), rest: args.slice(1)[0] === '--' ? args.slice(2) : args.slice(1) };
  if (args[1] === '--' && !args[0].startsWith('-')) return { name: args[0], rest: args.slice(2) };
  if (args[0] === '--') return { rest: args.slice(1) };
  return { rest: args };
}

export async function kubectlCommand(args: string[]): Promise<number> {
  if (args.length === 0 || (args.length === 1 && (args[0] === '--help' || args[0] === '-h'))) {
    console.log(help);
    return args.length ? 0 : 2;
  }
  const { name, rest } = splitKubectlArgs(args);
  const r = resolveName(undefined, name);
  if ('error' in r) {
    console.error(`k1s kubectl: ${r.error}`);
    return 2;
  }
  const { paths, running } = clusterInfo(r.name);
  if (!existsSync(paths.kubeconfig)) {
    console.error(`k1s kubectl: cluster "${r.name}" does not exist: create it with k1s start${r.name === 'k1s' ? '' : ` ${r.name}`}`);
    return 1;
  }
  if (!running) console.error(`warning: cluster "${r.name}" is not running (k1s start${r.name === 'k1s' ? '' : ` ${r.name}`})`);
  const bin = process.env.K1S_KUBECTL || 'kubectl';
  return await new Promise<number>((resolve) => {
    const child = spawn(bin, rest, { stdio: 'inherit', env: { ...process.env, KUBECONFIG: paths.kubeconfig } });
    child.once('error', (e) => {
      const err = e as NodeJS.ErrnoException;
      console.error(
        err.code === 'ENOENT'
          ? `k1s kubectl: "${bin}" is not on PATH: install kubectl (https://kubernetes.io/docs/tasks/tools/) or set K1S_KUBECTL`
          : `k1s kubectl: ${err.message}`,
      );
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

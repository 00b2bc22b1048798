// `k1s server`'s flags for several servers on one etcd: --token (or K1S_TOKEN, or --token-file) names the cluster a
// server creates or joins, as k3s' --token does; --advertise-address is where the others and the `kubernetes`
// Endpoints reach it, as kube-apiserver's. Taken out of the arguments before parseArgs, as --anonymous-auth is.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

export interface ControlPlaneFlags {
  rest: string[];
  token?: string;
  advertiseAddress?: string;
}

const FLAGS = ['token', 'token-file', 'advertise-address'] as const;

/** the flags (after the value of an earlier one, the last one counts), or the usage error */
export function controlPlaneFlags(args: string[], env: NodeJS.ProcessEnv = process.env): ControlPlaneFlags | string {
  const rest: string[] = [];
  const values: Partial<Record<(typeof FLAGS)[number], string>> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--(token|token-file|advertise-address)(?:=(.*))?$/s.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const name = m[1] as (typeof FLAGS)[number];
    const value = m[2] ?? args[++i];
    if (value === undefined || value === '') return `flag needs an argument: --${name}`;
    values[name] = value;
  }
  if (values.token !== undefined && values['token-file'] !== undefined) return '--token and --token-file go alone: pass one of them';
  let token = values.token;
  if (values['token-file'] !== undefined) {
    try {
      token = readFileSync(values['token-file'], 'utf8').trim();
    } catch (e) {
      return `--token-file ${values['token-file']}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`;
    }
    if (!token) return `--token-file ${values['token-file']} is empty`;
  }
  const onEtcd = rest.some((a) => a === '--datastore-endpoint' || a.startsWith('--datastore-endpoint='));
  if (token !== undefined && !onEtcd) return `--${values.token !== undefined ? 'token' : 'token-file'} needs --datastore-endpoint: servers share a cluster through etcd (docs/ha.md)`;
  // K1S_TOKEN set for other uses does not refuse a server on SQLite
  if (token === undefined && onEtcd && env.K1S_TOKEN) token = env.K1S_TOKEN.trim() || undefined;
  const advertiseAddress = values['advertise-address'];
  if (advertiseAddress !== undefined && isIP(advertiseAddress) === 0) return `--advertise-address must be an IP address such as 192.168.1.10, got "${advertiseAddress}"`;
  if (advertiseAddress !== undefined && /^(127\.|::1$|0\.0\.0\.0$|::$)/.test(advertiseAddress)) {
    return `--advertise-address ${advertiseAddress} cannot be in the kubernetes Endpoints: give an address the other servers reach (on one machine its own, e.g. that of eth0)`;
  }
  return { rest, token, advertiseAddress };
}

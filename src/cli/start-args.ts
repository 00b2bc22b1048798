// `k1s start`'s flags: its own (name, wait, snapshot, context) and the node/network flags it passes through to
// `k1s server`. Passed-through flags are kept in the cluster's state, so a plain `k1s start NAME` resumes with them.
import { parseArgs } from 'node:util';
import { resolve as resolvePath } from 'node:path';
import { resolveName } from './clusters.js';
import { parseDuration } from './stop.js';

export const startHelp = `Usage: k1s start [NAME] [flags]

Starts the cluster NAME (default "k1s") in the background, waits until its nodes are Ready and (with a real node)
cluster DNS answers, and makes its kubectl context current (context "k1s" for the default cluster, "k1s-NAME" for
others, in $KUBECONFIG's first file or ~/.kube/config). Starting a cluster again resumes it with the same objects
and flags; starting a running cluster does nothing. Several clusters can run side by side, each with its own data
dir and port (real-node clusters also need their own --cni-bridge, --cluster-cidr and ingress ports).

Examples:
  k1s start                                  # the default cluster (a real node when run as root)
  k1s start dev --simulated-nodes 3 --no-kubelet
  k1s start ci-1 --from-snapshot golden.tar  # a new cluster with the objects of a snapshot
  k1s start --port 7443 --wait 2m
  k1s start second --cni-bridge k1s1 --cluster-cidr 10.50.0.0/16 --ingress-http-port 8080 --ingress-https-port 8443

Flags:
  --name NAME              the cluster (same as the NAME argument)
  --simulated-nodes N      register N simulated nodes (no container runtime needed)
  --no-kubelet             run no real node (API, controllers, scheduler and simulated nodes only; the default
                           when not root)
  --port P                 API server port (default: the cluster's previous port, else the first free from 6443)
  --wait D                 how long to wait for the API, the nodes and DNS (default 60s; e.g. 90s, 2m)
  --from-snapshot FILE     create the cluster from a snapshot (see k1s snapshot --help)
  --no-switch-context      merge the kubeconfig context without making it current

Flags passed to k1s server (see k1s server --help), kept for later starts:
  --cni-bridge NAME        the pod network's bridge (default cni0)
  --cni-bin-dir DIR        where the CNI plugins are (default /usr/lib/cni, else /opt/cni/bin)
  --cluster-cidr CIDR      the pod network (default 10.42.0.0/16)
  --service-cidr CIDR      the Service ClusterIP range (default 10.43.0.0/16)
  --ingress-http-port P    host port of the ingress controller (default 80)
  --ingress-https-port P   its HTTPS port (default 443)
  --kubelet-port P         the kubelet API port (default 10250)
  --node-name NAME         name of the real node (default: the host name)
  --disable-ingress        run no ingress controller
  --disable-servicelb      do not serve LoadBalancer Services on 127.0.0.1
  --registry-port P        the image registry on 127.0.0.1, containerd's mirror (default 5000; taken: a free one)
  --disable-registry       run no registry
  --audit-policy-file FILE an audit.k8s.io/v1 Policy (with --audit-log-path: audit logging)
  --audit-log-path FILE    where audit events go, as JSON lines
  --audit-log-maxsize MB   rotate the audit log at this size (default 100)
  --audit-log-maxbackup N  rotated audit logs kept (default 0: all)
  --audit-log-maxage DAYS  rotated audit logs removed after this (default 0: never)
  --audit-log-compress     gzip rotated audit logs
  --encryption-provider-config FILE  an EncryptionConfiguration: resources encrypted at rest, providers, keys
  --encryption-provider-config-automatic-reload  follow changes of that file
  --secrets-encryption     encrypt Secrets at rest with a generated key ("k1s secrets-encrypt" manages it)
  --datastore-endpoint URLS  keep the state in etcd (http(s)://host:2379, comma-separated) instead of SQLite
  --datastore-cafile FILE  the CA of etcd's serving certificates
  --datastore-certfile FILE  the client certificate k1s presents to etcd
  --datastore-keyfile FILE  its key
  --etcd-prefix PREFIX     the root of the cluster's keys in etcd (default /registry)
  -h, --help               show this help

Exit status: 0 ready (or already running), 1 failed to start (the last log lines are printed), 2 usage error.`;

/** server flags `k1s start` takes and passes on unchanged (with a value: true) */
export const PASS_THROUGH: Record<string, { value: boolean; port?: boolean; path?: boolean }> = {
  'cni-bridge': { value: true },
  'cni-bin-dir': { value: true, path: true },
  'cluster-cidr': { value: true },
  'service-cidr': { value: true },
  'ingress-http-port': { value: true, port: true },
  'ingress-https-port': { value: true, port: true },
  'kubelet-port': { value: true, port: true },
  'node-name': { value: true },
  'disable-ingress': { value: false },
  'disable-servicelb': { value: false },
  'registry-port': { value: true, port: true },
  'disable-registry': { value: false },
  'audit-policy-file': { value: true, path: true },
  'audit-log-path': { value: true, path: true },
  'audit-log-maxsize': { value: true },
  'audit-log-maxbackup': { value: true },
  'audit-log-maxage': { value: true },
  'audit-log-compress': { value: false },
  'encryption-provider-config': { value: true, path: true },
  'encryption-provider-config-automatic-reload': { value: false },
  'secrets-encryption': { value: false },
  'datastore-endpoint': { value: true },
  'datastore-cafile': { value: true, path: true },
  'datastore-certfile': { value: true, path: true },
  'datastore-keyfile': { value: true, path: true },
  'etcd-prefix': { value: true },
};

export interface StartFlags {
  name: string;
  simulatedNodes?: number;
  noKubelet: boolean;
  port?: number;
  waitMs: number;
  fromSnapshot?: string;
  switchContext: boolean;
  /** server flags given on this command line, as argv */
  passThrough: string[];
}

/** The flags, or the exit code after a usage error / --help (the message is printed). */
export function parseStartArgs(args: string[]): StartFlags | { exit: number } {
  let parsed;
  const passOptions = Object.fromEntries(Object.entries(PASS_THROUGH).map(([k, v]) => [k, { type: v.value ? ('string' as const) : ('boolean' as const) }]));
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'simulated-nodes': { type: 'string' },
        'no-kubelet': { type: 'boolean' },
        port: { type: 'string' },
        wait: { type: 'string' },
        'from-snapshot': { type: 'string' },
        'no-switch-context': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        ...passOptions,
      },
    });
  } catch (e) {
    console.error(`k1s start: ${(e as Error).message}\n\n${startHelp}`);
    return { exit: 2 };
  }
  const { positionals } = parsed;
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    console.log(startHelp);
    return { exit: 0 };
  }
  const usage = (msg: string) => {
    console.error(`k1s start: ${msg}\n\nRun "k1s start --help" for the flags.`);
    return { exit: 2 };
  };
  if (positionals.length > 1) return usage(`one cluster name at most, got ${positionals.join(' ')}`);
  const r = resolveName(positionals[0], values.name as string | undefined);
  if ('error' in r) return usage(r.error);
  const sim = values['simulated-nodes'] as string | undefined;
  const simulatedNodes = sim === undefined ? undefined : Number(sim);
  if (simulatedNodes !== undefined && (!Number.isInteger(simulatedNodes) || simulatedNodes < 0 || simulatedNodes > 10_000)) {
    return usage(`--simulated-nodes must be a whole number from 0 to 10000, got "${sim}"`);
  }
  const portText = values.port as string | undefined;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) return usage(`--port must be a port number (1-65535), got "${portText}"`);
  const waitText = (values.wait as string | undefined) ?? '60s';
  const waitMs = parseDuration(waitText);
  if (waitMs === undefined || waitMs <= 0) return usage(`--wait must be a duration such as 60s or 2m, got "${waitText}"`);
  const passThrough: string[] = [];
  for (const [flag, spec] of Object.entries(PASS_THROUGH)) {
    const v = values[flag];
    if (v === undefined || v === false) continue;
    if (spec.port) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) return usage(`--${flag} must be a port number (0-65535), got "${v}"`);
    }
    // the server runs elsewhere (a daemon, later starts): a path must not depend on this shell's cwd
    if (spec.path) {
      passThrough.push(`--${flag}`, v === '-' ? v : resolvePath(v as string));
      continue;
    }
    if (flag.endsWith('-cidr') && !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(v as string)) return usage(`--${flag} must be an IPv4 CIDR such as 10.50.0.0/16, got "${v}"`);
    passThrough.push(`--${flag}`, ...(spec.value ? [v as string] : []));
  }
  return {
    name: r.name,
    simulatedNodes,
    noKubelet: (values['no-kubelet'] as boolean | undefined) ?? false,
    port,
    waitMs,
    fromSnapshot: values['from-snapshot'] as string | undefined,
    switchContext: !values['no-switch-context'],
    passThrough,
  };
}

/** Replaces (or adds) a flag in an argv; value undefined for a boolean flag. */
export function setFlag(args: string[], flag: string, value: string | undefined): void {
  const i = args.indexOf(flag);
  if (i >= 0) args.splice(i, value === undefined ? 1 : 2);
  args.push(flag, ...(value === undefined ? [] : [value]));
}

/** The cluster-describing server flags: the previous run's, with this start's flags applied. */
export function serverArgsFor(flags: StartFlags, previous: string[], opts: { isRoot: boolean; note: (line: string) => void }): string[] {
  const args = [...previous];
  if (flags.simulatedNodes !== undefined) setFlag(args, '--simulated-nodes', String(flags.simulatedNodes));
  for (let i = 0; i < flags.passThrough.length; i++) {
    const flag = flags.passThrough[i]!;
    const spec = PASS_THROUGH[flag.slice(2)]!;
    setFlag(args, flag, spec.value ? flags.passThrough[++i] : undefined);
  }
  if ((flags.noKubelet || !opts.isRoot) && !args.includes('--disable-agent')) {
    if (!flags.noKubelet) opts.note('not running as root: starting without a real node (API, controllers, simulated nodes); run as root for real pods');
    args.push('--disable-agent');
  }
  return args;
}

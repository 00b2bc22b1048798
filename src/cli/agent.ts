// `k1s agent`: runs a node on this machine that joins a running k1s server over HTTPS (k3s' `k3s agent`, kubeadm's
// `kubeadm join`): token discovery of the CA, TLS bootstrapping of the node's client and serving certificates, then
// its own containerd, the kubelet and the node's Service proxy, NetworkPolicy and DNS. Foreground until SIGTERM.
import { mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BOOTSTRAP_TOKEN_PATTERN } from '../apiserver/auth/bootstrap-token.js';
import { kubeletMaySetLabel } from '../api/core/node/kubelet-labels.js';

export const DEFAULT_AGENT_DATA_DIR = '/var/lib/k1s-agent';

const help = `Usage: k1s agent --server https://HOST:PORT --token TOKEN [flags]

Joins this machine to a running k1s server as a node: checks the server's CA with the token (the signed
kube-public/cluster-info, as kubeadm join does), gets the node's client certificate by a CSR filed with the token
and its kubelet serving certificate by a CSR filed as the node, then runs containerd, the kubelet and the node's
Service proxy, NetworkPolicy and DNS. A restart with the credential in the data dir does not need the token.

Examples:
  k1s agent --server https://10.0.0.1:6443 --token "$(ssh server cat /var/lib/k1s/token)"
  k1s agent --server https://10.0.0.1:6443 --token abcdef.0123456789abcdef --node-ip 10.0.0.2 --node-labels disk=ssd

Flags:
  --server URL              the k1s server's API (https://HOST:PORT), reachable from this machine (required)
  --token TOKEN             a bootstrap token (<id>.<secret>: the server's DATA-DIR/token or k1s token create)
  --token-file FILE         read the token from FILE instead
  --ca-cert-hash sha256:H   also pin the server's CA by its public key hash (kubeadm's --discovery-token-ca-cert-hash)
  --data-dir DIR            the node's state: credentials, containerd, pods (default ${DEFAULT_AGENT_DATA_DIR})
  --node-name NAME          the Node's name (default: the host name, lower-cased)
  --node-ip IP              the Node's InternalIP: where the server reaches the kubelet (default: the default route's)
  --node-labels K=V,…       labels the Node registers with (not the kubernetes.io ones NodeRestriction keeps)
  --kubelet-port PORT       the kubelet API's port (default 10250)
  --cni-bridge NAME         the pod network's bridge (default cni0)
  -h, --help                show this help

Exit status: 0 stopped by a signal, 1 failed to join or start, 2 usage error.`;

function usageError(msg: string): number {
  console.error(`k1s agent: ${msg}\nRun "k1s agent --help" for the flags.`);
  return 2;
}

/** `k=v,k2=v2` → labels; a message when one is malformed or one a kubelet may not set */
export function parseNodeLabels(s: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const part of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) return `--node-labels ${part}: not KEY=VALUE`;
    const key = part.slice(0, eq);
    if (!kubeletMaySetLabel(key)) return `--node-labels ${key}: a node may not set this label itself (NodeRestriction); set it from the server with kubectl label node`;
    out[key] = part.slice(eq + 1);
  }
  return out;
}

export async function agentCommand(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        server: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'ca-cert-hash': { type: 'string' },
        'data-dir': { type: 'string' },
        'node-name': { type: 'string' },
        'node-ip': { type: 'string' },
        'node-labels': { type: 'string' },
        'kubelet-port': { type: 'string' },
        'cni-bridge': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    console.log(help);
    return 0;
  }
  const server = values.server;
  if (!server) return usageError('--server is required (the k1s server URL, e.g. https://10.0.0.1:6443)');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return usageError(`--server ${server}: not a URL (e.g. https://10.0.0.1:6443)`);
  }
  if (url.protocol !== 'https:') return usageError(`--server ${server}: must be https://`);
  let token = values.token;
  if (values['token-file']) {
    try {
      token = readFileSync(values['token-file'], 'utf8').trim();
    } catch (e) {
      return usageError(`--token-file ${values['token-file']}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
  }
  if (token !== undefined && !BOOTSTRAP_TOKEN_PATTERN.test(token)) return usageError('--token: not a bootstrap token (<6 of a-z0-9>.<16 of a-z0-9>, e.g. from the server\'s DATA-DIR/token)');
  const caCertHash = values['ca-cert-hash'];
  if (caCertHash !== undefined && !/^sha256:[0-9a-fA-F]{64}$/.test(caCertHash)) return usageError(`--ca-cert-hash ${caCertHash}: not sha256:<64 hex digits>`);
  if (values['node-ip'] !== undefined && !isIP(values['node-ip'])) return usageError(`--node-ip ${values['node-ip']}: not an IP address`);
  const labels = values['node-labels'] === undefined ? {} : parseNodeLabels(values['node-labels']);
  if (typeof labels === 'string') return usageError(labels);
  const kubeletPort = values['kubelet-port'] === undefined ? undefined : Number(values['kubelet-port']);
  if (kubeletPort !== undefined && !(Number.isInteger(kubeletPort) && kubeletPort > 0 && kubeletPort < 65536)) return usageError(`--kubelet-port ${values['kubelet-port']}: not a port`);
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const dataDir = resolve(values['data-dir'] ?? DEFAULT_AGENT_DATA_DIR);
  const log = (l: string) => console.error(l);

  let signalled: string | undefined;
  let onSignal: ((sig: string) => void) | undefined;
  const onTerm = () => (onSignal ? onSignal('SIGTERM') : (signalled ??= 'SIGTERM'));
  const onInt = () => (onSignal ? onSignal('SIGINT') : (signalled ??= 'SIGINT'));
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  const off = () => {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  };
  const { startJoinedNode } = await import('../kubelet/node/joined-node.js');
  const { JoinError } = await import('../kubelet/node/discovery.js');
  let node: Awaited<ReturnType<typeof startJoinedNode>>;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const { internalIPv4 } = await import('../kubelet/node/machine-info.js');
    const nodeIP = values['node-ip'] ?? (await internalIPv4());
    if (!nodeIP) {
      off();
      return usageError('this machine has no IPv4 address to register: give --node-ip');
    }
    node = await startJoinedNode({ server: url.origin, token, caCertHash, nodeName, nodeIP, dataDir, labels, kubeletPort, bridge: values['cni-bridge'], log });
  } catch (e) {
    off();
    const err = e as Error;
    if (err instanceof JoinError) console.error(`k1s agent: refused to join: ${err.message}`);
    else console.error(`k1s agent: failed to start: ${err.message}`);
    return 1;
  }
  const t0 = performance.now();
  if (await node.ready()) log(`k1s agent: node ${nodeName} Ready (${Math.round(performance.now() - t0)} ms after start-up)`);
  else log(`k1s agent: node ${nodeName} is not Ready after 60 s; see kubectl describe node ${nodeName} on the server`);
  await new Promise<void>((done) => {
    onSignal = (sig: string) => {
      console.error(`k1s agent: ${sig} received, stopping (pods keep running)`);
      off();
      done();
    };
    if (signalled) onSignal(signalled);
  });
  await node.stop();
  console.error('k1s agent: stopped');
  return 0;
}

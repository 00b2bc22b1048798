// `k1s server`: runs the cluster in the foreground until SIGTERM/SIGINT.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Cluster } from '../cluster/cluster.js';
import { parseAuthorizationModes } from '../cluster/authorizers.js';
import { Quantity } from '../machinery/quantity.js';
import { parseCIDR } from '../api/core/service/net.js';
import { loadAdmissionConfiguration, type PodSecurityConfig } from '../apiserver/admission/pod-security/config.js';
import { loadAuditPolicy, validateAuditOptions, type AuditOptions } from '../apiserver/audit/options.js';
import { loadEncryptionConfig } from '../apiserver/encryption/config.js';
import { goParseBool } from '../apiserver/handlers/query-params.js';
import { datastoreFlags } from './datastore-flags.js';
import { controlPlaneFlags } from './control-plane-flags.js';
import { StartRefused } from '../cluster/start-refused.js';

const help = `Usage: k1s server [flags]

Runs the cluster in the foreground: API server, controllers, scheduler and (unless --disable-agent) the node:
containerd, the kubelet, LoadBalancer Services on 127.0.0.1 and the ingress controller. Real pods need root and
containerd, runc, the CNI plugins and iptables (apt-get install -y containerd runc containernetworking-plugins iptables).

Examples:
  sudo k1s server                                  # a real node as root: API on https://127.0.0.1:6443
  k1s server --disable-agent --simulated-nodes 3   # no root, no containerd: API, controllers, 3 simulated nodes
  k1s server --data-dir /tmp/k1s --https-listen-port 0 --write-kubeconfig /tmp/k1s/kubeconfig
  sudo k1s server --cni-bin-dir /opt/cni/bin       # CNI plugins installed somewhere else
  sudo k1s server --bind-address 10.0.0.1          # then on another machine, to join it as a node (docs/agent.md):
                                                   #   k1s agent --server https://10.0.0.1:6443 --token TOKEN
                                                   #   (TOKEN: this server's DIR/token, or k1s token create)

Certificates live in DIR/tls; "k1s certs check" lists them, "k1s certs rotate" renews them while the server runs
(it serves the new ones without a restart; SIGHUP makes it re-read them at once).

Flags:
  --data-dir DIR             where state, certificates and keys live (default ~/.k1s, /var/lib/k1s as root)
  --https-listen-port PORT   HTTPS port of the API server (default 6443)
  --bind-address ADDR        address to listen on (default 127.0.0.1)
  --write-kubeconfig FILE    write an admin kubeconfig (mode 0600) for this cluster to FILE
  --disable-agent            do not run the embedded kubelet (API, controllers and simulated nodes only)
  --node-name NAME           name of this node (default: the host name)
  --container-runtime-endpoint URL  use this CRI socket (unix:///…) instead of starting k1s' own containerd
  --pause-image REF          sandbox image (default k1s.local/pause:3.10, imported from dist/images/pause.tar)
  --kubelet-port PORT        the kubelet API port (default 10250; a free port when it is taken)
  --cni-bridge NAME          the pod network's bridge (default cni0; clusters side by side need their own, with
                             their own --cluster-cidr)
  --cni-bin-dir DIR          where k1s' containerd finds the CNI plugins (default /usr/lib/cni, else /opt/cni/bin;
                             an existing runtime from --container-runtime-endpoint keeps its own setting)
  --ingress-http-port PORT   host port of the built-in ingress controller (default 80)
  --ingress-https-port PORT  its HTTPS port (default 443)
  --disable-ingress          do not run the built-in ingress controller
  --disable-servicelb        do not serve LoadBalancer Services on 127.0.0.1
  --registry-port PORT       the image registry on 127.0.0.1 over the node's containerd, its mirror of docker.io,
                             registry.k8s.io, quay.io and ghcr.io (default 5000; a free port when it is taken;
                             0: any free port)
  --disable-registry         run no registry (pulls of images with no registry reachable then fail)
  --authorization-mode MODES ordered, comma-separated: Node (kubelets reach only what their node's pods use), RBAC
                             (Roles, ClusterRoles and their bindings decide; system:masters may do everything),
                             AlwaysAllow (every authenticated request is allowed); default Node,RBAC
  --anonymous-auth=BOOL      requests without credentials run as system:anonymous in system:unauthenticated and
                             are authorized as any other (RBAC lets them read /healthz, /livez, /readyz and
                             /version); false: they get 401 (default true, as kube-apiserver)
  --disable-controller-manager  run without controllers (objects are only stored)
  --disable-scheduler        run without the scheduler (pods stay unbound unless spec.nodeName is set)
  --disable-metrics          record no metrics and serve no /metrics (on by default)
  --cluster-cidr CIDR        the pod network nodes get /24s from (default 10.42.0.0/16)
  --service-cidr CIDR        the Service cluster-IP range (default 10.43.0.0/16; its 1st address is the kubernetes
                             Service, its 10th kube-dns); clusters side by side on one machine need their own
  --admission-control-config-file FILE  an apiserver.config.k8s.io/v1 AdmissionConfiguration; its PodSecurity
                             entry sets the Pod Security defaults and exemptions (default: privileged everywhere)
  --audit-policy-file FILE   an audit.k8s.io/v1 Policy: which requests are audited, at which level (None,
                             Metadata, Request, RequestResponse); needs --audit-log-path
  --audit-log-path FILE      write audit events there as JSON lines ("-": stdout); off by default
  --audit-log-maxsize MB     rotate the audit log at this size (default 100)
  --audit-log-maxbackup N    keep at most N rotated audit logs (default 0: all)
  --audit-log-maxage DAYS    remove rotated audit logs older than this (default 0: never)
  --audit-log-compress       gzip rotated audit logs
  --encryption-provider-config FILE  an apiserver.config.k8s.io/v1 EncryptionConfiguration: which resources are
                             encrypted at rest, with which providers (aescbc, aesgcm, secretbox, identity) and keys;
                             the first provider writes, all read (see docs/security-encryption.md)
  --encryption-provider-config-automatic-reload  re-read that file when it changes (SIGHUP: at once)
  --secrets-encryption       encrypt Secrets at rest with a key k1s generates in DIR/cred (aescbc); manage it with
                             "k1s secrets-encrypt status|rotate|reencrypt|prune"
  --datastore-endpoint URLS  keep the cluster's state in etcd instead of SQLite in DIR/db: http(s)://host:port,
                             comma-separated for the members of an etcd cluster (calls move to the next one when
                             one is down; see docs/etcd.md)
  --datastore-cafile FILE    the CA that signed the etcd members' serving certificates (https endpoints)
  --datastore-certfile FILE  the client certificate k1s presents to etcd
  --datastore-keyfile FILE   its key
  --etcd-prefix PREFIX       the root of k1s' keys in etcd (default /registry, as kube-apiserver)
  --token SECRET             with --datastore-endpoint: the cluster's secret (also K1S_TOKEN); the first server
                             saves the CA and keys in etcd encrypted with it, servers started later with the same
                             token join as further control-plane members (see docs/ha.md); kept in DIR/cred/token
  --token-file FILE          read the token from FILE
  --advertise-address IP     where other servers and the kubernetes Endpoints reach this one (default: the bind
                             address unless 0.0.0.0 or 127.0.0.1, else the first non-internal IPv4 address)
  --simulated-nodes N        register N simulated nodes k1s-sim-0… (no container runtime needed; default 0)
  --simulated-node-cpu N     CPU capacity of each simulated node (default 32)
  --simulated-node-memory Q  memory capacity of each simulated node (default 256Gi)
  --simulated-node-pods N    pod capacity of each simulated node (default 110)
  -h, --help                 show this help`;

export function defaultDataDir(): string {
  return process.getuid?.() === 0 ? '/var/lib/k1s' : join(homedir(), '.k1s');
}

/** the --audit-* flags, or the usage error */
function auditFlags(values: Record<string, string | boolean | undefined>): AuditOptions | string {
  const ints: Record<string, number | undefined> = {};
  for (const flag of ['audit-log-maxsize', 'audit-log-maxbackup', 'audit-log-maxage']) {
    const v = values[flag] as string | undefined;
    if (v === undefined) continue;
    if (!/^-?\d+$/.test(v)) return `invalid argument ${JSON.stringify(v)} for "--${flag}" flag: must be a whole number`;
    ints[flag] = Number(v);
  }
  const path = values['audit-log-path'] as string | undefined;
  const policy = values['audit-policy-file'] as string | undefined;
  const o: AuditOptions = {
    policyFile: policy === undefined ? undefined : resolve(policy),
    logPath: path === undefined || path === '-' ? path : resolve(path),
    maxSizeMB: ints['audit-log-maxsize'],
    maxBackups: ints['audit-log-maxbackup'],
    maxAgeDays: ints['audit-log-maxage'],
    compress: values['audit-log-compress'] as boolean | undefined,
  };
  const errs = validateAuditOptions(o);
  if (errs.length) return errs.join('; ');
  try {
    if (o.policyFile) o.policy = loadAuditPolicy(o.policyFile, (l) => console.error(l));
  } catch (e) {
    return (e as Error).message;
  }
  return o;
}

/**
 * --anonymous-auth as pflag reads a bool: alone (true) or with `=value` (strconv.ParseBool); taken out of the
 * arguments before parseArgs, whose boolean options take no value.
 */
function anonymousAuthFlag(args: string[]): { rest: string[]; value?: boolean } | string {
  let value: boolean | undefined;
  const rest: string[] = [];
  for (const a of args) {
    const m = /^--anonymous-auth(?:=(.*))?$/s.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const b = m[1] === undefined ? true : goParseBool(m[1]);
    if (b === undefined) return `invalid argument ${JSON.stringify(m[1])} for "--anonymous-auth" flag: strconv.ParseBool: parsing ${JSON.stringify(m[1])}: invalid syntax`;
    value = b;
  }
  return { rest, value };
}

export async function serverCommand(argv: string[]): Promise<number> {
  const anonymous = anonymousAuthFlag(argv);
  if (typeof anonymous === 'string') {
    console.error(`k1s server: ${anonymous}`);
    return 2;
  }
  const controlPlane = controlPlaneFlags(anonymous.rest);
  if (typeof controlPlane === 'string') {
    console.error(`k1s server: ${controlPlane}`);
    return 2;
  }
  const args = controlPlane.rest;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'data-dir': { type: 'string' },
        'https-listen-port': { type: 'string' },
        'bind-address': { type: 'string' },
        'write-kubeconfig': { type: 'string' },
        'disable-agent': { type: 'boolean' },
        'node-name': { type: 'string' },
        'container-runtime-endpoint': { type: 'string' },
        'pause-image': { type: 'string' },
        'kubelet-port': { type: 'string' },
        'cni-bridge': { type: 'string' },
        'cni-bin-dir': { type: 'string' },
        'service-cidr': { type: 'string' },
        'ingress-http-port': { type: 'string' },
        'ingress-https-port': { type: 'string' },
        'disable-ingress': { type: 'boolean' },
        'disable-servicelb': { type: 'boolean' },
        'registry-port': { type: 'string' },
        'disable-registry': { type: 'boolean' },
        'simulated-nodes': { type: 'string' },
        'disable-controller-manager': { type: 'boolean' },
        'authorization-mode': { type: 'string' },
        'disable-scheduler': { type: 'boolean' },
        'disable-metrics': { type: 'boolean' },
        'cluster-cidr': { type: 'string' },
        'simulated-node-cpu': { type: 'string' },
        'simulated-node-memory': { type: 'string' },
        'simulated-node-pods': { type: 'string' },
        'admission-control-config-file': { type: 'string' },
        'audit-policy-file': { type: 'string' },
        'audit-log-path': { type: 'string' },
        'audit-log-maxsize': { type: 'string' },
        'audit-log-maxbackup': { type: 'string' },
        'audit-log-maxage': { type: 'string' },
        'audit-log-compress': { type: 'boolean' },
        'encryption-provider-config': { type: 'string' },
        'encryption-provider-config-automatic-reload': { type: 'boolean' },
        'secrets-encryption': { type: 'boolean' },
        'datastore-endpoint': { type: 'string' },
        'datastore-cafile': { type: 'string' },
        'datastore-certfile': { type: 'string' },
        'datastore-keyfile': { type: 'string' },
        'etcd-prefix': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`k1s server: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  if (values.help) {
    console.log(help);
    return 0;
  }
  const port = Number(values['https-listen-port'] ?? '6443');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`k1s server: --https-listen-port must be a port number (0-65535), got "${values['https-listen-port']}"`);
    return 2;
  }
  const ports: Record<string, number | undefined> = {};
  for (const flag of ['kubelet-port', 'ingress-http-port', 'ingress-https-port', 'registry-port'] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      console.error(`k1s server: --${flag} must be a port number (0-65535), got "${v}"`);
      return 2;
    }
    ports[flag] = n;
  }
  const serviceCIDR = values['service-cidr'];
  if (serviceCIDR !== undefined && !parseCIDR(serviceCIDR)) {
    console.error(`k1s server: --service-cidr must be a CIDR such as 10.43.0.0/16, got "${serviceCIDR}"`);
    return 2;
  }
  const simCount = Number(values['simulated-nodes'] ?? '0');
  if (!Number.isInteger(simCount) || simCount < 0 || simCount > 10_000) {
    console.error(`k1s server: --simulated-nodes must be a whole number from 0 to 10000, got "${values['simulated-nodes']}"`);
    return 2;
  }
  const mode = values['authorization-mode'];
  const modes = mode === undefined ? undefined : parseAuthorizationModes(mode);
  if (typeof modes === 'string') {
    console.error(`k1s server: --${modes}`);
    return 2;
  }
  for (const flag of ['simulated-node-cpu', 'simulated-node-memory', 'simulated-node-pods'] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    try {
      if (Quantity.parse(v).sign() <= 0) throw new Error('not positive');
    } catch {
      console.error(`k1s server: --${flag} must be a positive quantity such as 32, 500m or 256Gi, got "${v}"`);
      return 2;
    }
  }
  let podSecurity: PodSecurityConfig | undefined;
  const admissionConfig = values['admission-control-config-file'];
  if (admissionConfig !== undefined) {
    try {
      podSecurity = loadAdmissionConfiguration(resolve(admissionConfig));
    } catch (e) {
      console.error(`k1s server: --admission-control-config-file: ${(e as Error).message}`);
      return 2;
    }
  }
  const audit = auditFlags(values);
  if (typeof audit === 'string') {
    console.error(`k1s server: ${audit}`);
    return 2;
  }
  const providerConfig = values['encryption-provider-config'];
  if (values['encryption-provider-config-automatic-reload'] && providerConfig === undefined) {
    console.error('k1s server: --encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    return 2;
  }
  if (values['secrets-encryption'] && providerConfig !== undefined) {
    console.error('k1s server: --secrets-encryption makes its own encryption configuration (DATA-DIR/cred): leave out --encryption-provider-config, or --secrets-encryption');
    return 2;
  }
  if (providerConfig !== undefined) {
    try {
      loadEncryptionConfig(resolve(providerConfig));
    } catch (e) {
      console.error(`k1s server: --encryption-provider-config ${providerConfig}: ${(e as Error).message}`);
      return 1;
    }
  }
  const datastore = datastoreFlags(values);
  if (typeof datastore === 'string') {
    console.error(`k1s server: ${datastore}`);
    return 2;
  }
  // a SIGTERM/SIGINT during start-up (the node agent spawns containerd) is held until start-up ends, so k1s
  // always stops what it started instead of dying with containerd orphaned
  let signalled: string | undefined;
  let onSignal: ((sig: string) => void) | undefined;
  const onTerm = () => (onSignal ? onSignal('SIGTERM') : (signalled ??= 'SIGTERM'));
  const onInt = () => (onSignal ? onSignal('SIGINT') : (signalled ??= 'SIGINT'));
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  let cluster: Cluster;
  try {
    cluster = await Cluster.start({
      dataDir: values['data-dir'] ?? defaultDataDir(),
      port,
      bindAddress: values['bind-address'] ?? '127.0.0.1',
      writeKubeconfig: values['write-kubeconfig'],
      disableAgent: values['disable-agent'] ?? false,
      agent: {
        nodeName: values['node-name'],
        containerRuntimeEndpoint: values['container-runtime-endpoint'],
        pauseImage: values['pause-image'],
        kubeletPort: ports['kubelet-port'],
        bridge: values['cni-bridge'],
        cniBinDir: values['cni-bin-dir'] === undefined ? undefined : resolve(values['cni-bin-dir']),
      },
      network: {
        ingressHttpPort: ports['ingress-http-port'],
        ingressHttpsPort: ports['ingress-https-port'],
        disableIngress: values['disable-ingress'] ?? false,
        disableServiceLB: values['disable-servicelb'] ?? false,
      },
      registry: { port: ports['registry-port'], disable: values['disable-registry'] ?? false },
      disableControllerManager: values['disable-controller-manager'] ?? false,
      authorizationMode: values['authorization-mode'],
      anonymousAuth: anonymous.value,
      disableScheduler: values['disable-scheduler'] ?? false,
      disableMetrics: values['disable-metrics'] ?? false,
      clusterCIDR: values['cluster-cidr'],
      serviceCIDR: values['service-cidr'],
      podSecurity,
      audit,
      encryption: {
        providerConfig: providerConfig === undefined ? undefined : resolve(providerConfig),
        automaticReload: values['encryption-provider-config-automatic-reload'] ?? false,
        secretsEncryption: values['secrets-encryption'] ?? false,
      },
      datastore,
      token: controlPlane.token,
      advertiseAddress: controlPlane.advertiseAddress,
      simulatedNodes: {
        count: simCount,
        cpu: values['simulated-node-cpu'],
        memory: values['simulated-node-memory'],
        pods: values['simulated-node-pods'],
      },
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err instanceof StartRefused) console.error(`k1s server: ${err.message}`);
    else if (err.code === 'EADDRINUSE') console.error(`k1s server: port ${port} is in use: stop what uses it or pick another with --https-listen-port`);
    else console.error(`k1s server: failed to start: ${err.stack ?? err.message}`);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    return 1;
  }
  // SIGHUP: re-read rotated certificates now, and a followed encryption configuration (they are also picked up by watching the tls dir)
  const onHup = () => {
    void cluster.certificates?.reload();
    if (cluster.encryption?.automaticReload) cluster.encryption.reload();
  };
  process.on('SIGHUP', onHup);
  await new Promise<void>((resolve) => {
    onSignal = (sig: string) => {
      process.off('SIGHUP', onHup);
      console.error(`k1s: ${sig} received, shutting down`);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      resolve();
    };
    if (signalled) onSignal(signalled);
  });
  await cluster.stop();
  console.error('k1s: stopped');
  return 0;
}

// One k1s cluster instance: storage, API server and control loops, with everything it owns (no globals, so
// several clusters can run in one process).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { HealthChecks } from '../apiserver/health.js';
import { buildApiServer } from '../apiserver/server.js';
import { LocalClient } from '../client/local.js';
import { SIMULATED_ANNOTATION } from '../kubelet/simulated/nodes.js';
import type { NodeAgent } from '../kubelet/node/agent.js';
import type { PkiFiles } from '../pki/pki.js';
import { kubeconfigYaml, writeKubeconfig } from '../pki/kubeconfig.js';
import { Compactor } from '../storage/compactor.js';
import { ServiceAccountTokens } from '../pki/service-account-tokens.js';
import { componentUserAgent, versionInfo } from '../machinery/version.js';
import { issueKubeletClientCert } from '../apiserver/streams/kubelet-connection.js';
import { buildClusterApi, bootstrapClusterObjects } from './api.js';
import { ensureJoinToken } from './join-token.js';
import { publishClusterInfo } from './cluster-info.js';
import { RealUsageStore } from '../api/metrics/real-usage.js';
import { KubeletMetricsScraper } from '../controllers/metrics-server/scraper.js';
import type { Registry } from '../apiserver/registry/registry.js';
import { bigIntToIp, parseCIDR } from '../api/core/service/net.js';
import { servePodFacingApi } from '../controllers/kubernetes-endpoints.js';
import { buildAuthorizer } from './authorizers.js';
import { ensureNodeCredential, nodeUser } from '../pki/node-credential.js';
import { hostname } from 'node:os';
import type { Containerd } from '../runtime/containerd.js';
import { extensionAuthenticationConfigMap } from '../apiserver/aggregator/authentication-configmap.js';
import type { PodSecurityConfig } from '../apiserver/admission/pod-security/config.js';
import type { Server as TlsServer } from 'node:tls';
import { CertificateReloader } from './cert-reload.js';
import { createAuditor, type AuditOptions } from '../apiserver/audit/options.js';
import { Encryption, type EncryptionOptions } from './encryption.js';
import { openDatastore, type DatastoreOptions } from './datastore.js';
import type { Store } from '../storage/types.js';
import { Metrics } from '../metrics/metrics.js';
import { instrumentStore } from '../storage/instrumented.js';
import { clusterPki } from './cluster-pki.js';
import { startControlPlane } from './control-plane.js';
import { defaultAdvertiseAddress, publishApiServer } from './control-plane-peers.js';

export interface ClusterOptions {
  dataDir: string;
  port: number;
  bindAddress: string;
  writeKubeconfig?: string;
  disableAgent?: boolean;
  log?: (line: string) => void;
  /** storage durability (default full) */
  durability?: 'full' | 'normal';
  /** the Service cluster-IP range (default 10.43.0.0/16) */
  serviceCIDR?: string;
  /** kube-apiserver's --authorization-mode: an ordered, comma-separated list of Node, RBAC and AlwaysAllow
   *  (default Node,RBAC) */
  authorizationMode?: string;
  /** kube-apiserver's --anonymous-auth (default true): requests without credentials are system:anonymous */
  anonymousAuth?: boolean;
  /** simulated nodes registered at start (capacity strings as Kubernetes quantities) */
  simulatedNodes?: { count: number; cpu?: string; memory?: string; pods?: string };
  /** run without the controller manager / the scheduler (API-only use, as k3s' --disable-* flags) */
  disableControllerManager?: boolean;
  disableScheduler?: boolean;
  /** the pod network (default 10.42.0.0/16) */
  clusterCIDR?: string;
  /** watch bookmark period (default 60 s) */
  bookmarkIntervalMs?: number;
  /** run the real node (containerd + kubelet) in this process; ignored with disableAgent. In-process users that
   *  leave it out get a control plane only. */
  agent?: { nodeName?: string; containerRuntimeEndpoint?: string; pauseImage?: string; imagesDir?: string; kubeletPort?: number; bridge?: string; cniBinDir?: string };
  /** with the agent: the built-in ingress controller's host ports (default 80/443; taken ports are reported, not
   *  fatal) and switches for it and the LoadBalancer Services on 127.0.0.1 */
  network?: { ingressHttpPort?: number; ingressHttpsPort?: number; disableIngress?: boolean; disableServiceLB?: boolean };
  /** the PodSecurity admission plugin's configuration (--admission-control-config-file) */
  podSecurity?: PodSecurityConfig;
  /** audit logging (--audit-policy-file, --audit-log-*); off without a policy and a log path */
  audit?: AuditOptions;
  /** encryption at rest (--encryption-provider-config, --secrets-encryption) */
  encryption?: EncryptionOptions;
  /** keep the state in etcd instead of SQLite in the data directory (--datastore-endpoint) */
  datastore?: DatastoreOptions;
  /** with a datastore: the cluster's token; servers with the same one share the CA and keys (docs/ha.md) */
  token?: string;
  /** the address other servers and pods reach this one at (--advertise-address; default in control-plane-peers.ts) */
  advertiseAddress?: string;
  /** record nothing and serve no /metrics (--disable-metrics; the bench compares both) */
  disableMetrics?: boolean;
  /** with k1s' own containerd: the registry on 127.0.0.1 over its image store, containerd's mirror of the public
   *  registries (port default 5000, a free one when taken; 0: any free port) */
  registry?: { port?: number; disable?: boolean };
}

export class Cluster {
  /** the real node, when this process runs one */
  agent?: NodeAgent;
  /** the port of the registry on 127.0.0.1, when it runs */
  registryPort?: number;
  /** re-reads rotated certificates (SIGHUP calls its reload()) */
  certificates?: CertificateReloader;
  /** encryption at rest, when configured (SIGHUP re-reads its file when it is followed) */
  encryption?: Encryption;

  private constructor(
    readonly opts: ClusterOptions,
    readonly store: Store,
    readonly registry: Registry,
    readonly app: FastifyInstance,
    readonly pki: PkiFiles,
    readonly url: string,
    readonly client: LocalClient,
    private readonly stoppers: (() => Promise<void> | void)[],
  ) {}

  static async start(opts: ClusterOptions): Promise<Cluster> {
    // k1s' own containerd is another process: it starts (and imports the pause image) on the other core while this
    // one creates certificates, opens the store and starts the API server; the node agent takes it over
    let ownContainerd: Promise<Containerd> | undefined;
    if (opts.agent && !opts.disableAgent && !opts.agent.containerRuntimeEndpoint) {
      mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
      const { startOwnContainerd } = await import('../kubelet/node/own-containerd.js');
      ownContainerd = startOwnContainerd({ ...opts.agent, dataDir: opts.dataDir, log: opts.log ?? ((l: string) => console.error(l)) });
      ownContainerd.catch(() => undefined); // the agent awaits it and reports the failure
    }
    try {
      return await Cluster.startWith(opts, ownContainerd);
    } catch (e) {
      // nothing took it over (or the agent failed and stopped it already: stopping twice is harmless)
      await ownContainerd?.then((c) => c.stop()).catch(() => undefined);
      throw e;
    }
  }

  private static async startWith(opts: ClusterOptions, ownContainerd: Promise<Containerd> | undefined): Promise<Cluster> {
    const log = opts.log ?? ((l: string) => console.error(l));
    const t0 = performance.now();
    const phase = (name: string) => log(`k1s: ${name} (${Math.round(performance.now() - t0)} ms)`);
    // first: a bad policy file fails start-up before anything is created
    const audit = opts.audit ? createAuditor(opts.audit, log) : undefined;
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });

    // on etcd others may share the store: they are told where this server is (its identity Lease)
    const advertise = opts.advertiseAddress ?? (opts.datastore ? defaultAdvertiseAddress(opts.bindAddress) : undefined);
    const { pki, frontProxy } = await clusterPki({
      dataDir: opts.dataDir, bindAddress: opts.bindAddress, advertiseAddress: advertise, serviceIP: serviceIPAt(opts.serviceCIDR ?? DEFAULT_SERVICE_CIDR, 1),
      datastore: opts.datastore, token: opts.token, secretsEncryption: opts.encryption?.secretsEncryption, log,
    });
    phase(pki.written.length ? `certificates created in ${pki.dir}` : `certificates loaded from ${pki.dir}`);

    mkdirSync(join(opts.dataDir, 'db'), { recursive: true, mode: 0o700 });
    // before the store opens: a bad configuration refuses the start, and nothing is written unencrypted
    const encryption = opts.encryption ? Encryption.start(opts.dataDir, opts.encryption, log) : undefined;
    const datastore = await openDatastore({ dataDir: opts.dataDir, durability: opts.durability, transformers: encryption?.transformers, datastore: opts.datastore });
    const store = datastore.store;
    const stoppers: (() => Promise<void> | void)[] = [];
    stoppers.push(() => store.close());
    if (encryption) stoppers.unshift(() => encryption.stop());
    const compactor = new Compactor(store);
    compactor.start();
    stoppers.unshift(() => compactor.stop());
    phase(`storage (${datastore.kind}) opened at revision ${store.currentRevision()}`);

    const tokens = await ServiceAccountTokens.load(pki.serviceAccount.keyPem, pki.serviceAccount.publicKeyPem);
    const runAgent = !!opts.agent && !opts.disableAgent;
    // the API server's client certificate for the kubelet API (logs, exec, port-forward, metrics): for its own node
    // and for nodes joined with `k1s agent` (docs/agent.md); it lives as long as the process
    const kubeletClient = { ...(await issueKubeletClientCert(pki.ca)), caPem: pki.ca.certPem };
    // metrics-server's part: real kubelets' usage, scraped from their /metrics/resource
    const realUsage = runAgent ? new RealUsageStore() : undefined;
    // every component records into the cluster's one registry; the API's store is timed (etcd_request_duration_seconds)
    const metrics = opts.disableMetrics ? undefined : new Metrics({ version: versionInfo() });
    const api = buildClusterApi(metrics ? instrumentStore(store, metrics.storage) : store, { serviceCIDR: opts.serviceCIDR, tokens, realUsage, podSecurity: opts.podSecurity });
    const { registry, client } = api;
    if (metrics) {
      registry.useMetrics(metrics);
      // the database file and its write-ahead log, or etcd's own figure, as kube reports etcd's file
      metrics.storage.dbSize.collect = async () => metrics.storage.dbSize.with('etcd-0').set(await datastore.dbSize());
    }
    // one object the aggregator's parts read at each request: a reload replaces its fields in place
    const proxyClientCert = { certPem: frontProxy.client.certPem, keyPem: frontProxy.client.keyPem };
    api.aggregator.useClientCert(proxyClientCert);
    const authz = buildAuthorizer(registry, opts.authorizationMode);
    const authorizer = authz.authorizer;
    registry.authorizer = authorizer;
    // `authorizer` in admission CEL asks the server's own authorizer (RBAC gives allow or no opinion)
    api.webhooks.authorize = api.policies.authorize = (user, attrs) => {
      const d = authorizer.authorize({ name: user.name, uid: user.uid, groups: user.groups ?? [], extra: user.extra }, attrs);
      return { decision: d.allowed ? 'allow' : 'noopinion', reason: d.reason };
    };
    stoppers.unshift(() => authz.stop());
    const health = new HealthChecks();
    let bootstrapped = false;
    health.addLive('ping', () => {});
    health.addLive('log', () => {});
    health.addLive('etcd', () => datastore.check());
    // kube adds this one check when the configuration is reloaded automatically (it probes KMS plugins, which k1s
    // has none of: always ok)
    if (encryption?.automaticReload) health.addLive('kms-providers', () => {});
    health.addReady('poststarthook/k1s-bootstrap-namespaces', () => {
      if (!bootstrapped) throw new Error('not finished');
    });
    const app = await buildApiServer({
      kubeletClient,
      registry,
      tls: { key: pki.server.keyPem, cert: pki.server.certPem, ca: pki.ca.certPem },
      health,
      authenticateToken: (t) => api.authenticateToken(t),
      anonymousAuth: opts.anonymousAuth ?? true,
      authorizer,
      version: versionInfo(),
      watch: { bookmarkIntervalMs: opts.bookmarkIntervalMs },
      aggregator: api.aggregator,
      audit: audit?.auditor,
      metrics,
    });
    if (audit) stoppers.unshift(() => audit.writer.close());
    await bootstrapClusterObjects(api, opts.serviceCIDR);
    await ensureJoinToken(opts.dataDir, api.client);
    const authConfig = extensionAuthenticationConfigMap({ clientCaPem: pki.ca.certPem, requestHeaderCaPem: frontProxy.ca.certPem });
    await api.client.resource('v1', 'configmaps').patch('kube-system', authConfig.metadata.name!, 'apply', authConfig, { fieldManager: 'kube-apiserver', force: true });
    await Promise.all([api.customResources.start(), api.webhooks.start(), api.policies.start()]);
    // after the CRDs: the first autoregistration must not drop the APIServices of CRDs that are still there
    await api.aggregator.start();
    phase('custom resources served');
    await authz.start();
    bootstrapped = true;
    phase('system namespaces ready');


    await app.listen({ port: opts.port, host: opts.bindAddress });
    stoppers.unshift(() => app.close());
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : opts.port;
    const host = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    phase(`API server listening on ${url}`);
    // what `k1s agent` discovers the CA from (the bootstrapsigner signs it for each token)
    await publishClusterInfo(client, { server: opts.advertiseAddress ? `https://${advertise!.includes(':') ? `[${advertise}]` : advertise}:${port}` : url, caPem: pki.ca.certPem });
    // rotated leaves are served without a restart: new connections get them, open ones (watches) carry on
    const certificates = new CertificateReloader({
      dir: pki.dir,
      log,
      pairs: [
        {
          base: 'server',
          caPem: pki.ca.certPem,
          current: { certPem: pki.server.certPem, keyPem: pki.server.keyPem },
          apply: (pem) => (app.server as unknown as TlsServer).setSecureContext({ key: pem.keyPem, cert: pem.certPem, ca: pki.ca.certPem }),
        },
        {
          base: 'front-proxy-client',
          caPem: frontProxy.ca.certPem,
          current: { certPem: frontProxy.client.certPem, keyPem: frontProxy.client.keyPem },
          apply: (pem) => Object.assign(proxyClientCert, pem),
        },
      ],
    });
    certificates.start();
    stoppers.unshift(() => certificates.stop());
    if (opts.writeKubeconfig) {
      await writeKubeconfig(
        opts.writeKubeconfig,
        kubeconfigYaml({ server: url, caPem: pki.ca.certPem, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem }),
      );
      phase(`kubeconfig written to ${opts.writeKubeconfig}`);
    }
    if (!(await health.isReady())) throw new Error('k1s: API server did not become ready');
    log(`k1s API server ready at ${url} (${Math.round(performance.now() - t0)} ms)`);
    stoppers.unshift(() => api.stop());

    // published before the control loops start: a server that leads them is one the others can list
    const publish = opts.datastore ? (address: { ip: string; port: number }) => publishApiServer({ client, address, hostname: hostname(), log }) : undefined;
    if (publish && !runAgent) {
      const published = await publish({ ip: advertise!, port });
      stoppers.unshift(() => published.stop());
    }
    const controlPlane = await startControlPlane({
      client, registry, ca: pki.ca, dataDir: opts.dataDir, log, metrics, clusterCIDR: opts.clusterCIDR, sharedStore: !!opts.datastore,
      disableControllerManager: opts.disableControllerManager, disableScheduler: opts.disableScheduler, simulatedNodes: opts.simulatedNodes,
    });
    stoppers.unshift(...controlPlane.stoppers);
    const sim = opts.simulatedNodes;
    if (sim?.count && controlPlane.simulatedHere) phase(`${sim.count} simulated node${sim.count > 1 ? 's' : ''} registered`);
    else if (sim?.count) log('k1s: simulated nodes run on the server holding kube-system/k1s-simulated-nodes; this one takes them over if it goes');
    const kubeletApi = client.withUserAgent(componentUserAgent('kubelet'));
    let agent: NodeAgent | undefined;
    let registryPort: number | undefined;
    if (runAgent) {
      const { NodeAgent } = await import('../kubelet/node/agent.js');
      try {
        // pods reach the API server (the `kubernetes` Service) on their network's gateway
        const onPodNetwork = async ({ gateway }: { gateway: string }) => {
          // the advertised address when pods reach it: given, or on etcd with a bind address other than loopback
          // (several machines); else the one chosen for pods (the gateway's extra listener with a loopback bind)
          const loopbackBind = ['127.0.0.1', '::1', 'localhost'].includes(opts.bindAddress);
          const advertised = opts.advertiseAddress || (advertise && !loopbackBind) ? { ip: advertise!, port } : undefined;
          const podApi = await servePodFacingApi({ server: app.server, client, gateway, bindAddress: opts.bindAddress, port, log, advertise: advertised, publish });
          stoppers.unshift(() => podApi.stop());
        };
        const clusterDNSServiceIP = opts.serviceCIDR ? serviceIPAt(opts.serviceCIDR, 10) : undefined;
        const nodeName = (opts.agent?.nodeName ?? hostname()).toLowerCase();
        // the credential a kubelet joining over HTTPS would present; in process the same user, without the socket
        await ensureNodeCredential(join(pki.dir, 'nodes'), pki.ca, nodeName);
        const nodeApi = authz.nodes ? client.asUser(nodeUser(nodeName)).withUserAgent(componentUserAgent('kubelet')) : kubeletApi;
        if (ownContainerd && !opts.registry?.disable) {
          // before the kubelet's first pull: the mirror configuration must be in place
          const { startClusterRegistry } = await import('./registry.js');
          // a containerd that failed to start is the agent's to report
          const own = await ownContainerd.catch(() => undefined);
          if (own) {
            const reg = await startClusterRegistry({ containerd: own.paths, dataDir: opts.dataDir, port: opts.registry?.port, client, log });
            stoppers.unshift(() => reg.stop());
            registryPort = reg.port;
          }
        }
        agent = await NodeAgent.start({
          client: nodeApi, addonClient: kubeletApi, dataDir: opts.dataDir, log, ca: pki.ca, onPodNetwork, clusterDNSServiceIP, ownContainerd,
          ...opts.agent, nodeName,
        });
      } catch (e) {
        for (const s of stoppers.splice(0)) await Promise.resolve(s()).catch(() => undefined);
        throw e;
      }
      stoppers.unshift(() => agent!.stop());
      // the kubelet's /stats/summary and /metrics/resource, over the agent's CRI connection
      const { CriStatsProvider } = await import('../kubelet/stats/provider.js');
      agent.server?.setStats(new CriStatsProvider({ cri: agent.runtime.cri, nodeName: agent.nodeName }));
      phase(`node ${agent.nodeName} ready`);
      const { startNetworkServices } = await import('./network-services.js');
      stoppers.unshift(...(await startNetworkServices(client, opts.network ?? {}, log)));
    }
    if (realUsage) {
      // started once the local node is registered, so its first pass finds it
      const scraper = new KubeletMetricsScraper({
        client, kubeletClient, usage: realUsage, log, skipNode: (n) => n.metadata.annotations?.[SIMULATED_ANNOTATION] === 'true',
      });
      await scraper.start();
      stoppers.unshift(() => scraper.stop());
    }
    const cluster = new Cluster(opts, store, registry, app, pki, url, client, stoppers);
    cluster.agent = agent;
    cluster.registryPort = registryPort;
    cluster.certificates = certificates;
    cluster.encryption = encryption;
    return cluster;
  }

  async stop(): Promise<void> {
    for (const s of this.stoppers.splice(0)) {
      try {
        await s();
      } catch (e) {
        console.error('k1s: error while stopping:', e);
      }
    }
  }
}

const DEFAULT_SERVICE_CIDR = '10.43.0.0/16';


/** the n-th address of the Service range: 1 is the kubernetes Service, 10 kube-dns (kubeadm's convention) */
function serviceIPAt(cidr: string, n: number): string {
  const c = parseCIDR(cidr);
  if (!c) throw new Error(`invalid service CIDR ${cidr}`);
  return bigIntToIp(c.base + BigInt(n), c.family);
}

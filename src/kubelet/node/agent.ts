// The real node of `k1s server` (k3s' agent): checks the host, starts and supervises containerd (or uses an existing
// CRI endpoint), imports the pause image, reads the machine, runs a Kubelet over the CRI runtime, writes the CNI
// conflist once the node has a pod CIDR, keeps the pressure conditions current and removes pods that are gone from
// the API (housekeeping). One progress line per phase.
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Pod } from '../../api/core/pod/types.js';
import type { Client } from '../../client/types.js';
import { cleanupNodeNetwork } from '../../network/host-cleanup.js';
import { podCidrGateway, writeCniConfig } from '../../network/cni-config.js';
import { containerdPaths } from '../../runtime/containerd-config.js';
import { Containerd, type ContainerRuntimeProcess } from '../../runtime/containerd.js';
import { startOwnContainerd } from './own-containerd.js';
import { CriRuntime } from '../cri/runtime.js';
import { criStreams } from '../cri/streams.js';
import type { KubeletStreams } from '../server.js';
import { parseResolvConf, type DNSSettings } from '../cri/dns-config.js';
import { evictionDecision, rankForEviction, type PodUsageStats, type PodWithStats } from '../eviction/ranking.js';
import { defaultEvictionHard, EVICTION_MONITORING_PERIOD_MS, observeSignals, pressureConditions, type PressureState } from '../eviction/signals.js';
import { POD_UID_LABEL } from '../cri/sandbox-config.js';
import { Kubelet } from '../kubelet.js';
import { LocalPathDirs } from '../volumes/local-path-dirs.js';
import { DEFAULT_CLUSTER_DNS_IP, startNodeDNS } from '../../network/dns/service.js';
import type { ClusterDNS } from '../../network/dns/server.js';
import type { ServiceProxy } from '../../network/service-proxy/proxy.js';
import { routedClusterDNS, startNodeServiceProxy } from '../../network/service-proxy/node.js';
import { startNodeNetworkPolicy, type NetworkPolicyEnforcer } from '../../network/network-policy/enforcer.js';
import { issueKubeletServingCert, KubeletServer } from '../server.js';
import { subjectAccessReviewAuthorizer } from '../server-auth.js';
import type { CertKeyPem } from '../../pki/certs.js';
import { readMachineInfo } from './machine-info.js';
import { ensureBridge, ipamDir, podNetwork } from './node-network.js';
import { kubeletMaySetLabel } from '../../api/core/node/kubelet-labels.js';
import type { NodeHealth } from './status.js';

export { DEFAULT_PAUSE_IMAGE, defaultImagesDir } from './own-containerd.js';
export { ipamDir, podNetwork } from './node-network.js';
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

export interface NodeAgentOptions {
  /** the kubelet's client: the node's own identity, so the Node authorizer and NodeRestriction apply */
  client: Client;
  /** the node's add-ons (service proxy, network policy, DNS, local-path volumes), which run under identities of
   *  their own in Kubernetes, and labels a kubelet may not set itself (default: `client`) */
  addonClient?: Client;
  dataDir: string;
  /** default: the host name, lower-cased */
  nodeName?: string;
  /** an existing CRI socket (unix:///…) instead of k1s' own containerd */
  containerRuntimeEndpoint?: string;
  pauseImage?: string;
  /** where pause.tar is (default: dist/images next to k1s) */
  imagesDir?: string;
  /** nameservers for ClusterFirst pods; default: k1s' own DNS server on the node address */
  clusterDNS?: string[];
  disableClusterDNS?: boolean;
  /** the kube-dns Service's cluster IP (default 10.43.0.10; the 10th address of another --service-cidr) */
  clusterDNSServiceIP?: string;
  clusterDomain?: string;
  labels?: Record<string, string>;
  /** the cluster CA: signs the kubelet's serving certificate (the API server trusts it for logs/exec/port-forward) */
  ca?: CertKeyPem;
  /** a node on another machine has no CA key: its serving certificate (from a kubelet-serving CSR, or a stand-in
   *  until that is issued: KubeletServer.setTls) and the CA client certificates must chain to */
  servingCert?: { certPem: string; keyPem: string; caPem: string };
  /** the Node's InternalIP (kubelet --node-ip; default: the default-route interface's IPv4) */
  nodeIP?: string;
  /** the server's own node (default true): labelled node-role.kubernetes.io/control-plane, and its DNS server is
   *  published as kube-system/kube-dns; a joined node's DNS serves its own pods on its gateway */
  controlPlane?: boolean;
  /** the kubelet's HTTPS port (default 10250; a free port when that one is taken, e.g. by another cluster) */
  kubeletPort?: number;
  /** the pod network's bridge (default cni0); clusters side by side on one machine need their own */
  bridge?: string;
  /** where k1s' own containerd finds the CNI plugins (default /usr/lib/cni, else /opt/cni/bin) */
  cniBinDir?: string;
  /** k1s' own containerd, already being started (startOwnContainerd); the agent owns it from then on */
  ownContainerd?: Promise<Containerd>;
  /** local-path volumes of this node live here (default <dataDir>/storage) */
  storageRoot?: string;
  log?: (line: string) => void;
  /** PLEG relist period (default 1 s) */
  relistIntervalMs?: number;
  /** configMap/secret volume resync (default 10 s) */
  volumeResyncMs?: number;
  /** housekeeping (orphaned pods) period (default 10 s) */
  housekeepingMs?: number;
  /** called once the pod network's bridge has its gateway address, before the first pod can start (the API server
   *  listens there for the `kubernetes` Service); a failure is logged, not fatal */
  onPodNetwork?: (net: { gateway: string; bridge: string; podCIDR: string }) => Promise<void>;
}

export class NodeAgent {
  private timers: NodeJS.Timeout[] = [];
  server?: KubeletServer;
  dns?: ClusterDNS;
  proxy?: ServiceProxy;
  networkPolicy?: NetworkPolicyEnforcer;
  private cniSync?: Promise<void>;
  private dnsSettings?: DNSSettings;
  localPath?: LocalPathDirs;
  private pressure?: PressureState;
  private health: NodeHealth = { memoryPressure: false, diskPressure: false, pidPressure: false };
  private cniCIDR?: string;
  private stopped = false;

  private constructor(
    readonly kubelet: Kubelet,
    readonly runtime: CriRuntime,
    readonly containerd: ContainerRuntimeProcess,
    private readonly opts: NodeAgentOptions,
    private readonly log: (line: string) => void,
  ) {}

  get nodeName(): string {
    return this.kubelet.nodeName;
  }

  private get addons(): Client {
    return this.opts.addonClient ?? this.opts.client;
  }

  /** what the kubelet's streaming server (KubeletServer) needs: logs, exec, attach, port-forward over CRI */
  streams(): KubeletStreams {
    return criStreams(this.runtime, (ns, name) => this.kubelet.getPod(ns, name));
  }

  static async start(opts: NodeAgentOptions): Promise<NodeAgent> {
    const log = opts.log ?? ((l: string) => console.error(l));
    const t0 = performance.now();
    const phase = (s: string) => log(`k1s: agent: ${s} (${Math.round(performance.now() - t0)} ms)`);
    const paths = containerdPaths(opts.dataDir);
    let containerd: ContainerRuntimeProcess;
    if (opts.containerRuntimeEndpoint) {
      containerd = Containerd.external(opts.containerRuntimeEndpoint);
      await containerd.start();
      phase(`container runtime at ${opts.containerRuntimeEndpoint} ready`);
    } else {
      // started early by the caller (beside the API server's start-up), or now
      const own = await (opts.ownContainerd ?? startOwnContainerd({ ...opts, log }));
      containerd = own;
      phase(`containerd started (${own.endpoint})`);
    }
    let server: KubeletServer | undefined;
    try {
      const machine = await readMachineInfo({ dataDir: opts.dataDir });
      const internalIP = opts.nodeIP ?? machine.addresses.find((a) => a.type === 'InternalIP')?.address ?? '127.0.0.1';
      phase(`machine: ${machine.capacity.cpu} CPUs, ${machine.capacity.memory} memory, IP ${internalIP}`);
      const resolv = existsSync('/etc/resolv.conf') ? parseResolvConf(readFileSync('/etc/resolv.conf', 'utf8')) : undefined;
      const nodeName = (opts.nodeName ?? hostname()).toLowerCase();
      // Cluster DNS comes up on the pod network's gateway once the node has its pod CIDR (syncCni). Pods point at the
      // kube-dns Service IP from the start, as with a kubelet's --cluster-dns: after a restart the kubelet starts the
      // node's pods before that, and they must not keep the host's resolv.conf for their lifetime.
      const clusterDNS = opts.clusterDNS ?? (servesClusterDNS(opts) ? [opts.clusterDNSServiceIP ?? DEFAULT_CLUSTER_DNS_IP] : []);
      const dns: DNSSettings = { clusterDNS, clusterDomain: opts.clusterDomain ?? 'cluster.local', hostResolvConf: resolv, nodeIPs: [internalIP] };
      const memoryBytes = Number(readFileSync('/proc/meminfo', 'utf8').match(/MemTotal:\s+(\d+)/)?.[1] ?? 0) * 1024;
      const runtime = new CriRuntime({
        endpoint: containerd.endpoint,
        client: opts.client,
        rootDir: path.join(opts.dataDir, 'agent', 'kubelet'),
        podLogDir: paths.podLogDir,
        nodeAllocatable: machine.allocatable,
        memoryCapacityBytes: memoryBytes,
        hostIPs: [internalIP],
        dns: () => dns,
        relistIntervalMs: opts.relistIntervalMs,
        volumeResyncMs: opts.volumeResyncMs,
        log,
      });
      await runtime.start();
      const adopted = runtime.knownPods().length;
      if (adopted === 0 && !opts.containerRuntimeEndpoint) {
        const removed = await cleanupNodeNetwork({ ipamDataDir: ipamDir(opts.dataDir), ...podNetwork(opts.bridge) }).catch(() => [] as string[]);
        if (removed.length) log(`k1s: agent: removed ${removed.length} network leftovers of an earlier run`);
      }
      phase(`CRI runtime ${runtime.version}: ${adopted} pod${adopted === 1 ? '' : 's'} found running`);
      let agent: NodeAgent | undefined;
      let kubeletPort: number | undefined; // the kubelet API (logs, exec, port-forward, metrics) the API server proxies to
      const tls = opts.servingCert ?? (opts.ca && { ...(await issueKubeletServingCert(opts.ca, { name: nodeName, ips: [internalIP] })), caPem: opts.ca.certPem });
      if (tls) {
        // Webhook authorization as kube's kubelet: SubjectAccessReviews with the node's own client
        const authorize = subjectAccessReviewAuthorizer(opts.client, nodeName);
        server = new KubeletServer({ streams: criStreams(runtime, (ns, n) => kubelet.getPod(ns, n)), tls, authorize, log });
        kubeletPort = await listenPreferred(server, opts.kubeletPort ?? 10250);
        phase(`kubelet API listening on port ${kubeletPort}`);
      }
      // NodeRestriction keeps a kubelet from setting node-role and most kubernetes.io labels: the control plane
      // sets them once the Node exists (as kubeadm and k3s' server do)
      const ownLabels = splitLabels({ ...(opts.controlPlane === false ? {} : { [CONTROL_PLANE_LABEL]: 'true' }), ...(opts.labels ?? {}) });
      const kubelet = new Kubelet({
        kubeletPort,
        client: opts.client,
        nodeName,
        internalIP,
        runtime,
        capacity: machine.capacity,
        allocatable: machine.allocatable,
        labels: ownLabels.kubelet,
        osImage: machine.nodeInfo.osImage,
        log,
        health: () => agent?.health ?? { memoryPressure: false, diskPressure: false, pidPressure: false },
      });
      agent = new NodeAgent(kubelet, runtime, containerd, opts, log);
      agent.server = server;
      agent.dnsSettings = dns;
      containerd.onRestart((ev) => {
        log(`k1s: agent: containerd back after ${ev.downMs} ms; relisting`);
        void runtime.relist().catch(() => undefined);
      });
      await kubelet.start();
      phase(`node ${nodeName} registered`);
      const addons = opts.addonClient ?? opts.client;
      if (Object.keys(ownLabels.controlPlane).length) await addons.resource('v1', 'nodes').patch('', nodeName, 'merge', { metadata: { labels: ownLabels.controlPlane } });
      agent.localPath = new LocalPathDirs({ client: addons, nodeClient: opts.client, nodeName, storageRoot: opts.storageRoot ?? path.join(opts.dataDir, 'storage'), log });
      await agent.localPath.start();
      agent.loops();
      return agent;
    } catch (e) {
      await server?.close().catch(() => undefined);
      await containerd.stop().catch(() => undefined);
      throw e;
    }
  }

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.stopped) return;
      busy = true;
      fn()
        .catch((e) => this.log(`k1s: agent: ${(e as Error).message}`))
        .finally(() => (busy = false));
    }, ms);
    t.unref?.();
    this.timers.push(t);
  }

  private loops(): void {
    this.every(500, () => this.syncCni());
    this.every(EVICTION_MONITORING_PERIOD_MS, () => this.syncPressure());
    this.every(this.opts.housekeepingMs ?? 10_000, () => this.housekeeping().then(() => undefined));
    void this.syncCni().catch(() => undefined);
  }

  /** single-flight: the first call and the periodic one must not set up the bridge, DNS and listeners twice */
  private syncCni(): Promise<void> {
    this.cniSync ??= this.syncCniOnce().finally(() => (this.cniSync = undefined));
    return this.cniSync;
  }

  /** the conflist follows the node's spec.podCIDR (set by the node IPAM controller after registration) */
  private async syncCniOnce(): Promise<void> {
    const cidr = this.kubelet.podCIDR;
    if (!cidr || cidr === this.cniCIDR || this.opts.containerRuntimeEndpoint) return;
    // Service routing and DNS first: a sandbox started right after the conflist appears must already get them.
    // Pod traffic is told from other traffic by the node's pod CIDR (kube-proxy's --detect-local-mode=NodeCIDR).
    this.proxy ??= await startNodeServiceProxy({ client: this.addons, nodeName: this.nodeName, clusterCIDR: cidr, bridge: this.opts.bridge, log: this.log });
    // NetworkPolicy enforcement before the first sandbox too: a pod is judged as soon as the API has its IP
    this.networkPolicy ??= await startNodeNetworkPolicy({ client: this.addons, nodeName: this.nodeName, bridge: podNetwork(this.opts.bridge).bridge, log: this.log });
    await this.startDNS(cidr);
    await this.podNetworkReady(cidr);
    const r = await writeCniConfig({ confDir: containerdPaths(this.opts.dataDir).cniConfDir, podCIDR: cidr, ipamDataDir: ipamDir(this.opts.dataDir), ...podNetwork(this.opts.bridge) });
    this.cniCIDR = cidr;
    this.log(`k1s: agent: pod network ${cidr} (${r.file}${r.changed ? '' : ', unchanged'})`);
  }

  /**
   * Cluster DNS on the pod network's gateway address (its own per cluster, reachable from every pod): the bridge is
   * made here with that address (the bridge plugin adopts it) so the server can bind before the first pod.
   */
  private async startDNS(cidr: string): Promise<void> {
    if (this.dns || !servesClusterDNS(this.opts)) return;
    const { bridge } = podNetwork(this.opts.bridge);
    const gateway = podCidrGateway(cidr);
    try {
      await ensureBridge(bridge, `${gateway}/${cidr.split('/')[1]}`);
      this.dns = await startNodeDNS({ client: this.addons, nodeName: this.nodeName, address: gateway, clusterDomain: this.opts.clusterDomain, serviceIP: this.opts.clusterDNSServiceIP, publish: this.opts.controlPlane !== false, log: this.log });
      // pods ask the kube-dns Service IP as in any cluster once the service proxy provably routes it
      // (not on a joined node: kube-dns' endpoint is the server node's gateway, which pods here cannot reach yet)
      const serviceIP = this.proxy && this.opts.controlPlane !== false ? await routedClusterDNS(this.proxy, { client: this.addons, log: this.log }) : undefined;
      if (this.dnsSettings) this.dnsSettings.clusterDNS = [serviceIP ?? gateway];
      this.log(`k1s: agent: cluster DNS serving ${this.opts.clusterDomain ?? 'cluster.local'} on ${gateway}:53${serviceIP ? ` (Service IP ${serviceIP})` : ''}`);
    } catch (e) {
      if (this.dnsSettings) this.dnsSettings.clusterDNS = [];
      this.log(`k1s: agent: cluster DNS not started: ${(e as Error).message}; pods get the host's resolv.conf`);
    }
  }

  private async podNetworkReady(cidr: string): Promise<void> {
    if (!this.opts.onPodNetwork) return;
    const { bridge } = podNetwork(this.opts.bridge);
    const gateway = podCidrGateway(cidr);
    try {
      await ensureBridge(bridge, `${gateway}/${cidr.split('/')[1]}`);
      await this.opts.onPodNetwork({ gateway, bridge, podCIDR: cidr });
    } catch (e) {
      this.log(`k1s: agent: ${(e as Error).message}`);
    }
  }

  /** the eviction manager's signals → MemoryPressure/DiskPressure/PIDPressure */
  private async syncPressure(): Promise<void> {
    const obs = await observeSignals({ dataDir: this.opts.dataDir, imageFsDir: containerdPaths(this.opts.dataDir).root });
    const r = pressureConditions(obs, defaultEvictionHard(), this.pressure, Date.now());
    this.pressure = r.state;
    this.health = { memoryPressure: r.memoryPressure, diskPressure: r.diskPressure, pidPressure: r.pidPressure };
    const threshold = r.toReclaim[0];
    if (!threshold) return;
    // one pod per synchronize, ranked by QoS, priority and usage (the eviction manager's order)
    const usage = await this.podUsage();
    const pods: PodWithStats[] = this.kubelet.activePods().map((pod) => ({ pod, stats: usage.get(pod.metadata.uid!) }));
    const victim = rankForEviction(pods, threshold.signal)[0];
    if (!victim) return;
    const d = evictionDecision({ pod: victim, threshold, met: r.met, observations: obs });
    this.log(`k1s: agent: evicting pod ${victim.pod.metadata.namespace}/${victim.pod.metadata.name}: ${d.message}`);
    this.kubelet.evict(victim.pod, d);
  }

  /** per-pod usage from CRI container stats (working set, writable layer) */
  private async podUsage(): Promise<Map<string, PodUsageStats>> {
    const out = new Map<string, PodUsageStats>();
    const { stats } = await this.runtime.cri.listContainerStats({});
    for (const s of stats) {
      const uid = s.attributes?.labels?.[POD_UID_LABEL];
      if (!uid) continue;
      const mem = Number(s.memory?.working_set_bytes?.value ?? 0);
      const rootfs = Number(s.writable_layer?.used_bytes?.value ?? 0);
      const cur = out.get(uid) ?? { memoryWorkingSetBytes: 0, ephemeralStorageBytes: 0, containers: [] };
      cur.memoryWorkingSetBytes! += mem;
      cur.ephemeralStorageBytes! += rootfs;
      cur.containers!.push({ name: s.attributes?.metadata?.name ?? '', memoryWorkingSetBytes: mem, rootfsUsedBytes: rootfs, logsUsedBytes: 0 });
      out.set(uid, cur);
    }
    return out;
  }

  /** HandlePodCleanups: sandboxes of pods the API no longer has (deleted while k1s was down) are removed */
  async housekeeping(): Promise<string[]> {
    // what runs is read before the API, so a pod created in between is never taken for an orphan
    const running = this.runtime.knownPods();
    const list = await this.opts.client.resource('v1', 'pods').list('', { fieldSelector: `spec.nodeName=${this.nodeName}` });
    const known = new Set((list.items as Pod[]).map((p) => p.metadata.uid));
    const orphans = running.filter((uid) => !known.has(uid));
    for (const uid of orphans) {
      this.log(`k1s: agent: removing pod ${uid}: it is no longer in the API`);
      this.runtime.removePod(uid);
    }
    await this.runtime.whenRemoved();
    return orphans;
  }

  /** Stops the kubelet and k1s' own containerd; pods keep running (as when k3s stops) */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.kubelet.stop();
    this.localPath?.stop();
    await this.server?.close().catch(() => undefined);
    await this.proxy?.stop().catch(() => undefined);
    await this.networkPolicy?.stop().catch(() => undefined);
    await this.dns?.stop().catch(() => undefined);
    await this.runtime.whenRemoved().catch(() => undefined);
    await this.containerd.stop();
  }
}

/** whether this node runs cluster DNS itself (not when given other servers, told not to, or on a runtime it does
 *  not manage the network of) */
function servesClusterDNS(opts: NodeAgentOptions): boolean {
  return !opts.clusterDNS && !opts.disableClusterDNS && !opts.containerRuntimeEndpoint;
}

/** the preferred port, or any free one when it is taken (another cluster's kubelet on this machine) */
async function listenPreferred(server: KubeletServer, port: number): Promise<number> {
  try {
    return await server.listen(port);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return server.listen(0);
  }
}

/** the labels a kubelet registers with, and those only the control plane may set */
function splitLabels(labels: Record<string, string>): { kubelet: Record<string, string>; controlPlane: Record<string, string> } {
  const out = { kubelet: {} as Record<string, string>, controlPlane: {} as Record<string, string> };
  for (const [k, v] of Object.entries(labels)) (kubeletMaySetLabel(k) ? out.kubelet : out.controlPlane)[k] = v;
  return out;
}

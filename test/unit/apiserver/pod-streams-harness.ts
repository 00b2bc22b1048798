// An in-process k1s API server (real HTTPS, real registry on in-memory SQLite) plus a real kubelet HTTPS server
// for one node, both with certificates from a fresh CA, and a kubeconfig for real kubectl.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../src/cluster/api.js';
import { buildApiServer } from '../../../src/apiserver/server.js';
import { HealthChecks } from '../../../src/apiserver/health.js';
import { issueKubeletClientCert } from '../../../src/apiserver/streams/kubelet-connection.js';
import { KubeletServer, issueKubeletServingCert, type KubeletStreams } from '../../../src/kubelet/server.js';
import { createCa, createClientCert, createServingCert, type CertKeyPem } from '../../../src/pki/certs.js';
import { kubeconfigYaml } from '../../../src/pki/kubeconfig.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import type { KObject } from '../../../src/api/types.js';

export const NODE = 'node-a';

export interface StreamsCluster {
  api: ClusterApi;
  app: FastifyInstance;
  url: string;
  dir: string;
  kubeconfig: string;
  ca: CertKeyPem;
  admin: CertKeyPem;
  kubelet: KubeletServer;
  kubeletPort: number;
  /** the kubelet's streams; tests replace members as they need */
  streams: KubeletStreams;
  createPod(pod: Pod, status?: Record<string, unknown>): Promise<Pod>;
  /** GET on the API server with the admin certificate; resolves with status and body */
  get(path: string): Promise<{ code: number; body: string }>;
  close(): Promise<void>;
}

export async function streamsCluster(streams: Partial<Omit<KubeletStreams, 'getPod'>> = {}): Promise<StreamsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-streams-'));
  const ca = await createCa();
  const [serving, admin, kubeletClient, kubeletServing] = await Promise.all([
    createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1'] }),
    createClientCert(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'] }),
    issueKubeletClientCert(ca),
    issueKubeletServingCert(ca, { name: NODE, ips: ['127.0.0.1'] }),
  ]);
  const store = SqliteStore.open({ path: ':memory:' });
  const api = buildClusterApi(store);
  await bootstrapClusterObjects(api);
  await api.client
    .resource('v1', 'serviceaccounts')
    .create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } })
    .catch(() => undefined);
  const app = await buildApiServer({
    registry: api.registry,
    tls: { key: serving.keyPem, cert: serving.certPem, ca: ca.certPem },
    health: new HealthChecks(),
    version: { major: '1', minor: '33', gitVersion: 'v1.33.0-k1s' },
    kubeletClient: { ...kubeletClient, caPem: ca.certPem },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const url = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml({ server: url, caPem: ca.certPem, clientCertPem: admin.certPem, clientKeyPem: admin.keyPem }));

  // the kubelet's view of its pods: the API's objects (as its pod manager + status manager would hold them)
  const pods = new Map<string, Pod>();
  const all: KubeletStreams = {
    containerLogPath: async () => undefined,
    isContainerRunning: async () => false,
    exec: async () => ({ code: 500, message: 'no runtime' }),
    attach: async () => ({ code: 500, message: 'no runtime' }),
    portForward: async () => ({ code: 500, message: 'no runtime' }),
    ...streams,
    getPod: (ns, name) => pods.get(`${ns}/${name}`),
  };
  const kubelet = new KubeletServer({ streams: all, tls: { ...kubeletServing, caPem: ca.certPem } });
  const kubeletPort = await kubelet.listen(0, '127.0.0.1');
  const nodes = api.client.resource('v1', 'nodes');
  const node = await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } } as KObject);
  await nodes.update('', {
    ...node,
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: NODE }], daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } },
  } as KObject, { subresource: 'status' });

  const cluster: StreamsCluster = {
    api, app, url, dir, kubeconfig, ca, admin, kubelet, kubeletPort, streams: all,
    async createPod(pod, status) {
      const podsApi = api.client.resource('v1', 'pods');
      let p = (await podsApi.create('default', { apiVersion: 'v1', kind: 'Pod', ...pod } as KObject)) as Pod;
      if (status) p = (await podsApi.update('default', { ...p, status: { ...p.status, ...status } } as KObject, { subresource: 'status' })) as Pod;
      pods.set(`default/${p.metadata.name}`, p);
      return p;
    },
    get: (path) =>
      new Promise((resolve, reject) => {
        const req = request(url + path, { ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, agent: false }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      }),
    async close() {
      await kubelet.close();
      await app.close();
      api.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** A pod spec bound to the harness node. */
export function boundPod(name: string, containers: string[] = ['app'], extra: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: NODE, containers: containers.map((c) => ({ name: c, image: 'busybox:1' })), ...extra },
  } as Pod;
}

export const running = (name: string, id: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: 'busybox:1',
  imageID: '',
  ready: true,
  restartCount: 0,
  containerID: `containerd://${id}`,
  state: { running: { startedAt: '2024-01-01T00:00:00Z' } },
  ...extra,
});

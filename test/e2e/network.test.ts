// Cluster networking with real pods: busybox httpd pods behind Services, reached by ClusterIP and DNS name from
// another pod, through a LoadBalancer Service on 127.0.0.1 and through the built-in ingress controller from the host,
// and the `kubernetes` Service: an in-cluster client (the static kubectl binary mounted into a busybox pod, using the
// pod's ServiceAccount token and CA) reaches the API server as that ServiceAccount. Its own bridge, pod network
// and Service range, so it runs beside the other real-node tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { kubectl, kubectlPath, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const BRIDGE = 'k1snet0';
const SERVICE_CIDR = '10.149.0.0/16';
const NETWORK_ARGS = ['--cluster-cidr', '10.49.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', SERVICE_CIDR];
const SUITE = { suite: 'net' };
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;
const started = Date.now();

const httpd = (name: string, app: string, body: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { ...SUITE, app } },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'httpd',
        image: BUSYBOX,
        imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', `mkdir -p /www/api && echo ${body} > /www/index.html && echo ${body}-api > /www/api/index.html && exec httpd -f -p 8080 -h /www`],
        readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
      },
    ],
  },
});

const service = (name: string, app: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, labels: SUITE },
  spec: { selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...extra },
});

/** a free TCP port on 127.0.0.1 (for the LoadBalancer Service) */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function get(port: number, opts: { path?: string; host?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: opts.path ?? '/', headers: opts.host ? { host: opts.host } : {}, agent: false, timeout: 3000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

before(async () => {
  ({ server, dataDir } = await startRealNode('net', NETWORK_ARGS));
  k = kubectl(server, '1.33');
  const client = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'client', labels: SUITE },
    spec: {
      terminationGracePeriodSeconds: 1,
      // kubectl is a static binary: mounted from the host it is an in-cluster client inside a busybox pod
      volumes: [{ name: 'kubectl', hostPath: { path: kubectlPath('1.33'), type: 'File' } }],
      containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'], volumeMounts: [{ name: 'kubectl', mountPath: '/kubectl', readOnly: true }] }],
    },
  };
  const items = [httpd('web-1', 'web', 'web'), httpd('api-1', 'api', 'api'), client, service('web', 'web'), service('api', 'api')];
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  await k.ok(['wait', '--for=condition=Ready', 'pod', '-l', 'suite=net', '--timeout=90s'], { timeoutMs: 100_000 });
});

after(() => stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['pods,services,ingresses', '-l', 'suite=net']], label: 'network', started }));

test('a Service is reached by ClusterIP and by DNS name from another pod', async () => {
  const ip = (await k.ok(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  assert.ok(ip.startsWith('10.149.'), `cluster IP ${ip} from --service-cidr`);
  const byIP = await k.ok(['exec', 'client', '--', 'timeout', '3', 'wget', '-qO-', `http://${ip}/`]);
  assert.equal(byIP.trim(), 'web');
  for (const name of ['api', 'api.default', 'api.default.svc.cluster.local']) {
    const r = await k.run(['exec', 'client', '--', 'timeout', '3', 'wget', '-qO-', `http://${name}/api/`]);
    assert.equal(r.stdout.trim(), 'api-api', `${name}: ${r.stderr}`);
  }
  const lookup = await k.ok(['exec', 'client', '--', 'nslookup', 'web.default.svc.cluster.local']);
  assert.match(lookup, new RegExp(`Address:\\s+${ip.replace(/\./g, '\\.')}`));
  // pods ask the kube-dns Service IP of this cluster's own range
  assert.match(await k.ok(['exec', 'client', '--', 'cat', '/etc/resolv.conf']), /^nameserver 10\.149\.0\.10$/m);
});

test('a LoadBalancer Service answers on 127.0.0.1:<port> with status.loadBalancer.ingress set', async () => {
  const port = await freePort();
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ ...service('web-lb', 'web', { type: 'LoadBalancer' }), spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port, targetPort: 8080 }] } }) });
  const ingress = await until(async () => {
    const s = JSON.parse(await k.ok(['get', 'service', 'web-lb', '-o', 'json']));
    return s.status?.loadBalancer?.ingress?.length ? s.status.loadBalancer.ingress : undefined;
  }, 'the LoadBalancer status', 20_000);
  assert.deepEqual(ingress, [{ ip: '127.0.0.1', ipMode: 'VIP' }]);
  const r = await until(async () => (await get(port).catch(() => undefined)) ?? undefined, `127.0.0.1:${port}`, 10_000);
  assert.deepEqual(r, { status: 200, body: 'web' });
});

test('an Ingress routes two hosts and two paths from the host port to the Services', async () => {
  const m = /ingress controller serving http:\/\/127\.0\.0\.1:(\d+)/.exec(server!.log());
  assert.ok(m, 'the ingress controller port is logged');
  const port = Number(m[1]);
  const backend = (name: string) => ({ service: { name, port: { number: 80 } } });
  const ing = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'routes', labels: SUITE },
    spec: {
      rules: [
        { host: 'web.example.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('web') }, { path: '/api', pathType: 'Prefix', backend: backend('api') }] } },
        { host: 'api.example.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('api') }] } },
      ],
    },
  };
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(ing) });
  await until(async () => (await get(port, { host: 'web.example.test' })).body === 'web', 'the Ingress served', 10_000);
  assert.deepEqual(await get(port, { host: 'web.example.test', path: '/api/' }), { status: 200, body: 'api-api' });
  assert.deepEqual(await get(port, { host: 'api.example.test', path: '/' }), { status: 200, body: 'api' });
  assert.equal((await get(port, { host: 'other.example.test' })).status, 404, 'no rule and no default backend');
  const status = await until(async () => {
    const s = JSON.parse(await k.ok(['get', 'ingress', 'routes', '-o', 'json']));
    return s.status?.loadBalancer?.ingress?.length ? s.status.loadBalancer.ingress : undefined;
  }, 'the Ingress status', 10_000);
  assert.deepEqual(status, [{ ip: '127.0.0.1' }]);
});

test('the kubernetes Service reaches the API server from a pod, authenticated by its ServiceAccount token', async () => {
  // kube-apiserver's endpoint reconciler objects, pointing at the pod network's gateway and the API server's port
  const apiPort = Number(new URL(server!.url).port);
  const eps = JSON.parse(await k.ok(['get', 'endpoints', 'kubernetes', '-o', 'json']));
  assert.deepEqual(eps.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
  assert.deepEqual(eps.subsets, [{ addresses: [{ ip: '10.49.0.1' }], ports: [{ name: 'https', port: apiPort, protocol: 'TCP' }] }]);
  const slices = JSON.parse(await k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'json'])).items;
  assert.deepEqual(slices.map((s: { metadata: { name: string } }) => s.metadata.name), ['kubernetes']);
  const env = await k.ok(['exec', 'client', '--', 'sh', '-c', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT']);
  assert.equal(env.trim(), '10.149.0.1:443');
  // plain TCP through the Service IP
  const tcp = await k.run(['exec', 'client', '--', 'nc', '-w', '3', '10.149.0.1', '443', '-e', 'true']);
  assert.equal(tcp.code, 0, tcp.stdout + tcp.stderr + '\n' + (await k.run(['exec', 'client', '--', 'nc', '-w', '3', '10.49.0.1', String(apiPort), '-e', 'true'])).stderr);

  // in-cluster config: KUBERNETES_SERVICE_HOST/PORT, the projected token and ca.crt (the certificate must carry
  // the Service IP); discovery is open to every authenticated user
  const discovery = await k.run(['exec', 'client', '--', '/kubectl', 'get', '--raw', '/api']);
  assert.equal(discovery.code, 0, discovery.stderr);
  assert.equal(JSON.parse(discovery.stdout).kind, 'APIVersions');
  // the request is the ServiceAccount's (RBAC itself is not enforced by k1s yet: any authenticated user may list)
  const whoami = await k.run(['exec', 'client', '--', '/kubectl', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal(whoami.stdout.trim(), 'system:serviceaccount:default:default', whoami.stderr);
  const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
  // by the name in-cluster clients use (cluster DNS + the certificate's kubernetes.default.svc SAN)
  const byName = await k.run(['exec', 'client', '--', 'sh', '-c', `/kubectl --server https://kubernetes.default.svc --certificate-authority ${sa}/ca.crt --token "$(cat ${sa}/token)" get pods -o name`]);
  assert.equal(byName.code, 0, byName.stderr);
  assert.match(byName.stdout, /^pod\/client$/m);
  assert.match(byName.stdout, /^pod\/web-1$/m);
  // a token the API server did not sign is refused (401), through the same path
  const forged = await k.run(['exec', 'client', '--', '/kubectl', '--token', 'not-a-token', 'get', 'pods']);
  assert.notEqual(forged.code, 0);
  assert.match(forged.stderr, /You must be logged in to the server \(the server has asked for the client to provide credentials\)/);
});

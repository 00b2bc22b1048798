// Cluster networking with real pods: busybox httpd pods behind Services, reached by ClusterIP and DNS name from
// another pod, through a LoadBalancer Service on 127.0.0.1 and through the built-in ingress controller from the host,
// and the `kubernetes` Service: an in-cluster client (the static kubectl binary mounted into a busybox pod, using the
// pod's ServiceAccount token and CA) reaches the API server as that ServiceAccount. Its own bridge, pod network
// and Service range, so it runs beside the other real-node tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerdPaths, defaultCniBinDir } from '../../src/runtime/containerd-config.js';
import { freePort, kubectl, kubectlPath, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const BRIDGE = 'k1snet0';
const SERVICE_CIDR = '10.149.0.0/16';
// the CNI plugins through a directory of links of its own, which only --cni-bin-dir can point containerd at
const CNI_DIR = mkdtempSync(join(tmpdir(), 'k1s-e2e-cni-'));
for (const f of readdirSync(defaultCniBinDir())) symlinkSync(join(defaultCniBinDir(), f), join(CNI_DIR, f));
const NETWORK_ARGS = ['--cluster-cidr', '10.49.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', SERVICE_CIDR, '--cni-bin-dir', CNI_DIR];
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

/** an httpd answering its own pod name (from the downward API), for telling endpoints apart */
const namedHttpd = (name: string, app: string, grace: number) => {
  const pod = httpd(name, app, '$POD_NAME');
  pod.spec.terminationGracePeriodSeconds = grace;
  (pod.spec.containers[0] as Record<string, unknown>).env = [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
  return pod;
};

const service = (name: string, app: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, labels: SUITE },
  spec: { selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...extra },
});

/** one HTTP GET on a new connection: to `address` (default 127.0.0.1), with an optional Host header */
function get(port: number, opts: { address?: string; path?: string; host?: string; timeoutMs?: number } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = opts.host ? { host: opts.host } : {};
    const req = http.get({ host: opts.address ?? '127.0.0.1', port, path: opts.path ?? '/', headers, agent: false, timeout: opts.timeoutMs ?? 3000 }, (res) => {
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
  // a StatefulSet behind a headless Service: per-pod DNS names <pod>.db.default.svc.cluster.local
  const db = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', labels: SUITE },
    spec: {
      serviceName: 'db',
      replicas: 2,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { ...SUITE, app: 'db' } }, spec: httpd('x', 'db', 'db').spec },
    },
  };
  const items = [
    httpd('web-1', 'web', 'web'), httpd('api-1', 'api', 'api'), client, service('web', 'web'), service('api', 'api'),
    service('db', 'db', { clusterIP: 'None' }), db,
    // pair-a ignores SIGTERM (httpd is PID 1) for its whole 30 s grace period: only the proxy can stop its traffic
    namedHttpd('pair-a', 'pair', 30), namedHttpd('pair-b', 'pair', 1), service('pair', 'pair'),
  ];
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  await k.ok(['wait', '--for=condition=Ready', 'pod', '-l', 'suite=net', '--timeout=90s'], { timeoutMs: 100_000 });
});

after(async () => {
  await stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['rolebinding', 'client-view'], ['statefulsets', '-l', 'suite=net'], ['pods,services,ingresses', '-l', 'suite=net', '--grace-period=1']], label: 'network', started });
  rmSync(CNI_DIR, { recursive: true, force: true });
});

test('--cni-bin-dir points k1s\' containerd at the CNI plugins (the pods above got their network from there)', () => {
  const config = readFileSync(containerdPaths(dataDir).config, 'utf8');
  assert.match(config, new RegExp(`bin_dir = "${CNI_DIR.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
});

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
  // the request is the ServiceAccount's, and RBAC applies to it: nothing until a RoleBinding grants it
  const before = await k.run(['exec', 'client', '--', '/kubectl', 'get', 'pods']);
  assert.match(before.stderr, /pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"/);
  await k.ok(['create', 'rolebinding', 'client-view', '--clusterrole=view', '--serviceaccount=default:default']);
  const whoami = await k.run(['exec', 'client', '--', '/kubectl', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal(whoami.stdout.trim(), 'system:serviceaccount:default:default', whoami.stderr);
  const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
  // by the name in-cluster clients use (cluster DNS + the certificate's kubernetes.default.svc SAN)
  const byName = await k.run(['exec', 'client', '--', 'sh', '-c', `/kubectl --server https://kubernetes.default.svc --certificate-authority ${sa}/ca.crt --token "$(cat ${sa}/token)" get pods -o name`]);
  assert.equal(byName.code, 0, byName.stderr);
  assert.match(byName.stdout, /^pod\/client$/m);
  assert.match(byName.stdout, /^pod\/web-1$/m);
  // busybox wget's own TLS 1.2 (no signature_algorithms extension: the key exchange is signed with SHA-1, as Go's
  // TLS and so kube-apiserver allow) gets the same answer, by name and by the Service IP
  for (const host of ['kubernetes.default.svc', '10.149.0.1']) {
    const wget = await k.run(['exec', 'client', '--', 'sh', '-c', `timeout 5 wget -qO- --header "Authorization: Bearer $(cat ${sa}/token)" https://${host}/api/v1/namespaces/default/pods/client`]);
    assert.equal(wget.code, 0, wget.stderr);
    assert.equal(JSON.parse(wget.stdout).metadata.name, 'client');
  }
  // a token the API server did not sign is refused (401), through the same path
  const forged = await k.run(['exec', 'client', '--', '/kubectl', '--token', 'not-a-token', 'get', 'pods']);
  assert.notEqual(forged.code, 0);
  // kubectl words the 401 by where it met it: discovery (when its cache is cold) or the request itself
  assert.match(forged.stderr, /You must be logged in to the server \((the server has asked for the client to provide credentials|Unauthorized)\)/);
});

test('SRV records for named ports, of a ClusterIP Service and of a headless one, from a pod', async () => {
  const srv = await k.ok(['exec', 'client', '--', 'nslookup', '-type=srv', '_http._tcp.web.default.svc.cluster.local']);
  assert.match(srv, /service = 0 100 80 web\.default\.svc\.cluster\.local/, srv);
  await k.ok(['wait', '--for=condition=Ready', 'pod/db-0', 'pod/db-1', '--timeout=60s'], { timeoutMs: 70_000 });
  // headless: one record per ready pod, on the target port, named after the pod's hostname
  const headless = await until(async () => {
    const r = await k.run(['exec', 'client', '--', 'nslookup', '-type=srv', '_http._tcp.db.default.svc.cluster.local']);
    return /db-0\.db\.default\.svc\.cluster\.local/.test(r.stdout) && /db-1\.db\.default\.svc\.cluster\.local/.test(r.stdout) ? r.stdout : undefined;
  }, 'SRV records of both StatefulSet pods', 20_000);
  assert.match(headless, /service = 0 50 8080 db-0\.db\.default\.svc\.cluster\.local/, headless);
  assert.match(headless, /service = 0 50 8080 db-1\.db\.default\.svc\.cluster\.local/, headless);
});

test('a headless StatefulSet\'s pod names resolve to the pods, and the Service name to all of them', async () => {
  await k.ok(['wait', '--for=condition=Ready', 'pod/db-0', 'pod/db-1', '--timeout=60s'], { timeoutMs: 70_000 });
  const ip = async (pod: string) => (await k.ok(['get', 'pod', pod, '-o', 'jsonpath={.status.podIP}'])).trim();
  const [ip0, ip1] = [await ip('db-0'), await ip('db-1')];
  for (const [pod, podIP] of [['db-0', ip0], ['db-1', ip1]] as const) {
    const r = await until(async () => {
      const out = (await k.run(['exec', 'client', '--', 'nslookup', `${pod}.db.default.svc.cluster.local`])).stdout;
      return out.includes(`Address: ${podIP}`) ? out : undefined;
    }, `${pod}.db to resolve to ${podIP}`, 20_000);
    assert.doesNotMatch(r, /NXDOMAIN/);
    // and the pod answers there, by name, from another pod
    assert.equal((await k.ok(['exec', 'client', '--', 'timeout', '3', 'wget', '-qO-', `http://${pod}.db:8080/`])).trim(), 'db');
  }
  const all = await k.ok(['exec', 'client', '--', 'nslookup', 'db.default.svc.cluster.local']);
  assert.ok(all.includes(`Address: ${ip0}`) && all.includes(`Address: ${ip1}`), all);
  // the pod's own hostname and FQDN as the kubelet sets them (hostname + subdomain from the StatefulSet)
  assert.equal((await k.ok(['exec', 'db-0', '--', 'hostname'])).trim(), 'db-0');
});

test('a NodePort Service is reachable from the host on 127.0.0.1 and on the node address', async () => {
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(service('web-np', 'web', { type: 'NodePort' })) });
  const nodePort = Number((await k.ok(['get', 'service', 'web-np', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).trim());
  assert.ok(nodePort >= 30000 && nodePort <= 32767, `nodePort ${nodePort}`);
  const r = await until(async () => (await get(nodePort).catch(() => undefined)) ?? undefined, `127.0.0.1:${nodePort}`, 10_000);
  assert.deepEqual(r, { status: 200, body: 'web' });
  const node = JSON.parse(await k.ok(['get', 'nodes', '-o', 'json'])).items[0];
  const address = node.status.addresses.find((a: { type: string }) => a.type === 'InternalIP')?.address as string;
  assert.ok(address, 'the node has an InternalIP');
  const viaNode = await until(async () => (await get(nodePort, { address }).catch(() => undefined)) ?? undefined, `${address}:${nodePort}`, 10_000);
  assert.deepEqual(viaNode, { status: 200, body: 'web' });
});

test('the endpoints of a deleted pod stop receiving traffic within 1 s (while the pod itself still serves)', async () => {
  const ip = (await k.ok(['get', 'service', 'pair', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  // both pods answer through the ClusterIP from the host first
  const seen = new Set<string>();
  await until(async () => {
    const r = await get(80, { address: ip }).catch(() => undefined);
    if (r) seen.add(r.body);
    return seen.has('pair-a') && seen.has('pair-b');
  }, 'both pair pods behind the ClusterIP', 20_000);
  const trail: string[] = [];
  let stop = false;
  let deletedAt = 0;
  let lastA = 0;
  let afterDelete = 0;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      const r = await get(80, { address: ip, timeoutMs: 1000 }).catch((e: Error) => ({ status: 0, body: e.message }));
      if (deletedAt) {
        trail.push(`${Math.round(t - deletedAt)} ms: ${r.body}`);
        afterDelete++;
        if (r.body === 'pair-a') lastA = t - deletedAt;
      }
    }
  })();
  const t0 = performance.now();
  await k.ok(['delete', 'pod', 'pair-a', '--wait=false']);
  deletedAt = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  stop = true;
  await loop;
  // pair-a still runs (30 s grace, SIGTERM ignored): only the Service rules keep traffic away from it
  assert.match(await k.ok(['get', 'pod', 'pair-a', '-o', 'jsonpath={.metadata.deletionTimestamp}']), /\d{4}-/);
  assert.ok(afterDelete > 10, `requests after the delete: ${afterDelete}`);
  assert.ok(lastA <= 1000, `pair-a answered ${Math.round(lastA)} ms after the delete returned (kubectl took ${Math.round(deletedAt - t0)} ms):\n${trail.join('\n')}`);
  const late = trail.filter((l) => Number(l.split(' ')[0]) > 1000);
  assert.ok(late.length > 0 && late.every((l) => l.endsWith(': pair-b')), trail.join('\n'));
  console.log(`pair-a's last answer ${Math.round(lastA)} ms after the delete returned (kubectl delete took ${Math.round(deletedAt - t0)} ms)`);
  await k.run(['delete', 'pod', 'pair-a', '--grace-period=1', '--wait=false']);
});

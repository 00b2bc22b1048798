// Real pods: `k1s server` WITHOUT --disable-agent (its own containerd in a temp data dir), busybox loaded with
// `k1s image load`, driven by real kubectl 1.33 and 1.27. One server for the whole file; every pod is deleted before
// it stops, and the test checks that cgroups, network namespaces, IP reservations and mounts are gone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, startServer, kubectlPath, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
// its own pod network, so other real-node tests (and a developer's cluster) on this machine are left alone
const BRIDGE = 'k1spods0';
// own Service range too: clusters side by side on one range would answer each other's Service IPs (DNS)
const NETWORK_ARGS = ['--cluster-cidr', '10.44.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.144.0.0/16'];
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;
let k27: ReturnType<typeof kubectl>;
const uids = new Map<string, string>();
const netns = new Set<string>();
const started = Date.now();


function use(s: K1sServer): void {
  server = s;
  k = kubectl(s, '1.33');
  k27 = kubectl(s, '1.27');
}

const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { suite: 'pods' } }, spec: { terminationGracePeriodSeconds: 1, ...spec } });
const bb = (name: string, command: string, extra: Record<string, unknown> = {}) => ({ name, image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command], ...extra });

async function podJson(name: string): Promise<{ metadata: { uid: string }; status: Record<string, any> }> {
  return JSON.parse(await k.ok(['get', 'pod', name, '-o', 'json']));
}

/** the network namespaces (/var/run/netns names) the pod's processes are in, found through its cgroup */
function podNetns(uid: string): string[] {
  const names: string[] = [];
  const byIno = new Map<number, string>();
  for (const n of readdirSync('/var/run/netns')) byIno.set(statSync(join('/var/run/netns', n)).ino, n);
  for (const qos of ['', 'besteffort/', 'burstable/']) {
    const dir = `/sys/fs/cgroup/pids/kubepods/${qos}pod${uid}`;
    if (!existsSync(dir)) continue;
    for (const c of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      for (const pid of readFileSync(join(dir, c.name, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        const n = byIno.get(statSync(`/proc/${pid}/ns/net`).ino);
        if (n) names.push(n);
      }
    }
  }
  return [...new Set(names)];
}

before(async () => {
  const node = await startRealNode('pods', NETWORK_ARGS);
  dataDir = node.dataDir;
  use(node.server);
});

after(() => stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['deployments,pods,configmaps', '-l', 'suite=pods']], label: 'pods', started }));

test('a busybox pod runs with a pod-network IP (kubectl 1.33 and 1.27)', async () => {
  const t0 = performance.now();
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('hello', { containers: [bb('main', 'echo hello; sleep 3600')] })) });
  await k.ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/hello', '--timeout=60s']);
  console.log(`apply → Running for 1 pod: ${Math.round(performance.now() - t0)} ms (two kubectl runs included)`);
  const p = await podJson('hello');
  assert.match(p.status.podIP, /^10\.44\.\d+\.\d+$/);
  assert.equal(p.status.containerStatuses[0].ready, true);
  uids.set('hello', p.metadata.uid);
  for (const n of podNetns(p.metadata.uid)) netns.add(n);
  assert.ok(netns.size > 0, 'the pod has its own network namespace');
  const row = await k27.ok(['get', 'pod', 'hello', '--no-headers', '-o', 'wide']);
  assert.match(row, /^hello\s+1\/1\s+Running\s+0\s+\S+\s+10\.44\.\d+\.\d+\s/);
});

test('kubectl logs, exec and port-forward reach the pod (1.33 over WebSocket, 1.27 over SPDY)', async () => {
  for (const kc of [k, k27]) {
    assert.match(await kc.ok(['logs', 'hello']), /^hello$/m, `kubectl ${kc.version} logs`);
    assert.equal((await kc.ok(['exec', 'hello', '--', 'sh', '-c', 'echo from-exec'])).trim(), 'from-exec', `kubectl ${kc.version} exec`);
    const failed = await kc.run(['exec', 'hello', '--', 'sh', '-c', 'exit 3']);
    assert.equal(failed.code, 3, `kubectl ${kc.version} exec passes the exit code on`);
  }
  const web = pod('web', {
    containers: [bb('main', 'mkdir -p /www && echo served-by-web > /www/index.html && exec httpd -f -p 8080 -h /www', { readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 } })],
  });
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(web) });
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
  uids.set('web', (await podJson('web')).metadata.uid);
  for (const version of ['1.33', '1.27']) {
    const pf = spawn(kubectlPath(version), ['port-forward', 'pod/web', ':8080'], { env: { KUBECONFIG: server!.kubeconfig, HOME: dataDir } });
    try {
      const port = await new Promise<number>((res, rej) => {
        let out = '';
        const timer = setTimeout(() => rej(new Error(`no forwarding line from kubectl ${version}: ${out}`)), 20_000);
        const on = (d: Buffer) => {
          out += d;
          const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(out);
          if (m) {
            clearTimeout(timer);
            res(Number(m[1]));
          }
        };
        pf.stdout.on('data', on);
        pf.stderr.on('data', on);
      });
      const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      assert.equal(body.trim(), 'served-by-web', `kubectl ${version} port-forward`);
    } finally {
      pf.kill();
    }
  }
});

test('cluster DNS answers in pods: search path, Services in any namespace, NXDOMAIN', async () => {
  // busybox's nslookup does not walk the search list (the docs use dnsutils for that): check resolv.conf instead
  const resolv = await k.ok(['exec', 'hello', '--', 'cat', '/etc/resolv.conf']);
  assert.match(resolv, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m);
  assert.match(resolv, /^options ndots:5$/m);
  const lookup = await k.run(['exec', 'hello', '--', 'nslookup', 'kubernetes.default.svc.cluster.local']);
  assert.equal(lookup.code, 0, lookup.stderr + lookup.stdout);
  assert.match(lookup.stdout, /10\.144\.0\.1\b/);
  const dns = await k.ok(['exec', 'hello', '--', 'nslookup', 'kube-dns.kube-system.svc.cluster.local']);
  assert.match(dns, /10\.144\.0\.10\b/);
  const missing = await k.run(['exec', 'hello', '--', 'nslookup', 'nope.default.svc.cluster.local']);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stdout + missing.stderr, /NXDOMAIN|can't find/);
});

test('a Service routes a pod to a busybox httpd by DNS name (service proxy, cluster DNS on the kube-dns IP)', async () => {
  const served = pod('svc-backend', {
    containers: [bb('main', 'mkdir -p /www && echo via-service > /www/index.html && exec httpd -f -p 8080 -h /www', { readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 } })],
  });
  const backend = { ...served, metadata: { ...served.metadata, labels: { suite: 'pods', app: 'svc-backend' } } };
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'backend' }, spec: { selector: { app: 'svc-backend' }, ports: [{ port: 80, targetPort: 8080 }] } };
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [backend, svc] }) });
  await k.ok(['wait', '--for=condition=Ready', 'pod/svc-backend', '--timeout=60s']);
  uids.set('svc-backend', (await podJson('svc-backend')).metadata.uid);
  // pods ask the kube-dns Service IP, which only works through the service proxy
  assert.match(await k.ok(['exec', 'hello', '--', 'cat', '/etc/resolv.conf']), /^nameserver 10\.144\.0\.10$/m);
  const body = await until(async () => {
    const r = await k.run(['exec', 'hello', '--', 'timeout', '3', 'wget', '-qO-', 'http://backend.default.svc.cluster.local']);
    return r.code === 0 && r.stdout.trim() === 'via-service' && r.stdout;
  }, 'wget through the backend Service', 15_000);
  assert.equal(body.trim(), 'via-service');
  await k.ok(['delete', 'service', 'backend']);
});

test('crash loop, liveness, readiness, init containers, OOM kill and configMap updates', async () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', labels: { suite: 'pods' } }, data: { greeting: 'v1' } };
  const items = [
    cm,
    pod('crash', { containers: [bb('main', 'echo oops; exit 2')] }),
    pod('live', { containers: [bb('main', 'sleep 3600', { livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 } })] }),
    pod('ready', { containers: [bb('main', 'sleep 4; touch /tmp/ready; sleep 3600', { readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1 } })] }),
    pod('init', {
      initContainers: [bb('first', 'echo init-ran > /work/order', { volumeMounts: [{ name: 'w', mountPath: '/work' }] })],
      containers: [bb('main', 'cat /work/order > /dev/termination-log; echo main-ran >> /work/order; sleep 3600', { volumeMounts: [{ name: 'w', mountPath: '/work' }], readinessProbe: { exec: { command: ['grep', '-q', 'init-ran', '/work/order'] }, periodSeconds: 1 } })],
      volumes: [{ name: 'w', emptyDir: {} }],
    }),
    pod('oom', { restartPolicy: 'Never', containers: [bb('main', 'x=$(head -c 60000000 /dev/zero | tr "\\0" x); sleep 1', { resources: { limits: { memory: '20Mi' } } })] }),
    pod('cm', { containers: [bb('main', 'sleep 3600', { volumeMounts: [{ name: 'c', mountPath: '/etc/conf' }] })], volumes: [{ name: 'c', configMap: { name: 'conf' } }] }),
  ];
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });

  // readiness gates Ready: running but not ready first, ready once the probe passes
  const early = await until(async () => {
    const p = await podJson('ready');
    return p.status.phase === 'Running' && p.status;
  }, 'ready to run', 30_000);
  assert.equal(early.containerStatuses[0].ready, false);
  assert.equal(early.conditions.find((c: { type: string }) => c.type === 'Ready').status, 'False');
  await k.ok(['wait', '--for=condition=Ready', 'pod/ready', '--timeout=30s']);

  // the init container ran to completion before the main container started
  await k.ok(['wait', '--for=condition=Ready', 'pod/init', '--timeout=30s']);
  const init = await podJson('init');
  assert.equal(init.status.initContainerStatuses[0].state.terminated.reason, 'Completed');
  assert.ok(Date.parse(init.status.initContainerStatuses[0].state.terminated.finishedAt) <= Date.parse(init.status.containerStatuses[0].state.running.startedAt));

  // OOMKilled, shown as the STATUS column of a real cluster
  await until(async () => /^oom\s+0\/1\s+OOMKilled\s/.test(await k.ok(['get', 'pod', 'oom', '--no-headers'])), 'oom to be OOMKilled', 30_000);
  const oom = await podJson('oom');
  assert.equal(oom.status.containerStatuses[0].state.terminated.exitCode, 137);
  assert.equal(oom.status.phase, 'Failed');

  // liveness failure kills and restarts the container
  const live = await until(async () => {
    const p = await podJson('live');
    return p.status.containerStatuses?.[0]?.restartCount >= 1 && p.status;
  }, 'live to restart', 30_000);
  assert.ok(live.containerStatuses[0].lastState.terminated);
  const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=live', '-o', 'jsonpath={.items[*].reason}']);
  assert.match(events, /Killing/);
  assert.match(events, /Unhealthy/);

  // the configMap update reaches the mounted file
  await k.ok(['wait', '--for=condition=Ready', 'pod/cm', '--timeout=30s']);
  const uid = (await podJson('cm')).metadata.uid;
  const file = join(dataDir, 'agent', 'kubelet', 'pods', uid, 'volumes', 'kubernetes.io~configmap', 'c', 'greeting');
  assert.equal(readFileSync(file, 'utf8'), 'v1');
  await k.ok(['patch', 'configmap', 'conf', '--type=merge', '-p', '{"data":{"greeting":"v2"}}']);
  await until(async () => readFileSync(file, 'utf8') === 'v2', 'the configMap update to reach the volume', 60_000);

  // CrashLoopBackOff with growing back-off: two restarts take 10 s of back-off in between
  const crash = await until(async () => {
    const p = await podJson('crash');
    const s = p.status.containerStatuses?.[0];
    return s?.restartCount >= 2 && s.state.waiting?.reason === 'CrashLoopBackOff' && s;
  }, 'crash to loop', 60_000);
  assert.equal(crash.lastState.terminated.exitCode, 2);
  assert.equal(crash.lastState.terminated.reason, 'Error');
  // the delay doubles per restart: 10 s after the first, 20 s after the second, …
  const delay = Math.min(10 * 2 ** (crash.restartCount - 1), 300);
  assert.match(crash.state.waiting.message, new RegExp(`^back-off ${delay >= 60 ? `${Math.floor(delay / 60)}m${delay % 60}s` : `${delay}s`} restarting failed container=main pod=crash_default\\(`));
  assert.match(await k27.ok(['get', 'pod', 'crash', '--no-headers']), /^crash\s+0\/1\s+CrashLoopBackOff\s+[2-9]/);
  for (const n of ['crash', 'live', 'ready', 'init', 'oom', 'cm']) uids.set(n, (await podJson(n)).metadata.uid);
});

test('a Deployment of 10 busybox replicas becomes Available', async () => {
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'many', labels: { suite: 'pods' } },
    spec: {
      replicas: 10,
      selector: { matchLabels: { app: 'many' } },
      template: { metadata: { labels: { app: 'many', suite: 'pods' } }, spec: { terminationGracePeriodSeconds: 1, containers: [bb('main', 'sleep 3600')] } },
    },
  };
  const t0 = performance.now();
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(deploy) });
  await k.ok(['wait', '--for=condition=Available', 'deployment/many', '--timeout=90s']);
  await until(async () => (await k.ok(['get', 'deployment', 'many', '-o', 'jsonpath={.status.readyReplicas}'])) === '10', '10 ready replicas', 60_000);
  console.log(`10 replicas ready in ${Math.round(performance.now() - t0)} ms`);
});

/** containerID and restartCount of every running container of the suite's pods */
async function runningContainers(): Promise<Map<string, string>> {
  const list = JSON.parse(await k.ok(['get', 'pods', '-l', 'suite=pods', '-o', 'json'])) as { items: { metadata: { name: string; uid: string }; status: Record<string, any> }[] };
  const out = new Map<string, string>();
  for (const p of list.items) {
    uids.set(p.metadata.name, p.metadata.uid);
    for (const s of p.status.containerStatuses ?? []) if (s.state.running) out.set(`${p.metadata.name}/${s.name}`, `${s.containerID} restarts=${s.restartCount}`);
  }
  return out;
}

test('k1s restarted with pods running: nothing is restarted', async () => {
  const before = await runningContainers();
  assert.ok(before.size >= 12, `running containers: ${before.size}`);
  assert.equal(await server!.stop(), 0);
  use(await startServer({ dataDir, agent: true, extraArgs: NETWORK_ARGS }));
  assert.match(server!.log(), /k1s: agent: CRI runtime \S+: \d+ pods found running/);
  // give the adopted pods' workers a few syncs
  await new Promise((r) => setTimeout(r, 3000));
  const afterRestart = await runningContainers();
  for (const [name, v] of before) {
    if (name.startsWith('live/') || name.startsWith('crash/')) continue; // these restart on their own
    assert.equal(afterRestart.get(name), v, name);
  }
});

test('containerd killed: it comes back and the pods keep running', async () => {
  const pid = Number(readFileSync(join(dataDir, 'agent', 'containerd', 'containerd.pid'), 'utf8'));
  const before = await runningContainers();
  process.kill(pid, 'SIGKILL');
  await until(async () => /containerd back after \d+ ms/.test(server!.log()), 'containerd to restart', 30_000);
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(pod('after-crash', { containers: [bb('main', 'sleep 3600')] })) });
  await k.ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/after-crash', '--timeout=60s']);
  const now = await runningContainers();
  assert.equal(now.get('hello/main'), before.get('hello/main'));
  assert.equal((await podJson('hello')).status.phase, 'Running');
});

test('after every pod is deleted, cgroups, network namespaces, IPs and mounts are gone', async () => {
  await k.ok(['delete', 'deployment', 'many', '--wait=true']);
  await k.ok(['delete', 'pods', '-l', 'suite=pods', '--wait=true', '--timeout=90s'], { timeoutMs: 120_000 });
  await until(async () => (await k.ok(['get', 'pods', '-o', 'name'])).trim() === '', 'every pod to be gone', 60_000);
  // the kubelet removes what it made right after the API drops the pod
  await until(async () => {
    for (const uid of uids.values()) {
      for (const h of readdirSync('/sys/fs/cgroup')) {
        for (const qos of ['', 'besteffort/', 'burstable/']) if (existsSync(`/sys/fs/cgroup/${h}/kubepods/${qos}pod${uid}`)) return false;
      }
      if (existsSync(join(dataDir, 'agent', 'kubelet', 'pods', uid))) return false;
    }
    return true;
  }, 'pod cgroups and directories to be removed', 30_000);
  for (const n of netns) assert.equal(existsSync(join('/var/run/netns', n)), false, `netns ${n}`);
  const ipam = join(dataDir, 'agent', 'cni', 'networks', `k1s-pod-network-${BRIDGE}`);
  const reserved = existsSync(ipam) ? readdirSync(ipam).filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f)) : [];
  assert.deepEqual(reserved, []);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4] ?? '').filter((m) => m.startsWith(dataDir));
  assert.deepEqual(mounts, []);
  assert.deepEqual(readdirSync(join(dataDir, 'agent', 'pods')), []);
});

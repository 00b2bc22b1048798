// exec / attach / port-forward / cp / logs with real kubectl 1.27 (SPDY, proxied byte for byte) and 1.33
// (WebSockets, translated to SPDY by the API server) through the API server, the kubelet server and containerd's
// streaming server, against a real busybox container.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run, kubectlPath } from '../../e2e/harness.js';
import { boundPod, running, streamsCluster, type StreamsCluster } from '../apiserver/pod-streams-harness.js';
import { runtimeFixture, type RuntimeFixture } from './kubelet-server-fixture.js';

let rt: RuntimeFixture;
let c: StreamsCluster;
let webPort = 0;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

before(async () => {
  rt = await runtimeFixture();
  c = await streamsCluster(rt.streams());
  webPort = await freePort();
  const app = await rt.run('app', ['sh', '-c', 'echo started; exec sleep 3600']);
  const echoer = await rt.run('echoer', ['sh', '-c', 'while read l; do echo "got $l"; done'], { stdin: true });
  const web = await rt.run('web', ['sh', '-c', `mkdir -p /tmp/www && echo hello-pf > /tmp/www/index.html && exec httpd -f -p 127.0.0.1:${webPort} -h /tmp/www`]);
  await c.createPod(boundPod('p', ['app', 'echoer', 'web']), {
    phase: 'Running',
    containerStatuses: [running('app', app), running('echoer', echoer), running('web', web)],
  });
}, { timeout: 30_000 });
after(async () => {
  await c?.close();
  await rt?.close();
});

const env = () => ({ KUBECONFIG: c.kubeconfig, HOME: c.dir });
const kubectl = (v: string, args: string[], input?: string) => run(kubectlPath(v), args, { env: env(), input, timeoutMs: 20_000 });

for (const v of ['1.27', '1.33']) {
  test(`kubectl ${v} exec: stdout, stderr, stdin and the exit code`, async () => {
    assert.deepEqual(await kubectl(v, ['exec', 'p', '-c', 'app', '--', 'echo', 'hello', 'world']), { code: 0, stdout: 'hello world\n', stderr: '' });
    const err = await kubectl(v, ['exec', 'p', '-c', 'app', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    assert.equal(err.code, 3);
    assert.equal(err.stdout, 'out\n');
    assert.match(err.stderr, /^err\ncommand terminated with exit code 3\n$/);
    const cat = await kubectl(v, ['exec', '-i', 'p', '-c', 'app', '--', 'wc', '-c'], 'x'.repeat(100_000));
    assert.equal(cat.stdout.trim(), '100000');
  });

  test(`kubectl ${v} cp both ways`, async () => {
    const local = join(c.dir, `cp-${v}.txt`);
    writeFileSync(local, `copied by ${v}\n`);
    assert.equal((await kubectl(v, ['cp', local, `p:/tmp/cp-${v}.txt`, '-c', 'app'])).code, 0);
    assert.equal((await kubectl(v, ['exec', 'p', '-c', 'app', '--', 'cat', `/tmp/cp-${v}.txt`])).stdout, `copied by ${v}\n`);
    const back = join(c.dir, `back-${v}.txt`);
    const r = await kubectl(v, ['cp', `p:/tmp/cp-${v}.txt`, back, '-c', 'app']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(back, 'utf8'), `copied by ${v}\n`);
  });

  test(`kubectl ${v} port-forward serves the container's httpd on localhost`, async () => {
    const local = await freePort();
    const child = spawn(kubectlPath(v), ['port-forward', 'pod/p', `${local}:${webPort}`, '-v=6'], { env: { ...process.env, ...env() } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const end = Date.now() + 10_000;
      while (!out.includes('Forwarding from')) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`port-forward did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 2; i++) {
        const body = await new Promise<string>((resolve, reject) => {
          httpGet(`http://127.0.0.1:${local}/index.html`, { agent: false }, (res) => {
            let b = '';
            res.on('data', (d) => (b += d));
            res.on('end', () => resolve(b));
          }).on('error', reject);
        });
        assert.equal(body, 'hello-pf\n');
      }
      if (v === '1.33') {
        // the WebSocket tunnel was used, not the SPDY fallback
        assert.match(out, /negotiated protocol: portforward\.k8s\.io/);
        assert.doesNotMatch(out, /fallback/);
      }
    } finally {
      child.kill();
    }
  });
}

for (const v of ['1.27', '1.33']) {
  test(`kubectl ${v} attach -i reaches the container's stdin and streams its output`, async () => {
    // containerd detaches stdout when stdin closes (stdinOnce is off), so stdin stays open until the answer is seen
    const child = spawn(kubectlPath(v), ['attach', '-i', 'p', '-c', 'echoer'], { env: { ...process.env, ...env() } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    try {
      child.stdin.write(`there-${v}\n`);
      const end = Date.now() + 10_000;
      while (!out.includes(`got there-${v}`)) {
        if (Date.now() > end) throw new Error(`no answer from the container: ${JSON.stringify(out)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.stdin.end();
      assert.equal(await exited, 0);
    } finally {
      child.kill();
    }
  });
}

test('kubectl logs of a real container through CRI log_path', async () => {
  const r = await kubectl('1.33', ['logs', 'p', '-c', 'app']);
  assert.equal(r.stdout, 'started\n');
});

function upgrade(path: string, headers: Record<string, string> = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' }, method = 'POST'): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(c.url + path, { method, headers, ca: c.ca.certPem, cert: c.admin.certPem, key: c.admin.keyPem, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ code: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

test('upgrade errors are Status objects worded as kube words them', async () => {
  const base = '/api/v1/namespaces/default/pods';
  const nope = await upgrade(`${base}/nope/exec?command=true&stdout=true`);
  assert.deepEqual([nope.code, JSON.parse(nope.body).message], [404, 'pods "nope" not found']);
  const multi = await upgrade(`${base}/p/exec?command=true&stdout=true`);
  assert.deepEqual([multi.code, JSON.parse(multi.body).message], [400, 'a container name must be specified for pod p, choose one of: [app echoer web]']);
  const bad = await upgrade(`${base}/p/exec?command=true&stdout=true&container=zzz`);
  assert.deepEqual([bad.code, JSON.parse(bad.body).message], [400, 'container zzz is not valid for pod p']);
  // no stream asked for: the kubelet's answer comes back through the proxy
  const none = await upgrade(`${base}/p/exec?command=true&container=app`);
  assert.deepEqual([none.code, none.body], [400, 'you must specify at least 1 of stdin, stdout, stderr']);
  // a WebSocket subprotocol this server does not translate fails the handshake (kubectl then retries over SPDY)
  const ws = await upgrade(`${base}/p/exec?command=true&stdout=true&container=app`, { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'base64.channel.k8s.io' });
  assert.equal(ws.code, 400);
  // port-forward over the WebSocket channel protocol names its ports in the query, or the kubelet refuses it
  const wsHeaders = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  const noPorts = await upgrade(`${base}/p/portforward`, { ...wsHeaders, 'Sec-WebSocket-Protocol': 'v4.channel.k8s.io' }, 'GET');
  assert.deepEqual([noPorts.code, noPorts.body], [400, 'query parameter "port" is required']);
  // over the tunnelling protocol (kubectl 1.31+) the ports come in the streams' headers instead
  assert.equal((await upgrade(`${base}/p/portforward`, { ...wsHeaders, 'Sec-WebSocket-Protocol': 'SPDY/3.1+portforward.k8s.io' }, 'GET')).code, 101);
  const ok = await upgrade(`${base}/p/exec?command=true&stdout=true&container=app`);
  assert.equal(ok.code, 101);
});

test('kubectl 1.33 exec speaks v5.channel.k8s.io over WebSocket, without falling back to SPDY', async () => {
  const r = await kubectl('1.33', ['exec', 'p', '-c', 'app', '-v=6', '--', 'echo', 'ws']);
  assert.equal(r.stdout, 'ws\n');
  assert.match(r.stderr, /verb="GET" url="[^"]+\/pods\/p\/exec\?[^"]*" status="101 Switching Protocols"/);
  assert.match(r.stderr, /The subprotocol is v5\.channel\.k8s\.io/);
  assert.doesNotMatch(r.stderr, /fallback/i);
});

test('WebSocket v5.channel.k8s.io exec is translated to SPDY: channels 1, 2 and the exit status on 3', async () => {
  const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
  const q = 'container=app&stdin=true&stdout=true&stderr=true&command=sh&command=-c&command=cat%3B+echo+err+%3E%262%3B+exit+2';
  const sock = new WebSocket(`${c.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/p/exec?${q}`, ['v5.channel.k8s.io'], {
    ca: c.ca.certPem, cert: c.admin.certPem, key: c.admin.keyPem,
  });
  const got: { ch: number; data: string }[] = [];
  const closed = new Promise<void>((resolve, reject) => {
    sock.on('message', (d: Buffer) => got.push({ ch: d[0], data: d.subarray(1).toString() }));
    sock.on('close', () => resolve());
    sock.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => sock.on('open', resolve).on('error', reject));
  assert.equal(sock.protocol, 'v5.channel.k8s.io');
  sock.send(Buffer.concat([Buffer.from([0]), Buffer.from('from stdin\n')]));
  sock.send(Buffer.from([255, 0])); // v5: stdin is done
  await closed;
  const on = (ch: number) => got.filter((m) => m.ch === ch).map((m) => m.data).join('');
  assert.deepEqual(got[0], { ch: 1, data: '' }, 'an empty stdout message announces the connection');
  assert.equal(on(1), 'from stdin\n');
  assert.equal(on(2), 'err\n');
  const status = JSON.parse(on(3));
  assert.equal(status.status, 'Failure');
  assert.equal(status.reason, 'NonZeroExitCode');
  assert.deepEqual(status.details.causes, [{ reason: 'ExitCode', message: '2' }]);
});

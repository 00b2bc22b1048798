// Requests per second through the ingress and through a LoadBalancer port versus straight to the backend, in the
// same run (keep-alive clients, fixed concurrency). The client and the proxies share this process (the backend runs
// in a child process), so the ratios are pessimistic. Figures are printed as diagnostics.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { startIngressController, type IngressController } from '../../../../src/network/ingress/controller.js';
import { startServiceLoadBalancer, type ServiceLoadBalancer } from '../../../../src/network/service-lb/load-balancer.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { createIngress, ingress } from './fixtures.js';
import { createService, createSlice, freePort, hostIPv4, type Backend } from '../service-lb/fixtures.js';

const CONCURRENCY = 16;
// the backend runs in its own process, so it does not compete with the client and the proxies for one event loop
const BACKEND_JS = `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ backend: 'bench', url: req.url })); }); });
s.listen(0, process.argv[1], () => console.log(s.address().port));
`;

async function processBackend(): Promise<{ backend: Backend; child: ChildProcess }> {
  const host = hostIPv4();
  const child = spawn(process.execPath, ['-e', BACKEND_JS, host], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const port = Number(String(line).trim());
  return { child, backend: { name: 'bench', host, port, close: async () => void child.kill() } };
}
const DURATION_MS = 700;

async function measure(host: string, port: number, hostHeader: string): Promise<{ rps: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const end = Date.now() + DURATION_MS;
  let ok = 0;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.get({ host, port, path: '/bench', headers: { host: hostHeader }, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) ok++;
          else errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const start = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  return { rps: Math.round((ok * 1000) / (Date.now() - start)), errors };
}

describe('ingress and LoadBalancer throughput', () => {
  let c: ControllerCluster;
  let ctl: IngressController;
  let lb: ServiceLoadBalancer;
  let be: Backend;
  let lbPort: number;

  before(async () => {
    c = await controllerCluster([]);
    be = (await processBackend()).backend;
    lbPort = await freePort();
    ctl = await startIngressController({ client: c.client, httpPort: 0, httpsPort: 0, address: '127.0.0.1', log: () => undefined });
    lb = await startServiceLoadBalancer({ client: c.client, log: () => undefined });
    await createService(c.client, 'default', 'bench', { type: 'LoadBalancer', ports: [{ port: lbPort }] });
    await createSlice(c.client, 'default', 'bench', 'bench-1', be);
    await createIngress(c.client, ingress('bench', [{ host: 'bench.test', paths: [{ path: '/', service: 'bench', port: lbPort }] }]));
    await c.waitFor('ingress route', async () => (await measureOnce(ctl.ports.http, 'bench.test')) === 200);
    await c.waitFor('LB listener', async () => (await measureOnce(lbPort, 'x')) === 200);
  });
  after(async () => {
    await ctl?.stop();
    await lb?.stop();
    await be?.close();
    await c?.close();
  });

  it('serves through the ingress and the LoadBalancer port at a useful fraction of direct throughput', async (t) => {
    // three alternating rounds, best of each: the first round also warms up the JIT and the machine is shared
    const best = (a: { rps: number; errors: number }, b: { rps: number; errors: number }) => ({ rps: Math.max(a.rps, b.rps), errors: a.errors + b.errors });
    let direct = { rps: 0, errors: 0 };
    let viaIngress = { rps: 0, errors: 0 };
    let viaLb = { rps: 0, errors: 0 };
    for (let round = 0; round < 3; round++) {
      direct = best(direct, await measure(be.host, be.port, 'bench.test'));
      viaIngress = best(viaIngress, await measure('127.0.0.1', ctl.ports.http, 'bench.test'));
      viaLb = best(viaLb, await measure('127.0.0.1', lbPort, 'bench.test'));
    }
    const line = `requests/s (concurrency ${CONCURRENCY}, keep-alive): direct ${direct.rps}, ingress ${viaIngress.rps} (${(viaIngress.rps / direct.rps).toFixed(2)}x), LoadBalancer ${viaLb.rps} (${(viaLb.rps / direct.rps).toFixed(2)}x)`;
    t.diagnostic(line);
    console.log(line);
    assert.equal(direct.errors + viaIngress.errors + viaLb.errors, 0);
    // a userspace hop costs; it must stay within an order of magnitude of direct on a loaded machine
    assert.ok(viaIngress.rps > direct.rps * 0.1, line);
    assert.ok(viaLb.rps > direct.rps * 0.1, line);
  });
});

function measureOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

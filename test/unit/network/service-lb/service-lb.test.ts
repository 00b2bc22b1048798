import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { startServiceLoadBalancer, type ServiceLoadBalancer } from '../../../../src/network/service-lb/load-balancer.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { createService, createSlice, eventsFor, freePort, tcpBackend, tcpRead, udpAsk, udpBackend, type Backend } from './fixtures.js';

const NS = 'default';
const lbStatus = (svc: KObject) => (svc.status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress;

describe('LoadBalancer Services on localhost', () => {
  let c: ControllerCluster;
  let lb: ServiceLoadBalancer;
  const backends: Backend[] = [];
  const svcs = () => c.client.resource('v1', 'services');
  const refused = (port: number) => tcpRead(port).then(() => false, (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET');

  before(async () => {
    c = await controllerCluster([]);
    lb = await startServiceLoadBalancer({ client: c.client, address: '127.0.0.1', log: () => undefined });
  });
  after(async () => {
    await lb?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await c?.close();
  });

  it('listens on 127.0.0.1:<port>, round-robins over ready endpoints, reports the address and closes when the type changes', async () => {
    const [a, b, notReady] = await Promise.all([tcpBackend('a'), tcpBackend('b'), tcpBackend('not-ready')]);
    backends.push(a, b, notReady);
    const port = await freePort();
    await createService(c.client, NS, 'web', { type: 'LoadBalancer', ports: [{ name: 'http', port }] });
    await createSlice(c.client, NS, 'web', 'web-a', a, { portName: 'http' });
    await createSlice(c.client, NS, 'web', 'web-b', b, { portName: 'http' });
    await createSlice(c.client, NS, 'web', 'web-c', notReady, { portName: 'http', ready: false });
    const svc = await c.waitFor('status.loadBalancer', async () => {
      const s = await svcs().get(NS, 'web');
      return lbStatus(s)?.length ? s : undefined;
    });
    assert.deepEqual(lbStatus(svc), [{ ip: '127.0.0.1', ipMode: 'VIP' }]);
    assert.deepEqual(svc.metadata.finalizers, ['service.kubernetes.io/load-balancer-cleanup']);
    // allocateLoadBalancerNodePorts is left alone: the API server still allocated a node port
    assert.ok((svc.spec as { ports: { nodePort?: number }[] }).ports[0].nodePort);
    await c.waitFor('both endpoints in the proxy', async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) seen.add(await tcpRead(port));
      return seen.size === 2 && seen.has('a') && seen.has('b');
    });
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await tcpRead(port));
    assert.ok(!replies.includes('not-ready'));
    assert.equal(replies.filter((r) => r === 'a').length, 3, `round-robin: ${replies.join(',')}`);
    const events = await eventsFor(c.client, NS, 'web');
    assert.ok(events.some((e) => e.reason === 'EnsuringLoadBalancer' && e.message === 'Ensuring load balancer'));
    assert.ok(events.some((e) => e.reason === 'EnsuredLoadBalancer' && e.message === 'Ensured load balancer'));

    // no longer a LoadBalancer: the listener goes, the status is cleared
    const cur = await svcs().get(NS, 'web');
    await svcs().update(NS, { ...cur, spec: { ...(cur.spec as object), type: 'ClusterIP', ports: [{ name: 'http', port }] } } as KObject);
    await c.waitFor('status and finalizer cleared', async () => {
      const s = await svcs().get(NS, 'web');
      return !lbStatus(s)?.length && !s.metadata.finalizers?.length;
    });
    await c.waitFor('listener closed', () => refused(port));
    assert.equal(lb.listening().size, 0);
  });

  it('leaves a Service pending with a Warning naming the port when the port is taken, then serves it once free', async () => {
    const be = await tcpBackend('late');
    backends.push(be);
    const blocker = net.createServer((s) => s.end('blocker'));
    const port = await freePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      await createService(c.client, NS, 'busy', { type: 'LoadBalancer', ports: [{ port }] });
      await createSlice(c.client, NS, 'busy', 'busy-1', be);
      const warn = await c.waitFor('SyncLoadBalancerFailed event', async () =>
        (await eventsFor(c.client, NS, 'busy')).find((e) => e.reason === 'SyncLoadBalancerFailed'),
      );
      assert.equal(warn.type, 'Warning');
      assert.equal(warn.message, `Error syncing load balancer: failed to ensure load balancer: listen tcp 127.0.0.1:${port}: bind: address already in use`);
      assert.equal(lbStatus(await svcs().get(NS, 'busy'))?.length ?? 0, 0);
      assert.equal(await tcpRead(port), 'blocker');
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
    await c.waitFor('ensured after the port is freed', async () => lbStatus(await svcs().get(NS, 'busy'))?.length, 15_000);
    assert.equal(await tcpRead(port), 'late');
    await svcs().delete(NS, 'busy');
    await c.waitFor('listener closed after delete', () => refused(port));
    // the cleanup finalizer is removed once the listener is closed, so the Service goes
    await c.waitFor('service gone', () => svcs().get(NS, 'busy').then(() => false, (e: { code?: number }) => e.code === 404));
    assert.ok((await eventsFor(c.client, NS, 'busy')).some((e) => e.reason === 'DeletedLoadBalancer'));
  });

  it('a port another Service holds leaves the second pending until it moves to a free port or the holder goes', async () => {
    const [one, two] = await Promise.all([tcpBackend('one'), tcpBackend('two')]);
    backends.push(one, two);
    const [port, other] = [await freePort(), await freePort()];
    await createService(c.client, NS, 'holder', { type: 'LoadBalancer', ports: [{ port }] });
    await createSlice(c.client, NS, 'holder', 'holder-1', one);
    await c.waitFor('holder ensured', async () => lbStatus(await svcs().get(NS, 'holder'))?.length);
    await createService(c.client, NS, 'second', { type: 'LoadBalancer', ports: [{ port }] });
    await createSlice(c.client, NS, 'second', 'second-1', two);
    const warn = await c.waitFor('SyncLoadBalancerFailed on the second', async () =>
      (await eventsFor(c.client, NS, 'second')).find((e) => e.reason === 'SyncLoadBalancerFailed'),
    );
    assert.equal(warn.message, `Error syncing load balancer: failed to ensure load balancer: listen tcp 127.0.0.1:${port}: bind: address already in use`);
    assert.equal(lbStatus(await svcs().get(NS, 'second'))?.length ?? 0, 0);
    assert.equal(await tcpRead(port), 'one', 'the holder keeps its port');

    // the pending Service changes its port to a free one: it gets its address there
    const moveTo = async (p: number) => {
      const cur = await svcs().get(NS, 'second');
      await svcs().update(NS, { ...cur, spec: { ...(cur.spec as object), ports: [{ port: p }] } } as KObject);
    };
    await moveTo(other);
    await c.waitFor('second ensured on its new port', async () => lbStatus(await svcs().get(NS, 'second'))?.length);
    assert.equal(await tcpRead(other), 'two');

    // back to the held port: pending again (status cleared); deleting the holder frees the port and the pending
    // Service takes it at once rather than after its back-off
    await moveTo(port);
    await c.waitFor('second pending again', async () => !lbStatus(await svcs().get(NS, 'second'))?.length);
    await new Promise((r) => setTimeout(r, 3500)); // retries at ~0, 1 and 3 s: the next one is ~4 s away
    const freedAt = Date.now();
    await svcs().delete(NS, 'holder');
    await c.waitFor('second ensured once the holder is gone', async () => lbStatus(await svcs().get(NS, 'second'))?.length, 10_000);
    const took = Date.now() - freedAt;
    assert.ok(took < 2000, `took over the freed port in ${took} ms`);
    assert.equal(await tcpRead(port), 'two');
    await svcs().delete(NS, 'second');
    await c.waitFor('second gone', () => svcs().get(NS, 'second').then(() => false, (e: { code?: number }) => e.code === 404));
  });

  it('proxies UDP ports and ignores Services of another loadBalancerClass', async () => {
    const u = await udpBackend('dns');
    backends.push(u);
    const port = await freePort();
    await createService(c.client, NS, 'udp', { type: 'LoadBalancer', ports: [{ name: 'dns', port, protocol: 'UDP' }] });
    await createSlice(c.client, NS, 'udp', 'udp-1', u, { portName: 'dns', protocol: 'UDP' });
    await c.waitFor('udp status', async () => lbStatus(await svcs().get(NS, 'udp'))?.length);
    assert.equal(await c.waitFor('udp answer', () => udpAsk(port, 'hello', '127.0.0.1', 300)), 'dns:hello');

    const other = await freePort();
    await createService(c.client, NS, 'other', { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', ports: [{ port: other }] });
    await createService(c.client, NS, 'marker', { type: 'LoadBalancer', ports: [{ port: await freePort() }] });
    // services are handled in order: once the later one is ensured, the earlier one was seen and skipped
    await c.waitFor('marker ensured', async () => lbStatus(await svcs().get(NS, 'marker'))?.length);
    assert.equal(lbStatus(await svcs().get(NS, 'other'))?.length ?? 0, 0);
    assert.ok(await refused(other));
    assert.deepEqual((await eventsFor(c.client, NS, 'other')).length, 0);
  });
});

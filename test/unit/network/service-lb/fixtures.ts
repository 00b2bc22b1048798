// Backends for the LoadBalancer and ingress tests: small node servers on this machine, referenced from Services
// without selectors by manual EndpointSlices. EndpointSlice validation refuses loopback addresses, so backends
// listen on the host's first non-loopback IPv4 address.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import type { KObject } from '../../../../src/api/types.js';
import type { Client } from '../../../../src/client/types.js';

export function hostIPv4(): string {
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('these tests need a non-loopback IPv4 address (EndpointSlices may not point at 127.0.0.0/8)');
}

export interface Backend {
  name: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * An HTTP backend answering `{ backend, url, headers }` as JSON; an Upgrade request gets a 101 and then echoes
 * every byte back prefixed by the backend's name.
 */
export async function httpBackend(name: string): Promise<Backend> {
  const host = hostIPv4();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ backend: name, url: req.url, headers: req.headers }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${req.headers.upgrade}\r\nConnection: Upgrade\r\nX-Backend: ${name}\r\n\r\n`);
    socket.on('data', (d) => socket.write(`${name}:${d}`));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    name,
    host,
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A TCP backend that writes its name and closes, and a UDP backend that answers `<name>:<datagram>`. */
export async function tcpBackend(name: string): Promise<Backend> {
  const host = hostIPv4();
  const server = net.createServer((s) => s.end(name));
  await new Promise<void>((r) => server.listen(0, host, r));
  return { name, host, port: (server.address() as net.AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function udpBackend(name: string): Promise<Backend> {
  const host = hostIPv4();
  const sock = dgram.createSocket('udp4');
  sock.on('message', (m, r) => sock.send(`${name}:${m}`, r.port, r.address));
  await new Promise<void>((r) => sock.bind(0, host, r));
  return { name, host, port: sock.address().port, close: () => new Promise<void>((r) => sock.close(() => r())) };
}

export interface SvcPort {
  name?: string;
  port: number;
  protocol?: string;
}

export async function createService(client: Client, ns: string, name: string, spec: { type?: string; ports: SvcPort[]; loadBalancerClass?: string }): Promise<KObject> {
  return client.resource('v1', 'services').create(ns, { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec } as KObject);
}

/** One manual EndpointSlice per backend (each backend has its own port). */
export async function createSlice(client: Client, ns: string, svc: string, sliceName: string, b: Backend, opts: { portName?: string; protocol?: string; ready?: boolean } = {}): Promise<KObject> {
  return client.resource('discovery.k8s.io/v1', 'endpointslices').create(ns, {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: sliceName, namespace: ns, labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    ports: [{ name: opts.portName ?? '', port: b.port, protocol: opts.protocol ?? 'TCP' }],
    endpoints: [{ addresses: [b.host], conditions: { ready: opts.ready ?? true } }],
  } as KObject);
}

/** A free TCP port on 127.0.0.1 (closed again before returning). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function tcpRead(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let data = '';
    s.on('data', (d) => (data += d));
    s.on('end', () => resolve(data));
    s.on('error', reject);
  });
}

export function udpAsk(port: number, msg: string, host = '127.0.0.1', timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const t = setTimeout(() => {
      s.close();
      reject(new Error('udp timeout'));
    }, timeoutMs);
    s.on('message', (m) => {
      clearTimeout(t);
      s.close();
      resolve(String(m));
    });
    s.send(msg, port, host);
  });
}

export async function eventsFor(client: Client, ns: string, name: string): Promise<{ reason: string; type: string; message: string }[]> {
  const list = await client.resource('v1', 'events').list(ns);
  return (list.items as unknown as { involvedObject: { name: string }; reason: string; type: string; message: string }[])
    .filter((e) => e.involvedObject.name === name)
    .map((e) => ({ reason: e.reason, type: e.type, message: e.message }));
}

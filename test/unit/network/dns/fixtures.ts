// Helpers of the cluster DNS tests: a real in-process k1s API, the DNS server on 127.0.0.1:<free port>, a small
// client over real UDP/TCP sockets (dns-packet on the wire), and a fake upstream resolver on 127.0.0.1.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type RecordType } from 'dns-packet';
import type { KObject } from '../../../../src/api/types.js';
import { controllerCluster, waitFor, type ControllerCluster } from '../../controllers/harness.js';
import { startClusterDNS, type ClusterDNS, type ClusterDNSOptions } from '../../../../src/network/dns/server.js';

export type Reply = DecodedPacket & { rcode: string; /** bytes on the wire (UDP) */ size?: number };

export interface QueryOptions {
  transport?: 'udp' | 'tcp';
  /** advertise this EDNS0 UDP size (no OPT record when unset) */
  edns?: number;
  timeoutMs?: number;
}

export function query(port: number, name: string, type: RecordType, opts: QueryOptions = {}): Promise<Reply> {
  const msg = dnsPacket.encode({
    type: 'query',
    id: Math.floor(Math.random() * 65536),
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type, class: 'IN' }],
    additionals: opts.edns
      ? [{ type: 'OPT', name: '.', udpPayloadSize: opts.edns, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }]
      : [],
  });
  return opts.transport === 'tcp' ? rawTcp(port, msg, opts.timeoutMs) : rawUdp(port, msg, opts.timeoutMs);
}

/** Sends bytes over UDP; resolves with the decoded reply, or undefined-as-reject after the timeout. */
export function rawUdp(port: number, msg: Buffer, timeoutMs = 2000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      reject(new Error('no UDP reply'));
    }, timeoutMs);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      try {
        resolve(Object.assign(dnsPacket.decode(m), { size: m.length }) as unknown as Reply);
      } catch (e) {
        reject(e);
      }
    });
    s.send(msg, port, '127.0.0.1');
  });
}

export function rawTcp(port: number, msg: Buffer, timeoutMs = 2000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const c = net.connect({ port, host: '127.0.0.1' });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error('no TCP reply'));
    }, timeoutMs);
    c.on('connect', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(msg.length);
      c.write(Buffer.concat([len, msg]));
    });
    c.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      clearTimeout(timer);
      c.destroy();
      resolve(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))) as Reply);
    });
  });
}

/** The data of every answer of one type, sorted (for order-free comparisons). */
export function dataOf(r: Reply, type: string): unknown[] {
  return (r.answers ?? []).filter((a) => a.type === type).map((a) => (a as { data: unknown }).data).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

export interface FakeUpstream {
  port: number;
  /** questions received, `name|type` */
  received: string[];
  close(): Promise<void>;
}

/** A resolver on 127.0.0.1 answering from a table; unknown names get NXDOMAIN with a SOA (TTL 60). */
export async function fakeUpstream(table: Record<string, Answer[]>, opts: { truncateUdp?: boolean } = {}): Promise<FakeUpstream> {
  const received: string[] = [];
  const answer = (m: Buffer): Buffer => {
    const q = dnsPacket.decode(m);
    const qq = q.questions![0];
    received.push(`${qq.name}|${qq.type}`);
    const answers = (table[`${qq.name.toLowerCase()}|${qq.type}`] ?? []).map((a) => ({ ...a, name: qq.name }) as Answer);
    const known = Object.keys(table).some((k) => k.startsWith(`${qq.name.toLowerCase()}|`));
    const soa: Answer = { name: 'example', type: 'SOA', ttl: 60, class: 'IN', data: { mname: 'ns.example', rname: 'h.example', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 } };
    return dnsPacket.encode({
      type: 'response',
      id: q.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : 3),
      questions: q.questions,
      answers,
      authorities: answers.length ? [] : [soa],
    });
  };
  const udp = dgram.createSocket('udp4');
  udp.on('message', (m, r) => {
    if (opts.truncateUdp) {
      const q = dnsPacket.decode(m);
      received.push(`${q.questions![0].name}|${q.questions![0].type}|udp`);
      udp.send(dnsPacket.encode({ type: 'response', id: q.id, flags: dnsPacket.TRUNCATED_RESPONSE, questions: q.questions }), r.port, r.address);
      return;
    }
    udp.send(answer(m), r.port, r.address);
  });
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  const port = udp.address().port;
  const tcp = net.createServer((c) => {
    c.on('error', () => undefined);
    c.on('data', (d) => {
      const out = answer(d.subarray(2, 2 + d.readUInt16BE(0)));
      const len = Buffer.alloc(2);
      len.writeUInt16BE(out.length);
      c.end(Buffer.concat([len, out]));
    });
  });
  await new Promise<void>((r) => tcp.listen(port, '127.0.0.1', r));
  return {
    port,
    received,
    close: async () => {
      udp.close();
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}

export interface DnsCluster {
  cc: ControllerCluster;
  dns: ClusterDNS;
  port: number;
  apply(obj: KObject): Promise<KObject>;
  close(): Promise<void>;
}

/** A real in-process API plus the DNS server on 127.0.0.1 (free port), ready. */
export async function dnsCluster(opts: Partial<ClusterDNSOptions> = {}): Promise<DnsCluster> {
  const cc = await controllerCluster([], { serviceAccounts: false });
  const dns = startClusterDNS({ client: cc.client, listen: [{ address: '127.0.0.1', port: 0 }], upstreams: [], ...opts });
  try {
    await dns.ready;
  } catch (e) {
    await dns.stop();
    await cc.close();
    throw e;
  }
  const port = dns.addresses()[0].port;
  return {
    cc,
    dns,
    port,
    apply: (obj) => {
      const plural = obj.kind === 'EndpointSlice' ? 'endpointslices' : `${obj.kind!.toLowerCase()}s`;
      return cc.client.resource(obj.apiVersion!, plural).create(obj.metadata.namespace ?? '', obj);
    },
    async close() {
      await dns.stop();
      await cc.close();
    },
  };
}

export function namespace(name: string): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

export function service(ns: string, name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec };
}

export function slice(ns: string, svc: string, name: string, endpoints: unknown[], ports: unknown[] = [], addressType = 'IPv4'): KObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': svc } },
    addressType,
    endpoints,
    ports,
  } as KObject;
}

/** Waits until the server answers `name` with `rcode` (informers are eventually consistent). */
export function until(port: number, name: string, type: RecordType, pred: (r: Reply) => boolean): Promise<Reply> {
  return waitFor(`${name} ${type}`, async () => {
    const r = await query(port, name, type);
    return pred(r) ? r : undefined;
  }, 5000);
}

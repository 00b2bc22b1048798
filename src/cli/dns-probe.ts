// One DNS question over UDP, as `dig +notcp` asks it: what `k1s start` uses to know that cluster DNS answers.
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import dnsPacket from 'dns-packet';

export interface DnsProbeResult {
  /** the response code (NOERROR, NXDOMAIN, SERVFAIL, …) */
  rcode: string;
  /** A records in the answer section */
  addresses: string[];
}

/** Asks `server`:`port` for the A records of `name`; rejects on timeout or a malformed reply. */
export function queryA(server: string, name: string, opts: { port?: number; timeoutMs?: number } = {}): Promise<DnsProbeResult> {
  const id = randomInt(1, 0xffff);
  const query = dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name, class: 'IN' }] });
  const socket = dgram.createSocket(server.includes(':') ? 'udp6' : 'udp4');
  return new Promise<DnsProbeResult>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer from ${server}:${opts.port ?? 53} within ${opts.timeoutMs ?? 1000} ms`)), opts.timeoutMs ?? 1000);
    function finish(result: Error | DnsProbeResult) {
      clearTimeout(timer);
      socket.close();
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    socket.on('error', (e) => finish(e));
    socket.on('message', (msg) => {
      let res: ReturnType<typeof dnsPacket.decode>;
      try {
        res = dnsPacket.decode(msg);
      } catch (e) {
        finish(new Error(`malformed DNS reply from ${server}: ${(e as Error).message}`));
        return;
      }
      if (res.id !== id) return; // a late reply to an earlier probe
      const rcode = (res as { rcode?: string }).rcode ?? 'NOERROR';
      const addresses = (res.answers ?? []).filter((a) => a.type === 'A').map((a) => String((a as { data?: unknown }).data));
      finish({ rcode, addresses });
    });
    socket.send(query, opts.port ?? 53, server, (e) => {
      if (e) finish(e);
    });
  });
}

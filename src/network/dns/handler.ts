// One DNS message in, one out: decode with dns-packet, answer from the cluster records or forward, encode, and
// truncate for UDP. Garbage never throws: a readable header gets FORMERR, anything shorter is dropped, and a
// message that is itself a response is dropped (answering responses is how two servers loop forever).
import dnsPacket, { type Answer, type DecodedPacket, type OptAnswer, type Packet, type Question } from 'dns-packet';
import type { ClusterDnsRecords, Resolution } from './records.js';
import type { DnsForwarder, ForwardResult } from './forward.js';
import { normalizeName } from './names.js';

const RCODES: Record<string, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };
const QR = 0x8000;
const MAX_CNAME_CHAIN = 8;
/** the EDNS buffer size this server advertises (the DNS flag day 2020 value) */
const EDNS_SIZE = 1232;

export interface DnsHandlerOptions {
  records: ClusterDnsRecords;
  forwarder: DnsForwarder;
  /** forwarded questions allowed in flight at once; beyond it REFUSED (CoreDNS forward's max_concurrent) */
  maxConcurrentForwards?: number;
}

/** encoded cluster answers kept for reuse (they only change when the informers do) */
const MAX_CACHED_REPLIES = 10_000;
/** longer queries (large EDNS options) are answered without the cache */
const MAX_CACHED_QUERY = 512;

export class DnsHandler {
  private forwarding = 0;
  private readonly maxForwards: number;
  private readonly replies = new Map<string, { gen: number; buf: Buffer }>();

  constructor(private readonly opts: DnsHandlerOptions) {
    this.maxForwards = opts.maxConcurrentForwards ?? 1000;
  }

  /** The reply to one message, or undefined when there is nothing to reply to. */
  async handle(msg: Buffer, transport: 'udp' | 'tcp'): Promise<Buffer | undefined> {
    if (msg.length < 12 || msg.readUInt16BE(2) & QR) return undefined;
    // a cluster answer is a pure function of the message after its id (flags, question, EDNS size), the transport
    // and the informer caches: a repeated question reuses the encoded reply without being decoded at all
    const records = this.opts.records;
    const key = msg.length <= MAX_CACHED_QUERY ? transport + msg.toString('latin1', 2) : undefined;
    const hit = key === undefined ? undefined : this.replies.get(key);
    if (hit && hit.gen === records.generation) {
      const buf = Buffer.from(hit.buf);
      buf.writeUInt16BE(msg.readUInt16BE(0), 0);
      return buf;
    }
    let req: DecodedPacket;
    try {
      req = dnsPacket.decode(msg);
    } catch {
      return headerOnly(msg, RCODES.FORMERR);
    }
    const opt = (req.additionals ?? []).find((a): a is OptAnswer => a.type === 'OPT');
    const limit = transport === 'tcp' ? 65535 : Math.max(512, Math.min(opt?.udpPayloadSize ?? 512, 65535));
    const rd = (req.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
    const opcode = ((req.flags ?? 0) >> 11) & 0xf;
    const questions = req.questions ?? [];
    if (opcode !== 0) return encodeReply({ id: req.id, flags: (opcode << 11) | rd | RCODES.NOTIMP, questions }, opt, limit);
    if (questions.length !== 1) return encodeReply({ id: req.id, flags: rd | RCODES.FORMERR, questions }, opt, limit);
    const q = questions[0];
    let flags: number;
    let res: Resolution | ForwardResult;
    const gen = records.generation;
    const local = records.resolve(q.name, q.type);
    if (local) {
      res = local.chase ? await this.chase(local) : local;
      flags = dnsPacket.AUTHORITATIVE_ANSWER | rd | (RCODES[res.rcode] ?? 2);
      const out = encodeReply({ id: req.id, flags, questions, answers: res.answers, authorities: res.authorities, additionals: res.additionals }, opt, limit);
      // answers that went upstream (ExternalName targets) or before sync are not kept
      if (key !== undefined && !local.chase && local.rcode !== 'SERVFAIL' && gen === records.generation) {
        if (this.replies.size >= MAX_CACHED_REPLIES) this.replies.clear();
        this.replies.set(key, { gen, buf: out });
      }
      return out;
    } else if (this.forwarding >= this.maxForwards) {
      return encodeReply({ id: req.id, flags: rd | RCODES.REFUSED, questions }, opt, limit);
    } else {
      res = await this.forward(q);
      flags = (res.flags & ~0xf) | rd | (RCODES[res.rcode] ?? 2);
    }
    return encodeReply({ id: req.id, flags, questions, answers: res.answers, authorities: res.authorities, additionals: res.additionals }, opt, limit);
  }

  private async forward(q: Question): Promise<ForwardResult> {
    this.forwarding++;
    try {
      return await this.opts.forwarder.query(q);
    } finally {
      this.forwarding--;
    }
  }

  /** Follows an ExternalName CNAME: inside the zone from the records, outside through the upstreams. */
  private async chase(res: Resolution): Promise<Resolution> {
    let cur = res;
    const answers = [...res.answers];
    for (let i = 0; cur.chase && i < MAX_CNAME_CHAIN; i++) {
      const { target, type } = cur.chase;
      if (this.opts.records.inZone(normalizeName(target))) {
        const next = this.opts.records.resolve(target, type);
        if (!next || next.rcode !== 'NOERROR') break;
        answers.push(...next.answers);
        cur = next;
      } else {
        const up = await this.forward({ name: target, type });
        if (up.rcode === 'NOERROR') answers.push(...up.answers.filter((a) => !answers.some((b) => sameRecord(a, b))));
        break;
      }
    }
    return { ...res, answers };
  }
}

function sameRecord(a: Answer, b: Answer): boolean {
  return a.type === b.type && a.name.toLowerCase() === b.name.toLowerCase() && JSON.stringify((a as { data?: unknown }).data) === JSON.stringify((b as { data?: unknown }).data);
}

/** Encodes a response; over the size limit it drops additional then answer records and sets TC (RFC 2181 9). */
export function encodeReply(p: Packet, opt: OptAnswer | undefined, limit: number): Buffer {
  const additionals = (p.additionals ?? []).filter((a) => a.type !== 'OPT');
  const ednsOpt: Answer[] = opt
    ? [{ type: 'OPT', name: '.', udpPayloadSize: EDNS_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }]
    : [];
  const out: Packet = { ...p, type: 'response', additionals: [...additionals, ...ednsOpt] };
  const full = dnsPacket.encode(out);
  if (full.length <= limit) return full;
  out.flags = (out.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE;
  out.additionals = ednsOpt;
  const answers = [...(p.answers ?? [])];
  out.authorities = [];
  out.answers = answers;
  while (answers.length && dnsPacket.encodingLength(out) > limit) answers.pop();
  return dnsPacket.encode(out);
}

/** A reply carrying only the request's id and an rcode, for messages dns-packet cannot read. */
function headerOnly(msg: Buffer, rcode: number): Buffer {
  const rd = msg.readUInt16BE(2) & dnsPacket.RECURSION_DESIRED;
  return dnsPacket.encode({ type: 'response', id: msg.readUInt16BE(0), flags: rd | rcode, questions: [] });
}

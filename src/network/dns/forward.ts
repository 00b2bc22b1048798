// Forwarding of names outside the cluster zone to the host's resolvers (CoreDNS' `forward . /etc/resolv.conf` +
// `cache 30`). Upstreams come from /etc/resolv.conf; when that lists only a loopback stub (systemd-resolved's
// 127.0.0.53) the real servers are read from /run/systemd/resolve/resolv.conf, and an upstream that is this server
// itself is never used: that loop is what breaks CoreDNS in kind. Answers are cached briefly (positive and negative,
// TTLs counted down); identical questions in flight share one upstream query; no answer from any upstream is
// SERVFAIL. UDP first, TCP when the upstream truncates.
import dgram from 'node:dgram';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { randomInt } from 'node:crypto';
import dnsPacket, { type Answer, type DecodedPacket, type Question } from 'dns-packet';

export interface Upstream {
  address: string;
  port: number;
}

export interface ForwardResult {
  rcode: string;
  /** the upstream's flags (RA, AD…), without QR/opcode/rcode */
  flags: number;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
}

export interface DnsForwarderOptions {
  /** explicit upstreams; default: read from resolvConf */
  upstreams?: Upstream[];
  resolvConf?: string;
  systemdResolvConf?: string;
  /** where this server listens: never forwarded to */
  self?: Upstream[];
  /** per-upstream timeout (default 2000 ms) */
  timeoutMs?: number;
  /** cap on cached TTLs, positive and negative, in seconds (default 30, as kubeadm's `cache 30`) */
  maxCacheTtl?: number;
  maxCacheEntries?: number;
  now?: () => number;
  log?: (line: string) => void;
}

interface CacheEntry {
  result: ForwardResult;
  storedAt: number;
  ttl: number;
}

/** dns-packet's decoded header also names the rcode (its typings omit it) */
type Reply = DecodedPacket & { rcode?: string };

interface Pending {
  resolve(p: Reply): void;
  timer: NodeJS.Timeout;
  upstream: Upstream;
  question: Question;
}

/** Reads resolvers from resolv.conf files, applying the loopback-stub and never-myself rules. */
export async function readUpstreams(opts: { resolvConf?: string; systemdResolvConf?: string; self?: Upstream[] } = {}): Promise<Upstream[]> {
  const main = await nameservers(opts.resolvConf ?? '/etc/resolv.conf');
  let list = main;
  if (list.length && list.every((u) => isLoopback(u.address))) {
    const real = await nameservers(opts.systemdResolvConf ?? '/run/systemd/resolve/resolv.conf');
    if (real.length) list = real;
  }
  return list.filter((u) => !(opts.self ?? []).some((s) => sameEndpoint(s, u)));
}

async function nameservers(path: string): Promise<Upstream[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const out: Upstream[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (m && net.isIP(m[1].split('%')[0])) out.push({ address: m[1], port: 53 });
  }
  return out;
}

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

/** Whether a query sent to `u` would arrive at the listener `s` (wildcard listeners catch local addresses). */
function sameEndpoint(s: Upstream, u: Upstream): boolean {
  if (s.port !== u.port) return false;
  if (s.address === u.address) return true;
  return (s.address === '0.0.0.0' || s.address === '::') && isLoopback(u.address);
}

export class DnsForwarder {
  private upstreams: Upstream[] = [];
  private preferred = 0;
  private sockets = new Map<4 | 6, dgram.Socket>();
  private readonly pending = new Map<number, Pending>();
  private readonly inflight = new Map<string, Promise<ForwardResult>>();
  private readonly cache = new Map<string, CacheEntry>();
  private readonly timeoutMs: number;
  private readonly maxTtl: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: DnsForwarderOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.maxTtl = opts.maxCacheTtl ?? 30;
    this.maxEntries = opts.maxCacheEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    const self = this.opts.self ?? [];
    this.upstreams = this.opts.upstreams
      ? this.opts.upstreams.filter((u) => !self.some((s) => sameEndpoint(s, u)))
      : await readUpstreams({ resolvConf: this.opts.resolvConf, systemdResolvConf: this.opts.systemdResolvConf, self });
    if (!this.upstreams.length) this.opts.log?.('k1s: cluster DNS: no upstream resolvers; names outside the cluster get SERVFAIL');
  }

  get resolvers(): readonly Upstream[] {
    return this.upstreams;
  }

  /** Resolves one question upstream (or from the cache). Never throws: failures are SERVFAIL. */
  query(q: Question): Promise<ForwardResult> {
    const key = `${q.name.toLowerCase().replace(/\.$/, '')}|${q.type}|${q.class ?? 'IN'}`;
    const hit = this.fromCache(key, q.name);
    if (hit) return Promise.resolve(hit);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.ask(q).then((r) => {
        this.inflight.delete(key);
        return this.store(key, r);
      });
      this.inflight.set(key, p);
    }
    return p.then((r) => withName(r, q.name));
  }

  close(): void {
    this.closed = true;
    for (const s of this.sockets.values()) s.close();
    this.sockets.clear();
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }

  private async ask(q: Question): Promise<ForwardResult> {
    const n = this.upstreams.length;
    for (let i = 0; i < n && !this.closed; i++) {
      const idx = (this.preferred + i) % n;
      const up = this.upstreams[idx];
      let res = await this.udp(up, q);
      if (res?.flag_tc) res = await this.tcp(up, q);
      if (!res || res.rcode === 'SERVFAIL' || res.rcode === 'REFUSED') continue;
      this.preferred = idx;
      return {
        rcode: res.rcode ?? 'NOERROR',
        flags: (res.flags ?? 0) & ~0x780f & ~dnsPacket.TRUNCATED_RESPONSE,
        answers: res.answers ?? [],
        authorities: res.authorities ?? [],
        additionals: (res.additionals ?? []).filter((a) => a.type !== 'OPT'),
      };
    }
    return { rcode: 'SERVFAIL', flags: 0, answers: [], authorities: [], additionals: [] };
  }

  private message(q: Question, id: number): Buffer {
    return dnsPacket.encode({
      type: 'query',
      id,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: q.name, type: q.type, class: q.class ?? 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
    });
  }

  private socket(family: 4 | 6): dgram.Socket {
    let s = this.sockets.get(family);
    if (s) return s;
    s = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
    s.on('error', (e) => this.opts.log?.(`k1s: cluster DNS forwarder socket: ${e.message}`));
    s.on('message', (msg, rinfo) => this.onReply(msg, rinfo));
    s.unref();
    this.sockets.set(family, s);
    return s;
  }

  private udp(up: Upstream, q: Question): Promise<Reply | undefined> {
    return new Promise((resolve) => {
      let id = randomInt(0, 65536);
      for (let i = 0; this.pending.has(id) && i < 100; i++) id = randomInt(0, 65536);
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
      }, this.timeoutMs);
      this.pending.set(id, { resolve, timer, upstream: up, question: q });
      this.socket(net.isIP(up.address.split('%')[0]) === 6 ? 6 : 4).send(this.message(q, id), up.port, up.address, (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(undefined);
      });
    });
  }

  private onReply(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    let res: Reply;
    try {
      res = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const p = res.id === undefined ? undefined : this.pending.get(res.id);
    // only the upstream asked, answering the question asked, is believed (spoofed or stale replies are dropped)
    if (!p || rinfo.port !== p.upstream.port || rinfo.address !== p.upstream.address.split('%')[0]) return;
    const rq = res.questions?.[0];
    if (!rq || rq.name.toLowerCase() !== p.question.name.toLowerCase().replace(/\.$/, '') || rq.type !== p.question.type) return;
    clearTimeout(p.timer);
    this.pending.delete(res.id!);
    p.resolve(res);
  }

  private tcp(up: Upstream, q: Question): Promise<Reply | undefined> {
    return new Promise((resolve) => {
      const sock = net.connect({ host: up.address, port: up.port });
      let buf = Buffer.alloc(0);
      const done = (r: Reply | undefined) => {
        clearTimeout(timer);
        sock.destroy();
        resolve(r);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      sock.on('error', () => done(undefined));
      sock.on('connect', () => {
        const m = this.message(q, randomInt(0, 65536));
        const len = Buffer.alloc(2);
        len.writeUInt16BE(m.length);
        sock.write(Buffer.concat([len, m]));
      });
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
        try {
          done(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
        } catch {
          done(undefined);
        }
      });
    });
  }

  private fromCache(key: string, name: string): ForwardResult | undefined {
    const e = this.cache.get(key);
    if (!e) return undefined;
    const age = Math.floor((this.now() - e.storedAt) / 1000);
    if (age >= e.ttl) {
      this.cache.delete(key);
      return undefined;
    }
    const dec = (a: Answer): Answer => ('ttl' in a && typeof a.ttl === 'number' ? { ...a, ttl: Math.max(0, a.ttl - age) } : a) as Answer;
    const r = e.result;
    return withName({ ...r, answers: r.answers.map(dec), authorities: r.authorities.map(dec), additionals: r.additionals.map(dec) }, name);
  }

  /** Caches a result and returns it with its TTLs capped at the cache's, as CoreDNS' cache rewrites them. */
  private store(key: string, r: ForwardResult): ForwardResult {
    if (r.rcode !== 'NOERROR' && r.rcode !== 'NXDOMAIN') return r;
    const ttls = r.answers.length
      ? r.answers.map((a) => ('ttl' in a ? (a.ttl ?? 0) : 0))
      : r.authorities.filter((a) => a.type === 'SOA').map((a) => Math.min(a.ttl ?? 0, (a.data as { minimum?: number }).minimum ?? 0));
    const ttl = Math.min(this.maxTtl, ttls.length ? Math.min(...ttls) : 5);
    if (ttl <= 0) return r;
    const cap = (a: Answer): Answer => ('ttl' in a && typeof a.ttl === 'number' && a.ttl > ttl ? ({ ...a, ttl } as Answer) : a);
    const capped = { ...r, answers: r.answers.map(cap), authorities: r.authorities.map(cap), additionals: r.additionals.map(cap) };
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { result: capped, storedAt: this.now(), ttl });
    return capped;
  }
}

/** The upstream answers in the spelling the client asked (0x20 case randomisation survives the cache). */
function withName(r: ForwardResult, name: string): ForwardResult {
  const asked = name.replace(/\.$/, '');
  const lower = asked.toLowerCase();
  const fix = (a: Answer): Answer => (a.name.toLowerCase() === lower ? ({ ...a, name: asked } as Answer) : a);
  return { ...r, answers: r.answers.map(fix) };
}

// A small SPDY/3.1 client session, enough to speak Kubernetes' remotecommand protocol to a kubelet (or the runtime's
// streaming server behind it): SYN_STREAM out, DATA both ways, SYN_REPLY/RST_STREAM/GOAWAY in, PING echoed,
// SETTINGS/WINDOW_UPDATE/HEADERS accepted and ignored (the Go peer, moby/spdystream, does no flow control).
// Outgoing name/value header blocks are a zlib stream made of stored (uncompressed) deflate blocks, each ended like
// a sync flush, under the SPDY/3 dictionary's id: any zlib reader accepts that. Incoming header blocks are never
// needed (remotecommand and portforward servers reply with empty headers), so they are not inflated.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';

const VERSION = 3;
const enum FrameType {
  SynStream = 1,
  SynReply = 2,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  Headers = 8,
  WindowUpdate = 9,
}
const FLAG_FIN = 0x01;
const MAX_DATA = 0xffffff;

/** The SPDY/3 header compression dictionary (spdy-protocol-draft3 §2.6.10.1): length-prefixed words, then text. */
export function spdy3Dictionary(): Buffer {
  const words = [
    'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding',
    'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection',
    'content-base', 'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5',
    'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match',
    'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location',
    'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after',
    'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
    'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie',
    'keep-alive', 'origin',
  ];
  const tail =
    '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
    '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
    '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
    'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
    'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
    'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts: Buffer[] = [];
  for (const w of words) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    parts.push(len, Buffer.from(w, 'latin1'));
  }
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

function adler32(buf: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of buf) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** The writer side of the session's header compression context (one zlib stream for the whole connection). */
class HeaderWriter {
  private started = false;
  private static dictId: number | undefined;

  block(headers: Record<string, string>): Buffer {
    const entries = Object.entries(headers);
    const parts: Buffer[] = [u32(entries.length)];
    for (const [k, v] of entries) {
      const name = Buffer.from(k.toLowerCase(), 'utf8');
      const value = Buffer.from(v, 'utf8');
      parts.push(u32(name.length), name, u32(value.length), value);
    }
    const raw = Buffer.concat(parts);
    const out: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      // CMF 0x78 (deflate, 32K window), FLG with FDICT set and FCHECK making CMF*256+FLG a multiple of 31
      const cmf = 0x78;
      let flg = 0x20 | (2 << 6);
      flg += (31 - ((cmf * 256 + flg) % 31)) % 31;
      HeaderWriter.dictId ??= adler32(spdy3Dictionary());
      out.push(Buffer.from([cmf, flg]), u32(HeaderWriter.dictId));
    }
    for (let off = 0; off < raw.length; off += 0xffff) {
      const piece = raw.subarray(off, off + 0xffff);
      const hdr = Buffer.alloc(5);
      hdr[0] = 0x00; // BFINAL=0, BTYPE=00 (stored), padded to the byte boundary
      hdr.writeUInt16LE(piece.length, 1);
      hdr.writeUInt16LE(~piece.length & 0xffff, 3);
      out.push(hdr, piece);
    }
    // the empty stored block a sync flush ends with: without it Go's inflater reads past the frame looking for
    // the next block header, and its error sticks to the whole session
    out.push(Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]));
    return Buffer.concat(out);
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function controlFrame(type: FrameType, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(0x8000 | VERSION, 0);
  h.writeUInt16BE(type, 2);
  h.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([h, payload]);
}

export interface SpdyStream extends EventEmitter {
  readonly id: number;
  /** 'data' (Buffer), 'end' (peer sent FIN), 'reset' (RST_STREAM), 'reply' (SYN_REPLY) */
  on(event: 'data', cb: (chunk: Buffer) => void): this;
  on(event: 'end' | 'reset' | 'reply', cb: () => void): this;
  write(data: Buffer): void;
  /** half-closes our side (DATA with FIN) */
  end(): void;
}

class Stream extends EventEmitter implements SpdyStream {
  ended = false;
  constructor(
    readonly id: number,
    private readonly session: SpdySession,
  ) {
    super();
  }
  write(data: Buffer): void {
    for (let off = 0; off < data.length; off += MAX_DATA) this.session.sendData(this.id, data.subarray(off, off + MAX_DATA), false);
  }
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.session.sendData(this.id, Buffer.alloc(0), true);
  }
}

/** The client end of a SPDY/3.1 connection over an already upgraded socket. */
export class SpdySession extends EventEmitter {
  private nextId = 1;
  private readonly streams = new Map<number, Stream>();
  private readonly headers = new HeaderWriter();
  private buf: Buffer = Buffer.alloc(0);
  private closed = false;

  constructor(
    private readonly socket: Duplex,
    leftover: Buffer = Buffer.alloc(0),
  ) {
    super();
    socket.on('data', (d: Buffer) => this.receive(d));
    socket.on('close', () => this.shutdown());
    socket.on('error', () => this.shutdown());
    if (leftover.length) this.receive(leftover);
  }

  /** SYN_STREAM with the given headers (kubernetes uses `streamtype`, `port`, `requestid`). */
  open(headers: Record<string, string>): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const s = new Stream(id, this);
    this.streams.set(id, s);
    const head = Buffer.alloc(10);
    head.writeUInt32BE(id & 0x7fffffff, 0);
    head.writeUInt32BE(0, 4); // associated-to-stream-id
    head.writeUInt16BE(0, 8); // priority 0, slot 0
    this.write(controlFrame(FrameType.SynStream, 0, Buffer.concat([head, this.headers.block(headers)])));
    return s;
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    const h = Buffer.alloc(8);
    h.writeUInt32BE(id & 0x7fffffff, 0);
    h.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
    this.write(data.length ? Buffer.concat([h, data]) : h);
  }

  close(): void {
    if (!this.closed) this.write(controlFrame(FrameType.GoAway, 0, Buffer.concat([u32(0), u32(0)])));
    this.socket.end();
    this.shutdown();
  }

  private write(b: Buffer): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(b);
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.emit('reset');
    this.emit('close');
  }

  private receive(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 8) {
      const len = this.buf.readUInt32BE(4) & 0xffffff;
      if (this.buf.length < 8 + len) return;
      const frame = this.buf.subarray(0, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      this.frame(frame);
    }
  }

  private frame(f: Buffer): void {
    const flags = f[4];
    const payload = f.subarray(8);
    if ((f[0] & 0x80) === 0) {
      const s = this.streams.get(f.readUInt32BE(0) & 0x7fffffff);
      if (!s) return;
      if (payload.length) s.emit('data', Buffer.from(payload));
      if (flags & FLAG_FIN) s.emit('end');
      return;
    }
    const type = f.readUInt16BE(2) as FrameType;
    switch (type) {
      case FrameType.SynReply:
        this.streams.get(payload.readUInt32BE(0) & 0x7fffffff)?.emit('reply');
        break;
      case FrameType.RstStream: {
        const id = payload.readUInt32BE(0) & 0x7fffffff;
        this.streams.get(id)?.emit('reset');
        this.streams.delete(id);
        break;
      }
      case FrameType.Ping:
        this.write(controlFrame(FrameType.Ping, 0, payload));
        break;
      case FrameType.GoAway:
        this.emit('goaway');
        break;
      case FrameType.SynStream: {
        // the remotecommand and portforward servers never open streams toward the client: refuse
        const rst = Buffer.concat([u32(payload.readUInt32BE(0) & 0x7fffffff), u32(3 /* REFUSED_STREAM */)]);
        this.write(controlFrame(FrameType.RstStream, 0, rst));
        break;
      }
      default:
        break; // SETTINGS, HEADERS, WINDOW_UPDATE
    }
  }
}

// kube-apiserver's answer to WebSocket clients (kubectl ≥ 1.30) while kubelets speak SPDY: for exec/attach the
// StreamTranslator terminates the WebSocket channel protocol (v5.channel.k8s.io / v4.channel.k8s.io) and opens
// the remotecommand v4 SPDY streams toward the kubelet; for port-forward the tunnel protocol
// (SPDY/3.1+portforward.k8s.io) carries the client's own SPDY frames inside binary WebSocket messages, so those
// bytes are just unwrapped toward the kubelet's SPDY upgrade; the older channel protocol for port-forward (the
// Python client's: a data and an error channel per port of `?ports=`) is mapped onto SPDY stream pairs. The kubelet's upgrade is made first: if it refuses,
// its answer goes back as plain HTTP (the client's handshake fails and it retries over SPDY).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer as WsServer } from 'ws';
import { SpdySession } from '../../machinery/spdy-session.js';

// ws is CommonJS: require() skips the ESM named-export scan (as server.ts does for fastify), and only on the first
// WebSocket session, so API server start-up never pays for it
const wsServerClass = (): typeof WsServer => (createRequire(import.meta.url)('ws') as { WebSocketServer: typeof WsServer }).WebSocketServer;

export const TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
/** the kubelet's WebSocket port-forward protocols (binary framing) */
const PORTFORWARD_CHANNEL_PROTOCOLS = ['v4.channel.k8s.io', 'channel.k8s.io'];
const enum Channel {
  Stdin = 0,
  Stdout = 1,
  Stderr = 2,
  Error = 3,
  Resize = 4,
  Close = 255,
}

export interface KubeletUpgradeTarget {
  /** a connected (TLS) socket to the kubelet */
  socket: Duplex;
  /** path and query on the kubelet, e.g. /exec/ns/pod/c?command=ls&output=1 */
  path: string;
  host: string;
}

/** The subprotocol this server would pick for a WebSocket request of the verb, or undefined (not translatable). */
export function websocketProtocol(req: IncomingMessage, verb: 'exec' | 'attach' | 'portforward'): string | undefined {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const supported = verb === 'portforward' ? [TUNNEL_PROTOCOL, ...PORTFORWARD_CHANNEL_PROTOCOLS] : CHANNEL_PROTOCOLS;
  return supported.find((p) => offered.includes(p));
}

interface ResponseHead {
  status: number;
  raw: Buffer;
  rest: Buffer;
}

/** Reads an HTTP/1.1 response head off a socket; the bytes after it stay in `rest`. */
function readResponseHead(socket: Duplex, timeoutMs = 15_000): Promise<ResponseHead> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('timed out waiting for the kubelet to upgrade')), timeoutMs);
    const finish = (err?: Error, head?: ResponseHead) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('end', onEnd);
      if (err) reject(err);
      else resolve(head!);
    };
    const onEnd = () => finish(undefined, { status: Number(/^HTTP\/1\.\d (\d{3})/.exec(buf.toString('latin1'))?.[1] ?? 502), raw: buf, rest: Buffer.alloc(0) });
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(/^HTTP\/1\.\d (\d{3})/.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (status !== 101) {
        // an error answer: keep reading until the kubelet closes, so the whole body goes back
        socket.pause();
        socket.off('data', onData);
        socket.on('data', (more: Buffer) => (buf = Buffer.concat([buf, more])));
        socket.resume();
        return;
      }
      socket.pause();
      finish(undefined, { status, raw: buf.subarray(0, end + 4), rest: buf.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.once('error', finish);
    socket.once('end', onEnd);
  });
}

function spdyUpgradeRequest(t: KubeletUpgradeTarget, protocols: string[]): string {
  return [
    `POST ${t.path} HTTP/1.1`,
    `Host: ${t.host}`,
    'Connection: Upgrade',
    'Upgrade: SPDY/3.1',
    ...protocols.map((p) => `X-Stream-Protocol-Version: ${p}`),
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

export interface TranslateOptions {
  req: IncomingMessage;
  socket: Socket;
  head: Buffer;
  verb: 'exec' | 'attach' | 'portforward';
  protocol: string;
  kubelet: KubeletUpgradeTarget;
  /** the streams the client asked for (exec/attach) */
  streams: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean };
  /** the ports of a port-forward over the channel protocol (`?ports=`) */
  ports?: number[];
}

/** Upgrades the kubelet side to SPDY, then the client side to WebSocket, and bridges the two. */
export async function translateToSpdy(o: TranslateOptions): Promise<void> {
  const k = o.kubelet.socket;
  const protocols = o.verb === 'portforward' ? ['portforward.k8s.io'] : ['v4.channel.k8s.io'];
  k.write(spdyUpgradeRequest(o.kubelet, protocols));
  const res = await readResponseHead(k);
  if (res.status !== 101) {
    o.socket.end(res.raw);
    k.destroy();
    return;
  }
  // whatever happens to the client's connection (a refused handshake included) ends the kubelet's
  o.socket.once('close', () => k.destroy());
  const WebSocketServer = wsServerClass();
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  // ws accepts only RFC 7230 tokens as subprotocols and "SPDY/3.1+portforward.k8s.io" has a '/': the protocol is
  // chosen here (websocketProtocol) and written into the handshake answer directly
  delete o.req.headers['sec-websocket-protocol'];
  server.once('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${o.protocol}`));
  server.handleUpgrade(o.req, o.socket, o.head, (client: WebSocket) => {
    if (o.verb === 'portforward' && o.protocol === TUNNEL_PROTOCOL) tunnel(client, k, res.rest);
    else if (o.verb === 'portforward') portChannels(client, new SpdySession(k, res.rest), o.ports ?? []);
    else channels(client, new SpdySession(k, res.rest), o);
    k.resume();
  });
}

/** SPDY/3.1+portforward.k8s.io: binary messages carry the client's SPDY bytes, both ways. */
function tunnel(client: WebSocket, kubelet: Duplex, rest: Buffer): void {
  if (rest.length) client.send(rest);
  client.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) kubelet.write(data);
  });
  kubelet.on('data', (d: Buffer) => client.send(d));
  const close = () => {
    client.close(1000);
    kubelet.destroy();
  };
  client.on('close', close);
  client.on('error', close);
  kubelet.on('close', close);
  kubelet.on('error', close);
}

/**
 * Channel messages sent one after another, each written out before the next: one frame per TLS record, as Go's
 * websocket writer flushes them. Clients that poll the socket and then read one frame (the Python client) would
 * otherwise leave the last frames (exit status, close) unread in their TLS buffer and hang.
 */
function channelSender(client: WebSocket): { send(ch: number, data: Buffer): void; close(): void } {
  let last = Promise.resolve();
  const queue = (op: (done: () => void) => void) => {
    last = last.then(() => new Promise<void>((done) => (client.readyState === client.OPEN ? op(done) : done())));
  };
  return {
    send: (ch, data) => queue((done) => client.send(Buffer.concat([Buffer.from([ch]), data]), () => done())),
    close: () => queue((done) => {
      client.close(1000);
      done();
    }),
  };
}

/**
 * Port-forward over the channel protocol: port i of `?ports=` has data channel 2i and error channel 2i+1, each
 * opened with the port number (uint16, little-endian) as the kubelet writes it; each maps to the SPDY error/data
 * stream pair kubectl's SPDY client would open (requestid i).
 */
function portChannels(client: WebSocket, spdy: SpdySession, ports: number[]): void {
  const { send, close } = channelSender(client);
  // as the kubelet's handler returns once every port's forward has ended, the connection closes then
  let open = ports.length;
  const data = ports.map((port, i) => {
    const headers = { port: String(port), requestid: String(i) };
    const error = spdy.open({ streamtype: 'error', ...headers });
    const stream = spdy.open({ streamtype: 'data', ...headers });
    const portBytes = Buffer.from([port & 0xff, port >> 8]);
    send(2 * i, portBytes);
    send(2 * i + 1, portBytes);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (--open === 0) close();
    };
    stream.on('data', (d) => send(2 * i, d));
    stream.on('end', end).on('reset', end);
    error.on('data', (d) => {
      send(2 * i + 1, d);
      end();
    });
    return stream;
  });
  // x/net/websocket, which kube reads channel frames with, takes text frames as bytes too
  // only data channels (even) carry the client's bytes; error channels are the server's to write
  client.on('message', (msg: Buffer) => {
    if (msg.length > 1 && msg[0] % 2 === 0) data[msg[0] / 2]?.write(msg.subarray(1));
  });
  client.on('close', () => spdy.close());
  client.on('error', () => spdy.close());
  spdy.on('close', close);
}

/** v5/v4.channel.k8s.io ↔ remotecommand v4 over SPDY. */
function channels(client: WebSocket, spdy: SpdySession, o: TranslateOptions): void {
  const { send, close } = channelSender(client);
  const { stdin, stdout, stderr, tty } = o.streams;
  const errStream = spdy.open({ streamtype: 'error' });
  const inStream = stdin ? spdy.open({ streamtype: 'stdin' }) : undefined;
  const outStream = stdout ? spdy.open({ streamtype: 'stdout' }) : undefined;
  const errOut = stderr && !tty ? spdy.open({ streamtype: 'stderr' }) : undefined;
  const resize = tty ? spdy.open({ streamtype: 'resize' }) : undefined;
  // the client learns the connection is up from an empty message on the lowest writable channel
  send(stdout ? Channel.Stdout : stderr ? Channel.Stderr : Channel.Error, Buffer.alloc(0));

  let pending = [outStream, errOut].filter(Boolean).length;
  let status: Buffer[] = [];
  let errorDone = false;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    const body = Buffer.concat(status);
    // v4+: success is a Status too; the kubelet sends failures, so an empty error stream means success
    send(Channel.Error, body.length ? body : Buffer.from('{"metadata":{},"status":"Success"}'));
    close();
    spdy.close();
  };
  const maybeFinish = () => {
    if (errorDone && pending <= 0) finish();
  };
  outStream?.on('data', (d) => send(Channel.Stdout, d));
  errOut?.on('data', (d) => send(Channel.Stderr, d));
  for (const s of [outStream, errOut]) {
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      pending--;
      maybeFinish();
    };
    s?.on('end', end).on('reset', end);
  }
  errStream.on('data', (d) => status.push(d));
  const errEnd = () => {
    errorDone = true;
    // the status arrives once the command ended; output streams may still be draining
    setTimeout(() => finish(), 1000).unref();
    maybeFinish();
  };
  errStream.on('end', errEnd).on('reset', errEnd);
  spdy.on('close', () => finish());

  // text frames count as bytes, as x/net/websocket's Message.Receive (kube's reader) takes them: the Python
  // client writes stdin as text
  client.on('message', (data: Buffer) => {
    if (data.length === 0) return;
    const payload = data.subarray(1);
    switch (data[0]) {
      case Channel.Stdin:
        if (payload.length) inStream?.write(payload);
        break;
      case Channel.Resize:
        resize?.write(payload);
        break;
      case Channel.Close:
        if (payload[0] === Channel.Stdin) inStream?.end();
        break;
      default:
        break;
    }
  });
  client.on('close', () => {
    status = [];
    finished = true;
    spdy.close();
  });
  client.on('error', () => spdy.close());
}

// Watch over HTTP: a chunked stream of JSON watch events, one per line, until the client goes away or the
// timeout passes.
import { goJsonBody } from '../../machinery/go-json.js';
import type { ServerResponse } from 'node:http';
import type { KObject } from '../../api/types.js';
import { negotiate } from './content.js';
import { contextFor, render, resolveStore, watchParams, type ApiRequest } from './rest.js';
import type { Registry } from '../registry/registry.js';
import { watchObjects, type WatchEventOut } from '../registry/list.js';
import { revisionJSON } from '../registry/revision-json.js';
import type { CounterCell } from '../../metrics/family.js';

export interface WatchStreamOptions {
  bookmarkIntervalMs?: number;
  /** upper bound for a watch's life, like kube-apiserver's --min-request-timeout (randomised 1–2×) */
  maxSeconds?: number;
}

/** Validates the request and starts streaming; throws a StatusError before any byte is written. */
export async function serveWatch(registry: Registry, req: ApiRequest, res: ServerResponse, opts: WatchStreamOptions = {}): Promise<void> {
  const info = { ...req.info, verb: 'watch' };
  const rs = resolveStore(registry, { ...info, verb: 'list' });
  const output = negotiate(req.headers['accept'] as string | undefined, { list: false, watch: true });
  contextFor(req);
  const p = watchParams(req.query);
  if (info.name) p.fieldSelector = joinSelector(p.fieldSelector, `metadata.name=${info.name}`);
  let first = true;
  let open = true;
  // plain JSON of a revision whose stored text is it (no conversion): spliced from that text, not re-serialised
  const fromStored = output.kind === 'json' && !rs.def.storedAs && !rs.def.conversion;
  const encode = (ev: WatchEventOut): string => {
    if (fromStored && 'kv' in ev && ev.kv) {
      const text = revisionJSON(ev.kv, rs.apiVersion, rs.def.kind, rs.followsResourceVersion);
      if (text !== undefined) return goJsonBody(`{"type":"${ev.type}","object":${text}}`);
    }
    let object: unknown = ev.object;
    if (ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
      object = render(rs, output, req.query, ev.object as KObject, false);
      if (output.kind === 'json') object = rs.goOrdered(object);
      if (output.kind === 'table' && !first) delete (object as Record<string, unknown>).columnDefinitions;
      first = false;
    }
    return goJsonBody(JSON.stringify({ type: ev.type, object }));
  };
  const pending: string[] = [];
  let headersSent = false;
  // apiserver_watch_events_total and apiserver_registered_watchers of this resource
  const watchMetrics = registry.metrics?.apiserver;
  let sent: CounterCell | undefined;
  const send = (ev: WatchEventOut) => {
    if (!open) return;
    // a series appears with its first event, as kube's
    if (watchMetrics) (sent ??= watchMetrics.watchEvents.with(info.group, info.version, info.resource)).inc();
    const line = encode(ev);
    if (!headersSent) {
      pending.push(line);
      return;
    }
    res.write(line);
  };
  const w = await watchObjects(rs, req.info.namespace, p, send, { bookmarkIntervalMs: opts.bookmarkIntervalMs });
  res.writeHead(200, {
    'Content-Type': output.kind === 'json' ? 'application/json' : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  headersSent = true;
  if (pending.length) res.write(pending.join(''));
  else res.flushHeaders();
  const watchers = watchMetrics?.registeredWatchers.with(info.group, info.version, info.resource);
  watchers?.inc();
  const maxS = opts.maxSeconds ?? 1800;
  const timeoutS = p.timeoutSeconds && p.timeoutSeconds > 0 ? p.timeoutSeconds : maxS * (1 + Math.random());
  const finish = () => {
    if (!open) return;
    open = false;
    watchers?.dec();
    clearTimeout(timer);
    w.stop();
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(finish, timeoutS * 1000);
  timer.unref();
  res.on('close', finish);
  res.on('error', finish);
}

function joinSelector(a: string | undefined, b: string): string {
  return a ? `${a},${b}` : b;
}

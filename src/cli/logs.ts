// `k1s logs [NAME] [-f]`: the server's output (server.log in the cluster's data dir).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { clusterInfo, lastLines } from './clusters.js';
import { parseClusterArgs } from './command-args.js';

const help = `Usage: k1s logs [NAME] [flags]

Prints the log of the cluster NAME's server (default "k1s"): certificates, store, API server, controllers, nodes.

Examples:
  k1s logs
  k1s logs dev -f
  k1s logs --tail 50

Flags:
  --name NAME      the cluster (same as the NAME argument)
  -f, --follow     keep printing new lines until interrupted (or the server stops)
  --tail N         only the last N lines
  -h, --help       show this help`;

/** Copies file from offset to out; returns the new offset (a truncated file restarts at 0). */
function copyFrom(file: string, offset: number, out: NodeJS.WritableStream): number {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return offset;
  }
  if (size < offset) offset = 0;
  if (size === offset) return offset;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size - offset, 1 << 20));
    const n = readSync(fd, buf, 0, buf.length, offset);
    out.write(buf.subarray(0, n));
    return offset + n;
  } finally {
    closeSync(fd);
  }
}

export async function logsCommand(args: string[], opts: { out?: NodeJS.WritableStream; signal?: AbortSignal } = {}): Promise<number> {
  const out = opts.out ?? process.stdout;
  const parsed = parseClusterArgs('logs', args, { follow: { type: 'boolean', short: 'f' }, tail: { type: 'string' } }, help);
  if ('exit' in parsed) return parsed.exit;
  const { values } = parsed;
  const r = { name: parsed.name };
  const tail = values.tail === undefined ? undefined : Number(values.tail);
  if (tail !== undefined && (!Number.isInteger(tail) || tail < 0)) {
    console.error('k1s logs: usage: k1s logs [NAME] [-f] [--tail N]');
    return 2;
  }
  const info = clusterInfo(r.name);
  if (!info.state) {
    console.error(`k1s logs: no cluster named "${r.name}": see k1s list`);
    return 1;
  }
  const file = info.paths.log;
  let offset: number;
  if (tail !== undefined) {
    const text = lastLines(file, tail);
    if (text) out.write(text + '\n');
    try {
      offset = statSync(file).size;
    } catch {
      offset = 0;
    }
  } else offset = copyFrom(file, 0, out);
  if (!values.follow) return 0;
  const ac = new AbortController();
  const onInt = () => ac.abort();
  process.once('SIGINT', onInt);
  opts.signal?.addEventListener('abort', onInt);
  try {
    while (!ac.signal.aborted) {
      await new Promise((res) => setTimeout(res, 200));
      offset = copyFrom(file, offset, out);
      // the server is gone and its last words are printed: nothing more will come
      if (!clusterInfo(r.name).running) {
        copyFrom(file, offset, out);
        break;
      }
    }
  } finally {
    process.off('SIGINT', onInt);
  }
  return 0;
}

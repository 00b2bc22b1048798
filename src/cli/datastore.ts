// `k1s datastore migrate`: moves a cluster's state between SQLite (a data dir's db/state.db) and etcd, both ways,
// with the server stopped. The copy is datastore-copy.ts'; this is its command line, and the bookkeeping that makes
// the data dir's next start use the new store (db/etcd.json, and the flags of a `k1s start` cluster).
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { baseDir, clusterPaths, readState, writeState } from './clusters.js';
import { datastoreArgs, datastoreFlags } from './datastore-flags.js';
import { copyError, copyStore, describeRef, markMovedToEtcd, progressLines, type StoreRef } from './datastore-copy.js';

const help = `Usage: k1s datastore migrate --from sqlite:DIR|etcd:URLS --to sqlite:DIR|etcd:URLS [flags]

Copies every object of a cluster (events, CRDs, custom resources and Secrets too; encrypted Secrets are copied as
stored, not re-encrypted) from its SQLite file to an etcd, or from an etcd to a data dir's SQLite file. DIR is the
data dir of k1s server (or of a k1s start cluster, ~/.k1s/NAME); URLS are etcd's client URLs, comma-separated. Stop
the server first: a SQLite data dir in use is refused, and writes to an etcd after the copy are not copied. The
target must hold nothing under the prefix (or --force replaces it). Objects copied into etcd get new
resourceVersions (clients relist); copied into SQLite they keep etcd's. History is not copied.

Examples:
  k1s datastore migrate --from sqlite:/var/lib/k1s --to etcd:http://127.0.0.1:2379
  k1s datastore migrate --from sqlite:$HOME/.k1s/ci --to etcd:https://10.0.0.5:2379 --etcd-prefix /ci \\
    --datastore-cafile ca.crt --datastore-certfile client.crt --datastore-keyfile client.key
  k1s datastore migrate --from etcd:http://127.0.0.1:2379 --to sqlite:/var/lib/k1s

Flags:
  --from STORE                sqlite:DIR or etcd:URLS, the store to copy from
  --to STORE                  sqlite:DIR or etcd:URLS, the store to copy into
  --etcd-prefix PREFIX        the root of the keys in etcd (default /registry)
  --datastore-cafile FILE     the CA of the etcd members' serving certificates (https URLs)
  --datastore-certfile FILE   the client certificate for etcd
  --datastore-keyfile FILE    its key
  --force                     replace what the target holds
  -h, --help                  show this help

Exit status: 0 copied, 1 failed (a server runs on the data dir, the target holds data, etcd unreachable), 2 usage error.`;

const DATASTORE_FLAGS = new Set(['--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix']);

/** sqlite:DIR or etcd:URLS (with the TLS flags and prefix), or the usage error. */
function parseRef(flag: string, text: string, values: Record<string, string | boolean | undefined>): StoreRef | string {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (kind === 'sqlite') return rest ? { kind: 'sqlite', dataDir: resolve(rest) } : `--${flag} sqlite: needs a data dir (sqlite:/var/lib/k1s)`;
  if (kind === 'etcd') {
    const etcd = datastoreFlags({ ...values, 'datastore-endpoint': rest });
    if (typeof etcd === 'string') return `--${flag}: ${etcd.replace('--datastore-endpoint', 'etcd:')}`;
    return { kind: 'etcd', etcd: etcd! };
  }
  return `--${flag} ${text}: say sqlite:DIR or etcd:http(s)://host:port`;
}

/**
 * A `k1s start` cluster's stored server flags name the store it now uses (nothing to do for k1s server's dirs);
 * whether `k1s start NAME` starts it.
 */
function retarget(dataDir: string, to: StoreRef): boolean {
  const paths = clusterPaths(basename(dataDir), dirname(dataDir));
  const state = readState(paths);
  if (!state) return false;
  const args: string[] = [];
  for (let i = 0; i < state.serverArgs.length; i++) {
    if (DATASTORE_FLAGS.has(state.serverArgs[i]!)) i++;
    else args.push(state.serverArgs[i]!);
  }
  if (to.kind === 'etcd') args.push(...datastoreArgs(to.etcd));
  writeState(paths, { ...state, serverArgs: args });
  // `k1s start NAME` finds it only under the base dir
  return resolve(baseDir(), basename(dataDir)) === dataDir;
}

export async function datastoreCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'etcd-prefix': { type: 'string' },
        'datastore-cafile': { type: 'string' },
        'datastore-certfile': { type: 'string' },
        'datastore-keyfile': { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`k1s datastore: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const usage = (msg: string) => {
    console.error(`k1s datastore: ${msg}\n\n${help}`);
    return 2;
  };
  if (positionals[0] !== 'migrate') return usage(positionals[0] ? `unknown subcommand "${positionals[0]}": say migrate` : 'say migrate');
  if (positionals.length > 1) return usage(`unexpected arguments: ${positionals.slice(1).join(' ')}`);
  if (!values.from || !values.to) return usage('migrate needs --from and --to');
  const from = parseRef('from', values.from, values);
  if (typeof from === 'string') return usage(from);
  const to = parseRef('to', values.to, values);
  if (typeof to === 'string') return usage(to);
  if (from.kind === to.kind) return usage(`--from and --to are both ${from.kind}: migrate copies between SQLite and etcd (copy a data dir with k1s snapshot save/restore)`);
  const t0 = performance.now();
  console.error(`copying the objects of ${describeRef(from)} to ${describeRef(to)}…`);
  try {
    const r = await copyStore(from, to, { force: values.force, onProgress: progressLines() });
    const notes = [`source revision ${r.revision}`];
    if (r.replaced) notes.push(`${r.replaced} keys of the target replaced`);
    if (r.skipped) notes.push(`${r.skipped} keys under the prefix not written by k1s left out`);
    console.log(`copied ${r.copied} objects from ${describeRef(from)} to ${describeRef(to)} (${notes.join(', ')}; ${Math.round(performance.now() - t0)} ms)`);
    if (to.kind === 'etcd' && from.kind === 'sqlite') {
      markMovedToEtcd(from.dataDir, to.etcd);
      const named = retarget(from.dataDir, to);
      console.log(named
        ? `next: k1s start ${basename(from.dataDir)} (its server flags now name the etcd)`
        : `next: start the server with ${datastoreArgs(to.etcd).join(' ')} (k1s server --data-dir ${from.dataDir} ${datastoreArgs(to.etcd).join(' ')}); ${from.dataDir}/db/state.db is left as it was`);
    } else if (to.kind === 'sqlite') {
      const named = retarget(to.dataDir, to);
      console.log(named
        ? `next: k1s start ${basename(to.dataDir)} (its server flags no longer name an etcd)`
        : `next: start the server without --datastore-endpoint: k1s server --data-dir ${to.dataDir}`);
    }
    return 0;
  } catch (e) {
    console.error(`k1s datastore: ${copyError(e)}`);
    return 1;
  }
}

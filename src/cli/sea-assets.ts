// Start-up of the standalone executable (dist/k1s, a Node single-executable application; built by
// scripts/build-sea.mjs). Its files — the better-sqlite3 addon, the pause image, the SQLite writer thread's
// script and package.json — travel as SEA assets and are written once to a content-addressed directory,
// <$XDG_CACHE_HOME or ~/.cache>/k1s/sea-<id>/, laid out like a checkout so the code finds them where it always
// looks: import.meta.url in the bundle names <dir>/dist/sqlite-writer.cjs, so dist/images/pause.tar (node agent),
// ../package.json (version) and the writer thread's own script are all found next to it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SQLITE_ADDON_ENV } from '../storage/sqlite/native.js';

/** One asset of the executable and where it goes, relative to the extraction directory. */
export interface SeaFile {
  asset: string;
  path: string;
  mode?: number;
}

/** What build-sea.mjs embeds in the executable: the assets and an id derived from their contents. */
export interface SeaManifest {
  /** hex digest over every asset's name and bytes: a new build never reuses an older build's files */
  id: string;
  files: SeaFile[];
  /** the file (one of files' paths) better-sqlite3 loads */
  sqliteAddon: string;
  /** the file (one of files' paths) import.meta.url names in the bundle */
  moduleFile: string;
}

export interface PrepareOptions {
  manifest: SeaManifest;
  /** node:sea's getAsset */
  getAsset: (name: string) => ArrayBuffer;
  env: NodeJS.ProcessEnv;
  /** the cache root (default: k1sCacheRoot(env)) */
  cacheRoot?: string;
}

const COMPLETE = '.complete';

/**
 * k1s' per-user cache (the executable's files, startCluster's shared certificates): $XDG_CACHE_HOME/k1s,
 * ~/.cache/k1s, else a directory under the temp dir.
 */
export function k1sCacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'k1s');
  if (env.HOME) return join(env.HOME, '.cache', 'k1s');
  return join(tmpdir(), `k1s-cache-${process.getuid?.() ?? 'user'}`);
}

/**
 * Extracts the assets unless an earlier run did (one stat when it did), points better-sqlite3 at the addon
 * (K1S_SQLITE_ADDON in env, inherited by the writer thread and by child k1s processes) and returns the directory and
 * the URL the bundle uses as import.meta.url.
 */
export function prepareSea(opts: PrepareOptions): { dir: string; importMetaUrl: string } {
  const root = opts.cacheRoot ?? k1sCacheRoot(opts.env);
  const dir = join(root, `sea-${opts.manifest.id}`);
  if (!existsSync(join(dir, COMPLETE))) extract(opts, root, dir);
  opts.env[SQLITE_ADDON_ENV] = join(dir, opts.manifest.sqliteAddon);
  return { dir, importMetaUrl: pathToFileURL(join(dir, opts.manifest.moduleFile)).href };
}

/**
 * Writes every asset into a private temporary directory, then renames it into place: a concurrent start (k1s start
 * spawning its server, two clusters at once) sees either no directory or a complete one, never half-written files.
 */
function extract(opts: PrepareOptions, root: string, dir: string): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const tmp = join(root, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(tmp, { mode: 0o700 });
    for (const f of opts.manifest.files) {
      const target = join(tmp, f.path);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, new Uint8Array(opts.getAsset(f.asset)), { mode: f.mode ?? 0o600 });
    }
    writeFileSync(join(tmp, COMPLETE), `${opts.manifest.id}\n`, { mode: 0o600 });
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (existsSync(join(dir, COMPLETE))) throw e; // another process won (handled below)
      // a directory without .complete was not made by this code (renames are atomic): replace it
      rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    // another process finished the same extraction first: its files are the same bytes
    if (existsSync(join(dir, COMPLETE))) return;
    throw new Error(`k1s: cannot extract the executable's files to ${dir}: ${(e as Error).message} (set XDG_CACHE_HOME to a writable directory)`, { cause: e });
  }
}

/**
 * The command's arguments, from process.argv. A SEA's process.argv is [execPath, argv0 as typed, ...args]; the
 * executable normalises argv[1] to its own path (it is "the script", as in `node script`), so a k1s that re-runs
 * itself as `execPath argv[1] server …` (k1s start) passes its path once more, and that leading path is dropped
 * here: no k1s command is named like the absolute path of the executable.
 */
export function seaCommandArgs(argv: string[], execPath: string): string[] {
  argv[1] = execPath;
  const args = argv.slice(2);
  return args[0] === execPath ? args.slice(1) : args;
}

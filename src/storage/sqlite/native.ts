// Which better-sqlite3 native addon k1s loads. From a checkout or an npm install, the package finds its own
// build/Release/better_sqlite3.node (through the `bindings` package). The standalone executable has no
// node_modules: it extracts the addon it carries to a cache file and names that file in K1S_SQLITE_ADDON
// (see src/cli/sea-assets.ts); its bundle replaces `bindings` with sqliteAddon() (scripts/build-sea.mjs), so every
// `new Database(...)` in k1s, whoever opens it, gets that addon as better-sqlite3's default binding.
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';

/** the environment variable naming the addon file to load instead of the package's own */
export const SQLITE_ADDON_ENV = 'K1S_SQLITE_ADDON';

/**
 * The addon named by K1S_SQLITE_ADDON (an absolute path to a better_sqlite3 .node file), loaded through node's
 * module loader, which keeps one copy per file and thread; undefined when the variable is not set.
 */
export function sqliteAddon(env: NodeJS.ProcessEnv = process.env): object | undefined {
  const file = env[SQLITE_ADDON_ENV];
  if (!file) return undefined;
  if (!isAbsolute(file)) throw new Error(`${SQLITE_ADDON_ENV} must be an absolute path to better_sqlite3.node, got "${file}"`);
  return createRequire(file)(file) as object;
}

/** What the bundled `bindings('better_sqlite3.node')` returns: the configured addon, or an error naming the fix. */
export function requireSqliteAddon(env: NodeJS.ProcessEnv = process.env): object {
  const addon = sqliteAddon(env);
  if (!addon) {
    throw new Error(
      `k1s: the SQLite addon is not set up (${SQLITE_ADDON_ENV} is empty): the standalone executable extracts it at ` +
        'start; set it to the path of a better_sqlite3.node built for this node version',
    );
  }
  return addon;
}

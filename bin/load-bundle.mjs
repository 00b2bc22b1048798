// Loads k1s: the single-file CommonJS bundle dist/k1s.cjs run through vm.Script with a V8 code cache
// (dist/k1s.cjs.cache, written at build time), which saves compiling the bundle at every start; the per-module
// build is the fallback (e.g. after a bare `tsc`). The cache is only an optimisation: a missing, unreadable or
// rejected cache (other node version, rebuilt bundle) means a normal compile, after which a fresh cache is written
// if the file is writable. V8 also rejects a cache made under other node flags, so each set of flags has its own
// file (bin/k1s runs with the server's flags; a program importing k1s runs with its own). K1S_CODE_CACHE=off disables it; K1S_CODE_CACHE=write (the build's warm-up run) writes it
// on exit. Used by bin/k1s (the CLI) and by the package entry dist/k1s-entry.mjs (import { startCluster } from 'k1s').
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { accessSync, constants, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import zlib from 'node:zlib';

const crc32 = zlib.crc32; // node >= 20.15

const bundle = fileURLToPath(new URL('../dist/k1s.cjs', import.meta.url));

/**
 * The code cache for a process with these node flags (command line and NODE_OPTIONS): dist/k1s.cjs.cache without
 * any, dist/k1s.cjs.<hash>.cache else.
 */
export function codeCacheFile(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '') {
  const flags = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  if (!flags.length) return `${bundle}.cache`;
  return `${bundle}.${createHash('sha256').update(flags.join('\0')).digest('hex').slice(0, 12)}.cache`;
}

function loadBundle() {
  const mode = process.env.K1S_CODE_CACHE ?? '';
  const writable = () => {
    try {
      accessSync(dirname(bundle), constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const cacheFile = codeCacheFile();
  const bytes = readFileSync(bundle);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'); // the same string, faster
  // V8 checks only the source's length against a cache, so the cache file starts with the source's sha256.
  // (without zlib.crc32, no cache)
  const digest = mode === 'off' || typeof crc32 !== 'function' ? undefined : createHash('sha256').update(bytes).digest();
  let cachedData;
  if (digest && mode !== 'write') {
    try {
      // [sha256 of the bundle][crc32 of the V8 data][V8 data]: V8 does not checksum the data, and corrupt
      // data can crash node outright, so it is checked here first.
      const file = readFileSync(cacheFile);
      const data = file.subarray(digest.length + 4);
      if (
        data.length > 0 &&
        digest.equals(file.subarray(0, digest.length)) &&
        file.readUInt32BE(digest.length) === crc32(data)
      ) {
        cachedData = data;
      }
    } catch {
      // no cache yet
    }
  }
  // The bundle's dynamic import()s go through __k1s_import (see scripts/bundle.mjs): a vm.Script cannot import().
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __k1s_import) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
  if (digest && (cachedData === undefined || script.cachedDataRejected) && writable()) {
    // Written once the run has compiled what start-up needs: on exit, or after a second for a long-running server.
    let done = false;
    const write = () => {
      if (done) return;
      done = true;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        const data = script.createCachedData();
        const crc = Buffer.alloc(4);
        crc.writeUInt32BE(crc32(data));
        writeFileSync(tmp, Buffer.concat([digest, crc, data]));
        renameSync(tmp, cacheFile);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // best effort
        }
      }
    };
    process.once('exit', write);
    if (mode !== 'write') setTimeout(write, 1000).unref();
  }
  const module = { exports: {} };
  const importFn = (specifier) => import(specifier);
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle), importFn);
  return module.exports;
}

/**
 * The bundle's exports (the CLI's main and the package's startCluster), or, when the bundle is missing or older than
 * `modulesEntry` (a bare `tsc` after a build rewrites dist/src but not the bundle), that per-module entry's.
 */
export function loadK1s(modulesEntry) {
  const mtime = (f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs;
  const bundleTime = mtime(bundle);
  if (bundleTime === undefined || bundleTime < (mtime(modulesEntry) ?? 0)) return import(modulesEntry.href);
  loaded ??= Promise.resolve().then(loadBundle); // once per process, whichever entry asks first
  return loaded;
}

let loaded;

// Build step after tsc: bundles dist/src/cli/main.js into the single CommonJS file dist/k1s.cjs, then runs
// `k1s server` once, with the node flags bin/k1s runs with, so it writes the V8 code cache (dist/k1s.cjs.<hash>.cache,
// see bin/load-bundle.mjs) that later starts load instead of compiling the bundle. CommonJS because only classic scripts (vm.Script) can use a code cache without flags.
// A failed warm-up is only a warning: bin/k1s then writes the cache on its first run.
// It also writes dist/src/index.d.ts, the declarations of the package entry (see writeEntryDeclarations).
import { build } from 'esbuild';
import ts from 'typescript';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = join(root, 'dist/k1s.cjs');

rmSync(join(root, 'dist/k1s.mjs'), { force: true }); // the former ESM bundle
writeEntryDeclarations();
// every code cache of the former bundle (one per set of node flags)
for (const f of readdirSync(join(root, 'dist'))) if (/^k1s\.cjs\.(?:[0-9a-f]+\.)?cache$/.test(f)) rmSync(join(root, 'dist', f), { force: true });

// fastify (~100 ms of module loading at every start) is bundled too, so the code cache covers it: the entry puts
// the bundled copy into node's require cache under node_modules/fastify's own path, where the sources' own
// createRequire(import.meta.url)('fastify') finds it. The rest of node_modules stays external: better-sqlite3
// is native, and yaml, jose and fastify's schema compilers and light-my-request load lazily. @peculiar/asn1-x509 is
// bundled as a lazily evaluated module (only fresh data dirs create certificates), so the cache covers it too.
const entry = `
const Module = require('node:module');
try {
  const req = Module.createRequire(__filename);
  const file = req.resolve('fastify');
  if (!req.cache[file]) {
    const m = new Module(file, module);
    m.filename = file;
    m.paths = Module._nodeModulePaths(require('node:path').dirname(file));
    m.exports = require('fastify');
    m.loaded = true;
    req.cache[file] = m;
  }
} catch {
  // no bundled fastify: the sources load node_modules/fastify themselves
}
// the CLI's main() (bin/k1s) and the package's startCluster() (dist/k1s-entry.mjs)
module.exports = { ...require('./dist/src/cli/main.js'), ...require('./dist/src/index.js') };
`;
const fastifyLazy = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request'];

const result = await build({
  write: false,
  stdin: { contents: entry, resolveDir: root, sourcefile: 'k1s-entry.cjs', loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  outfile,
  plugins: [
    {
      name: 'external-except-fastify',
      setup(b) {
        // like --packages=external, except fastify and what it requires at load time
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('node:')) return { path: args.path, external: true };
          const bundled = args.path === 'fastify' || args.path.startsWith('@peculiar/asn1-') || args.importer.includes('/node_modules/');
          if (bundled && !fastifyLazy.includes(args.path)) return undefined;
          return { path: args.path, external: true };
        });
      },
    },
  ],
  // import.meta.url (createRequire, package.json lookup) is the bundle's own file URL.
  define: { 'import.meta.url': '__k1s_import_meta_url' },
  banner: {
    js: [
      // strict, as the ES modules it was built from were (the CommonJS packages inside carry their own directives)
      '"use strict";',
      'var __k1s_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
      // bin/k1s passes its own import(): the bundle runs as a vm.Script, where import() needs an experimental flag
      'var __k1s_import = typeof __k1s_import === "function" ? __k1s_import : (specifier) => import(specifier);',
    ].join('\n'),
  },
});
/** A worker thread's script: a bundle of its own beside dist/k1s.cjs (a worker needs a file), written atomically. */
async function workerScript(entry, name, extra = {}) {
  const file = join(root, 'dist', name);
  const out = await build({
    entryPoints: [join(root, entry)],
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    outfile: file,
    legalComments: 'none',
    banner: { js: '"use strict";' },
    ...extra,
  });
  writeFileSync(`${file}.${process.pid}.tmp`, out.outputFiles[0].text);
  renameSync(`${file}.${process.pid}.tmp`, file);
}
// The cluster DNS worker thread's script (src/network/dns/worker.ts): small, so with everything it needs (dns-packet
// included), where the bundled dns-server finds it (dnsWorkerURL). Written before the main bundle: a new bundle never
// misses it.
await workerScript('dist/src/network/dns/worker.js', 'dns-worker.cjs');
// The SQLite writer thread's script (src/storage/sqlite/worker.ts, see writerURL): this module alone, with
// better-sqlite3 left in node_modules (native), so the thread starts in milliseconds rather than loading the whole CLI.
await workerScript('dist/src/storage/sqlite/worker.js', 'sqlite-writer.cjs', {
  packages: 'external',
  define: { 'import.meta.url': '__k1s_import_meta_url' },
  banner: { js: '"use strict";\nvar __k1s_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
});

// The bundle's remaining dynamic import()s are of external packages (jose); route them through __k1s_import.
let code = result.outputFiles[0].text;
const bannerEnd = code.indexOf('\n', code.indexOf('var __k1s_import =')) + 1;
code = code.slice(0, bannerEnd) + code.slice(bannerEnd).replace(/(?<![\w$.])import\((?=["'`])/g, '__k1s_import(');
// esbuild escapes non-ASCII characters in code (charset=ascii) but not in the comments it keeps; escaping those too
// keeps the file ASCII, which bin/k1s decodes as latin1, several ms faster than UTF-8.
code = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// replaced in one step: a k1s starting meanwhile reads the old bundle or the new one, never half a file
writeFileSync(`${outfile}.${process.pid}.tmp`, code);
renameSync(`${outfile}.${process.pid}.tmp`, outfile);

// The package entry (package.json "exports"): `import { startCluster } from 'k1s'` loads the same bundle and code
// cache as the CLI (~0.15 s) instead of some 200 ES modules one by one (~0.5 s); the per-module build when the
// bundle is stale. Its names are the ones dist/src/index.d.ts declares.
const entryNames = Object.keys(await import(pathToFileURL(join(root, 'dist/src/index.js')).href));
writeFileSync(
  join(root, 'dist/k1s-entry.mjs'),
  [
    '// Generated by scripts/bundle.mjs: the package entry (see bin/load-bundle.mjs).',
    "import { loadK1s } from '../bin/load-bundle.mjs';",
    "const k1s = await loadK1s(new URL('./src/index.js', import.meta.url));",
    ...entryNames.map((n) => `export const ${n} = k1s.${n};`),
    '',
  ].join('\n'),
);

if (process.env.K1S_SKIP_CODE_CACHE_WARMUP !== '1') await warmUp();

/** Starts `k1s server` on a scratch data dir, waits for the ready line, then stops it (the cache is written on exit). */
async function warmUp() {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-warmup-'));
  const { SERVER_NODE_FLAGS } = await import(pathToFileURL(join(root, 'dist/src/cli/server-node-flags.js')).href);
  const { codeCacheFile } = await import(pathToFileURL(join(root, 'bin/load-bundle.mjs')).href);
  try {
    const ok = await new Promise((resolve) => {
      const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'bin/k1s'), 'server', '--data-dir', dir, '--https-listen-port', '0', '--disable-agent'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, K1S_CODE_CACHE: 'write' },
      });
      let out = '';
      let ready = false;
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const onData = (d) => {
        out += d;
        if (!ready && /API server ready/.test(out)) {
          ready = true;
          // the server installs its SIGTERM handler just after the ready line; a clean stop fires 'exit'
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('error', () => resolve(false));
      child.on('exit', () => {
        clearTimeout(timer);
        if (!ready) process.stderr.write(out);
        resolve(ready);
      });
    });
    if (!ok || !existsSync(codeCacheFile(SERVER_NODE_FLAGS, process.env.NODE_OPTIONS ?? ''))) console.warn('warning: k1s warm-up run failed; no code cache written at build time');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * dist/src/index.d.ts, the types of the package entry (`import { startCluster } from 'k1s'`; tsconfig emits no
 * declarations). src/index.ts spells out the types of everything it exports, so it is declared on its own, without
 * type-checking the program again.
 */
function writeEntryDeclarations() {
  const file = join(root, 'src/index.ts');
  const r = ts.transpileDeclaration(readFileSync(file, 'utf8'), { fileName: file, reportDiagnostics: true, compilerOptions: { strict: true } });
  if (r.diagnostics?.length) {
    throw new Error(`src/index.ts cannot be declared on its own: ${ts.formatDiagnostics(r.diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' })}`);
  }
  writeFileSync(join(root, 'dist/src/index.d.ts'), r.outputText);
}

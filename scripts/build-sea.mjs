// Build step after tsc and build-images: dist/k1s, one standalone executable (a Node single-executable application,
// https://nodejs.org/api/single-executable-applications.html) that runs with no Node.js and no node_modules.
//  1. esbuild bundles dist/src/cli/main.js with ALL its JS dependencies into one CommonJS script (the SEA's main
//     script, compiled into a V8 code cache at build time: useCodeCache), and the SQLite writer thread's module
//     and the cluster DNS worker's into small scripts of their own (a worker thread needs a file to run).
//  2. The files code looks for on disk travel as SEA assets: the better-sqlite3 addon, the pause image, the writer
//     script, the DNS worker's script and package.json. src/cli/sea-assets.ts writes them once to a content-addressed
//     cache directory.
//  3. node --experimental-sea-config makes the blob; postject injects it into a copy of this node binary
//     (symbols stripped: node never reads them; addons link against the dynamic symbol table, which stays).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist/sea');
const target = join(root, 'dist/k1s');
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const t0 = performance.now();

const require = createRequire(import.meta.url);
const addonFile = join(require.resolve('better-sqlite3/package.json'), '..', 'build/Release/better_sqlite3.node');
const pauseTar = join(root, 'dist/images/pause.tar');
for (const [file, hint] of [
  [join(root, 'dist/src/cli/main.js'), 'run tsc -p tsconfig.json first'],
  [pauseTar, 'run node scripts/build-images.mjs first'],
  [addonFile, 'better-sqlite3 is not built (npm rebuild better-sqlite3)'],
]) {
  if (!existsSync(file)) fail(`${file} is missing: ${hint}`);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// ---- 1. the bundles
// The sources load some packages with createRequire(import.meta.url)(…) (lazily, to keep start-up cheap); esbuild
// only follows require('…') with a string, so inside the bundle those calls become plain require calls.
const sourceRewrites = [
  [/^const require = createRequire\(import\.meta\.url\);$/m, ''], // src/machinery/yaml.ts
  [/const fastifyRequire = createRequire\(createRequire\(import\.meta\.url\)\.resolve\('fastify'\)\);/, ''], // src/apiserver/server.ts
  [/\bfastifyRequire\(/g, 'require('],
  [/\bcreateRequire\(import\.meta\.url\)\(/g, 'require('],
];
const seaPlugin = {
  name: 'k1s-sea',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, (args) => {
      let code = readFileSync(args.path, 'utf8');
      if (!code.includes('createRequire')) return undefined;
      for (const [re, to] of sourceRewrites) code = code.replace(re, to);
      if (/createRequire\((createRequire\()?import\.meta\.url\)/.test(code)) {
        return { errors: [{ text: `${args.path}: a createRequire(import.meta.url) use scripts/build-sea.mjs cannot rewrite` }] };
      }
      return { contents: code, loader: 'js' };
    });
    // better-sqlite3 finds its default addon with require('bindings')('better_sqlite3.node'): here that is the
    // addon the executable extracted (src/storage/sqlite/native.ts)
    b.onResolve({ filter: /^bindings$/ }, () => ({ path: 'bindings', namespace: 'k1s-sea' }));
    b.onLoad({ filter: /^bindings$/, namespace: 'k1s-sea' }, () => ({
      contents: `const { requireSqliteAddon } = require(${JSON.stringify(join(root, 'dist/src/storage/sqlite/native.js'))});\nmodule.exports = () => requireSqliteAddon();\n`,
      resolveDir: root,
      loader: 'js',
    }));
    // optional native speed-ups of ws: absent, and ws carries on without them
    b.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (a) => ({ path: a.path, external: true }));
  },
};
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  metafile: true,
  outdir: out, // only names the outputs (write: false)
  logLevel: 'error',
  legalComments: 'none',
  plugins: [seaPlugin],
  define: { 'import.meta.url': '__k1s_import_meta_url' },
};

/** A worker thread's script, bundled whole (a worker needs a file of its own); returns the written path. */
async function workerScript(entry, name, banner) {
  const result = await build({ ...common, entryPoints: [join(root, entry)], banner: { js: banner } });
  const file = join(out, name);
  writeFileSync(file, checked(result, name));
  return file;
}
// the writer thread: writerURL() in src/storage/sqlite/worker.ts names dist/sqlite-writer.cjs beside import.meta.url's file
// (this very file, see moduleFile below)
const writerFile = await workerScript(
  'dist/src/storage/sqlite/worker.js',
  'sqlite-writer.cjs',
  '"use strict";\nvar __k1s_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
);
// the cluster DNS worker thread: dnsWorkerURL() in src/network/dns/server.ts names dist/dns-worker.cjs beside
// import.meta.url's file
const dnsWorkerFile = await workerScript('dist/src/network/dns/worker.js', 'dns-worker.cjs', '"use strict";');

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pkgFile = join(out, 'package.json');
writeFileSync(pkgFile, `${JSON.stringify({ name: pkg.name, version: pkg.version })}\n`);

// ---- 2. the assets and their manifest (the layout mirrors a checkout; see src/cli/sea-assets.ts)
const assets = {
  'better_sqlite3.node': { file: addonFile, path: 'better_sqlite3.node', mode: 0o700 },
  'pause.tar': { file: pauseTar, path: 'dist/images/pause.tar' },
  'sqlite-writer.cjs': { file: writerFile, path: 'dist/sqlite-writer.cjs' },
  'dns-worker.cjs': { file: dnsWorkerFile, path: 'dist/dns-worker.cjs' },
  'package.json': { file: pkgFile, path: 'package.json' },
};
const id = createHash('sha256');
for (const [name, a] of Object.entries(assets)) id.update(`${name}\0${a.path}\0`).update(readFileSync(a.file));
const manifest = {
  id: id.digest('hex').slice(0, 16),
  files: Object.entries(assets).map(([asset, a]) => ({ asset, path: a.path, ...(a.mode ? { mode: a.mode } : {}) })),
  sqliteAddon: assets['better_sqlite3.node'].path,
  moduleFile: assets['sqlite-writer.cjs'].path,
};

// The SEA's main script: extract the assets, then run the CLI. main.js is required (not imported) after the
// set-up, so none of its modules is evaluated before import.meta.url has its value.
const entry = `
const sea = require('node:sea');
const { prepareSea, seaCommandArgs } = require('./dist/src/cli/sea-assets.js');
try {
  __k1s_import_meta_url = prepareSea({ manifest: ${JSON.stringify(manifest)}, getAsset: (name) => sea.getAsset(name), env: process.env }).importMetaUrl;
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
require('./dist/src/cli/main.js')
  .main(seaCommandArgs(process.argv, process.execPath))
  .catch((err) => {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  });
`;
const main = await build({
  ...common,
  stdin: { contents: entry, resolveDir: root, sourcefile: 'k1s-sea-entry.cjs', loader: 'js' },
  banner: { js: '"use strict";\nvar __k1s_import_meta_url;' },
});
const mainFile = join(out, 'k1s-sea.cjs');
writeFileSync(mainFile, checked(main, 'k1s-sea.cjs'));

// ---- 3. blob and executable
const configFile = join(out, 'sea-config.json');
const blob = join(out, 'k1s.blob');
writeFileSync(
  configFile,
  JSON.stringify({
    main: mainFile,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: true,
    assets: Object.fromEntries(Object.entries(assets).map(([name, a]) => [name, a.file])),
  }),
);
run(process.execPath, ['--experimental-sea-config', configFile]);
const tmp = `${target}.${process.pid}.tmp`;
try {
  copyFileSync(process.execPath, tmp);
  chmodSync(tmp, 0o755);
  try {
    execFileSync('strip', ['--strip-all', tmp], { stdio: 'ignore' });
  } catch {
    console.warn('warning: strip failed (binutils missing?): dist/k1s keeps node\'s symbols');
  }
  const postject = join(require.resolve('postject/package.json'), '..', 'dist/cli.js');
  run(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE]);
  renameSync(tmp, target);
} finally {
  rmSync(tmp, { force: true });
}
const mb = (f) => (statSync(f).size / 1e6).toFixed(1);
console.log(
  `dist/k1s: ${mb(target)} MB (bundle ${mb(mainFile)} MB, blob ${mb(blob)} MB) in ${Math.round(performance.now() - t0)} ms`,
);
rmSync(blob); // inside dist/k1s now; dist/sea keeps the scripts (the executable's stack traces name k1s-sea.cjs)

/** A script the SEA can run: no import() of an external module left (the SEA's main script cannot import()). */
function checked(result, name) {
  const external = Object.values(result.metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.external && i.kind === 'dynamic-import');
  if (external.length) fail(`${name}: dynamic import() of ${external.map((i) => i.path).join(', ')} left in the bundle`);
  return result.outputFiles[0].text;
}

/** Runs a build tool quietly (postject's ELF library warns about node's many notes); its output only on failure. */
function run(file, args) {
  try {
    execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // thrown, not process.exit: the caller's finally removes the half-made executable
    throw new Error(`build-sea: ${[file, ...args].join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

function fail(msg) {
  console.error(`build-sea: ${msg}`);
  process.exit(1);
}

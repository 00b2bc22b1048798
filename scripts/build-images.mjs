#!/usr/bin/env node
// Builds the images k1s ships and tests with (images/*/image.json) into OCI image-layout tarballs:
//   node scripts/build-images.mjs [--out DIR] [--force] [NAME…]      (default out: dist/images; run after tsc)
// An image is rebuilt only when its inputs changed (definition, sources, host binaries, compiler, the layout writer);
// dist/images/images.json lists what was built: [{ dir, name, file, digest }].
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEBIAN_PACKAGES = 'gcc libc6-dev busybox-static';

class BuildError extends Error {}

function hint() {
  return `install them with: apt-get install -y ${DEBIAN_PACKAGES}`;
}

/** True when the ELF file at path has no PT_INTERP program header, i.e. needs no dynamic loader. */
function isStaticElf(path) {
  const fd = openSync(path, 'r');
  try {
    const h = Buffer.alloc(64);
    readSync(fd, h, 0, 64, 0);
    if (h.readUInt32BE(0) !== 0x7f454c46) return false;
    const is64 = h[4] === 2;
    const le = h[5] === 1;
    const u16 = (b, o) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b, o) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const phoff = is64 ? Number(le ? h.readBigUInt64LE(32) : h.readBigUInt64BE(32)) : u32(h, 28);
    const phentsize = u16(h, is64 ? 54 : 42);
    const phnum = u16(h, is64 ? 56 : 44);
    const ph = Buffer.alloc(phentsize);
    for (let i = 0; i < phnum; i++) {
      readSync(fd, ph, 0, phentsize, phoff + i * phentsize);
      if (u32(ph, 0) === 3 /* PT_INTERP */) return false;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

function run(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (e.code === 'ENOENT') throw new BuildError(`${cmd} is not installed; ${hint()}`);
    throw new BuildError(`${cmd} ${args.join(' ')} failed:\n${e.stderr || e.message}`);
  }
}

function parseMode(s, where) {
  if (typeof s !== 'string' || !/^[0-7]{3,4}$/.test(s)) throw new BuildError(`${where}: mode must be an octal string such as "0644"`);
  return parseInt(s, 8);
}

/** Reads an image definition and gathers its files; returns { name, files, config, inputs } without writing. */
function prepare(dir, def, workDir) {
  const where = `images/${dir}/image.json`;
  const hash = createHash('sha256');
  hash.update(JSON.stringify(def));
  const files = [];
  if (def.compile) {
    const src = join(root, 'images', dir, def.compile.source);
    const gccVersion = run('gcc', ['--version']).split('\n')[0];
    hash.update(readFileSync(src)).update(gccVersion);
    const out = join(workDir, `${dir}.bin`);
    try {
      run('gcc', ['-static', '-O2', '-s', '-Wall', '-o', out, src]);
    } catch (e) {
      throw new BuildError(`${e.message}\n(a static build needs libc.a from libc6-dev; ${hint()})`);
    }
    files.push({ path: def.compile.to, mode: 0o755, source: out });
  }
  if (def.busybox) {
    const bin = def.busybox.binary;
    if (!existsSync(bin)) throw new BuildError(`${bin} is missing (${where} needs Debian's busybox-static); ${hint()}`);
    if (!isStaticElf(bin)) {
      throw new BuildError(`${bin} is dynamically linked (the busybox package, not busybox-static); ${hint()}`);
    }
    const banner = run(bin, ['--help']).split('\n')[0];
    const version = /BusyBox v(\S+)/.exec(banner)?.[1] ?? '?';
    if (def.busybox.version && !version.startsWith(def.busybox.version)) {
      console.warn(`build-images: warning: ${bin} is BusyBox ${version}, ${where} expects ${def.busybox.version}x`);
    }
    hash.update(readFileSync(bin));
    const to = def.busybox.to.replace(/^\/+/, '');
    files.push({ path: to, mode: 0o755, source: bin });
    for (const applet of run(bin, ['--list-full']).split('\n').map((l) => l.trim()).filter(Boolean)) {
      // linuxrc is the init applet's link at the root; the binary itself is already there.
      if (applet === to || !applet.includes('/')) continue;
      files.push({ path: applet, mode: 0o777, symlink: '/' + to });
    }
  }
  for (const f of def.files ?? []) {
    const mode = parseMode(f.mode, `${where} ${f.path}`);
    if (f.dir) files.push({ path: f.path, mode, dir: true });
    else if (f.symlink !== undefined) files.push({ path: f.path, mode, symlink: f.symlink });
    else if (f.text !== undefined) files.push({ path: f.path, mode, content: Buffer.from(f.text, 'utf8') });
    else if (f.source !== undefined) {
      const src = resolve(join(root, 'images', dir), f.source);
      hash.update(readFileSync(src));
      files.push({ path: f.path, mode, source: src });
    } else throw new BuildError(`${where}: ${f.path} needs one of dir, symlink, text, source`);
  }
  return { name: def.name, files, config: def.config ?? {}, hash };
}

async function main() {
  const { values, positionals } = parseArgs({
    options: { out: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log('Usage: node scripts/build-images.mjs [--out DIR] [--force] [NAME…]  (NAME: a folder of images/)');
    return 0;
  }
  const layoutJs = join(root, 'dist/src/runtime/oci-layout.js');
  if (!existsSync(layoutJs)) throw new BuildError(`${layoutJs} is missing: run "npx tsc -p tsconfig.json" first`);
  const { writeOciImageTar } = await import(pathToFileURL(layoutJs).href);
  const outDir = resolve(values.out ?? join(root, 'dist/images'));
  mkdirSync(outDir, { recursive: true });
  const all = readdirSync(join(root, 'images'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, 'images', d.name, 'image.json')))
    .map((d) => d.name)
    .sort();
  const unknown = positionals.filter((p) => !all.includes(p));
  if (unknown.length) throw new BuildError(`no image definition images/${unknown[0]}/image.json (have: ${all.join(', ')})`);
  const wanted = positionals.length ? positionals : all;
  const workDir = mkdtempSync(join(tmpdir(), 'k1s-build-images-'));
  const summaryFile = join(outDir, 'images.json');
  const summary = (existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : []).filter((s) => all.includes(s.dir));
  try {
    for (const dir of wanted) {
      const started = Date.now();
      const def = JSON.parse(readFileSync(join(root, 'images', dir, 'image.json'), 'utf8'));
      let prepared;
      try {
        prepared = prepare(dir, def, workDir);
      } catch (e) {
        // only the pause image is needed to run pods; test images are skipped with a warning unless asked for
        if (!(e instanceof BuildError) || positionals.length || dir === 'pause') throw e;
        console.warn(`build-images: ${dir} skipped: ${e.message}`);
        continue;
      }
      const { name, files, config, hash } = prepared;
      hash.update(readFileSync(layoutJs)).update(process.arch);
      const inputs = hash.digest('hex');
      const file = join(outDir, `${dir}.tar`);
      const stampFile = join(outDir, `${dir}.stamp.json`);
      const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : undefined;
      let digest;
      if (!values.force && stamp?.inputs === inputs && existsSync(file)) {
        digest = stamp.digest;
        console.log(`${name}: up to date (${file})`);
      } else {
        ({ digest } = await writeOciImageTar({ out: file, name, files, config }));
        writeFileSync(stampFile, JSON.stringify({ inputs, name, digest }) + '\n');
        console.log(`${name}: built ${file} ${digest.slice(0, 19)} in ${Date.now() - started} ms`);
      }
      const entry = { dir, name, file: `${dir}.tar`, digest };
      const i = summary.findIndex((s) => s.dir === dir);
      if (i >= 0) summary[i] = entry;
      else summary.push(entry);
    }
    writeFileSync(summaryFile, JSON.stringify(summary, null, 2) + '\n');
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`build-images: ${e instanceof BuildError ? e.message : e.stack}`);
    process.exit(1);
  },
);

// The layout rules of src/ (docs/architecture.md), checked by test/unit/layout.test.ts and by
// `node dist/scripts/check-layout.js`: imports between top-level folders run downwards only, files import no
// other file in a runtime cycle, no folder holds more than MAX_FILES_PER_FOLDER files and no file more than
// MAX_LINES lines. Type-only imports count for the layers (a type is a dependency too) but not for cycles (tsc
// erases them, so they cannot make a module see another half-initialised).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bottom to top. A folder may import its own layer's earlier members and every layer below its own. */
export const LAYERS: readonly (readonly string[])[] = [
  // metrics first: every layer records through it, and it imports nothing of k1s
  ['metrics', 'storage', 'runtime', 'machinery', 'pki'],
  ['api'],
  ['apiserver'],
  ['client'],
  ['scheduler', 'controllers'],
  ['network', 'kubelet', 'registry'],
  ['cluster'],
  ['cli'],
  ['index.ts'],
];
export const MAX_FILES_PER_FOLDER = 40;
export const MAX_LINES = 400;
/**
 * Violations that predate the check and are still to be mended, by rule and file (a cycle by its first member).
 * The check fails when one of them is gone too, so the list can only shrink.
 */
export const KNOWN: readonly string[] = [];

export interface Violation {
  rule: 'layer' | 'cycle' | 'folder-size' | 'file-size' | 'unknown-folder' | 'known';
  message: string;
}

/** Where a top-level folder sits: [layer, position within the layer]. */
function rank(top: string): [number, number] | undefined {
  for (let i = 0; i < LAYERS.length; i++) {
    const j = LAYERS[i]!.indexOf(top);
    if (j >= 0) return [i, j];
  }
  return undefined;
}

/** May a file in folder `from` import one in folder `to`? */
export function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  const a = rank(from);
  const b = rank(to);
  if (!a || !b) return false;
  return b[0] < a[0] || (b[0] === a[0] && b[1] < a[1]);
}

function walk(dir: string, ext: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, ext, out);
    else if (name.endsWith(ext) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

// import … from '…', export … from '…', import '…', import('…') and typeof import('…'); comments are blanked first
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;
const STATIC_SPECIFIER = /(?:\bfrom\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;

function stripComments(text: string): string {
  // good enough for this code base: no '//' or '/*' inside the strings that hold specifiers
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** The files a module's relative specifiers name (resolved against its own folder). */
function imports(file: string, text: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const m of stripComments(text).matchAll(pattern)) out.push(resolve(dirname(file), m[2]!));
  return out;
}

const topFolder = (srcDir: string, file: string): string => relative(srcDir, file).split(sep)[0]!;

/** The layer, folder-size and file-size rules over the TypeScript sources in srcDir. */
export function checkSources(srcDir: string): Violation[] {
  const out: Violation[] = [];
  const files = walk(srcDir, '.ts');
  const perFolder = new Map<string, number>();
  for (const f of files) {
    const dir = relative(srcDir, dirname(f)) || '.';
    perFolder.set(dir, (perFolder.get(dir) ?? 0) + 1);
    const top = topFolder(srcDir, f);
    if (!rank(top)) out.push({ rule: 'unknown-folder', message: `src/${relative(srcDir, f)}: src/${top} is in no layer of LAYERS (scripts/check-layout.ts)` });
    const text = readFileSync(f, 'utf8');
    const lines = text.split('\n').length - 1;
    if (lines > MAX_LINES) out.push({ rule: 'file-size', message: `src/${relative(srcDir, f)} has ${lines} lines (at most ${MAX_LINES}): split it by responsibility` });
    for (const target of imports(f, text, SPECIFIER)) {
      const to = topFolder(srcDir, target);
      if (!mayImport(top, to)) {
        out.push({
          rule: 'layer',
          message: `src/${relative(srcDir, f)} imports src/${relative(srcDir, target)}: ${top} may not import ${to} (layers run ${LAYERS.map((l) => l.join(', ')).join(' → ')})`,
        });
      }
    }
  }
  for (const [dir, n] of perFolder) {
    if (n > MAX_FILES_PER_FOLDER) out.push({ rule: 'folder-size', message: `src/${dir} holds ${n} files (at most ${MAX_FILES_PER_FOLDER}): give its units folders of their own` });
  }
  return out;
}

/**
 * Runtime import cycles among the compiled modules in jsDir (tsc's output keeps only the imports of values). With
 * srcDir, only modules whose source still exists count (a local dist/ keeps the output of files since moved).
 */
export function checkCycles(jsDir: string, srcDir?: string): Violation[] {
  const files = walk(jsDir, '.js').filter((f) => !srcDir || existsSync(join(srcDir, relative(jsDir, f)).replace(/\.js$/, '.ts')));
  const graph = new Map<string, string[]>();
  for (const f of files) graph.set(f, imports(f, readFileSync(f, 'utf8'), STATIC_SPECIFIER).filter((t) => t !== f));
  // Tarjan's strongly connected components, iteratively (deep graphs)
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: Violation[] = [];
  const work: { v: string; i: number }[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    work.push({ v, i: 0 });
  };
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    visit(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++]!;
        if (!graph.has(w)) continue;
        if (!index.has(w)) visit(w);
        else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const comp: string[] = [];
        let w: string;
        do { w = stack.pop()!; onStack.delete(w); comp.push(w); } while (w !== top.v);
        if (comp.length > 1) {
          const names = comp.map((f) => relative(jsDir, f).replace(/\.js$/, '.ts')).sort();
          out.push({ rule: 'cycle', message: `import cycle among ${names.map((n) => `src/${n}`).join(', ')}: move what they share into a file of its own` });
        }
      }
    }
  }
  return out;
}

/** The subject a KNOWN entry names: `rule src/file.ts`. */
export const subject = (v: Violation): string => `${v.rule} ${/src\/[^\s:,]+/.exec(v.message)?.[0] ?? v.message}`;

/** Every rule over the checkout at root (dist/src is tsc's output), less KNOWN, plus KNOWN entries no longer found. */
export function checkLayout(root: string, known: readonly string[] = KNOWN): Violation[] {
  const found = [...checkSources(join(root, 'src')), ...checkCycles(join(root, 'dist/src'), join(root, 'src'))];
  const seen = new Set(found.map(subject));
  const stale = known.filter((k) => !seen.has(k)).map((k): Violation => ({ rule: 'known', message: `"${k}" is mended: remove it from KNOWN (scripts/check-layout.ts)` }));
  return [...found.filter((v) => !known.includes(subject(v))), ...stale];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const found = checkLayout(root);
  for (const v of found) console.log(`${v.rule}: ${v.message}`);
  console.log(found.length ? `${found.length} layout violations` : 'layout: no violations');
  process.exitCode = found.length ? 1 : 0;
}

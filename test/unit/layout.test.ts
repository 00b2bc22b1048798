// The layout rules of docs/architecture.md, kept true by scripts/check-layout.ts: layers import downwards only,
// no runtime import cycle between files, folders and files of a size a reader can take in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCycles, checkLayout, checkSources, mayImport, MAX_FILES_PER_FOLDER, MAX_LINES, subject } from '../../scripts/check-layout.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('src/ keeps its layers, has no import cycle, no oversized folder or file', () => {
  assert.deepEqual(checkLayout(root).map((v) => `${v.rule}: ${v.message}`), []);
});

test('a KNOWN violation is let through only while it exists', (t) => {
  const dir = tree({ 'src/api/big.ts': 'x;\n'.repeat(MAX_LINES + 1), 'src/api/small.ts': 'x;\n', 'dist/src/api/big.js': '' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(checkLayout(dir, ['file-size src/api/big.ts']), []);
  assert.deepEqual(checkLayout(dir, []).map(subject), ['file-size src/api/big.ts']);
  assert.deepEqual(checkLayout(dir, ['file-size src/api/big.ts', 'file-size src/api/small.ts']).map((v) => v.rule), ['known']);
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-layout-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('an upward import between layers is reported, type-only ones too; downward and peer-earlier ones are not', (t) => {
  const dir = tree({
    'machinery/object.ts': "import type { KObject } from '../api/types.js';\nexport const x = 1;\n",
    'api/types.ts': "import { x } from '../machinery/object.js';\nexport type KObject = { x: typeof x };\n",
    'scheduler/queue.ts': "export { x } from '../controllers/manager.js';\n",
    'controllers/manager.ts': "import '../scheduler/queue.js';\nconst m = await import('../cli/main.js');\nexport const x = m;\n",
    'cli/main.ts': "// import { y } from '../api/types.js' in a comment is no import\nexport {};\n",
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const layer = checkSources(dir).filter((v) => v.rule === 'layer').map((v) => v.message.split(':')[0]);
  assert.deepEqual(layer.sort(), ['src/controllers/manager.ts imports src/cli/main.js', 'src/machinery/object.ts imports src/api/types.js', 'src/scheduler/queue.ts imports src/controllers/manager.js'].sort());
  assert.equal(mayImport('kubelet', 'network'), true);
  assert.equal(mayImport('network', 'kubelet'), false);
  assert.equal(mayImport('apiserver', 'client'), false);
  assert.equal(mayImport('cli', 'storage'), true);
});

test('a folder outside every layer, an oversized folder and an oversized file are reported', (t) => {
  const files: Record<string, string> = { 'extras/a.ts': 'export {};\n', 'api/big.ts': 'x;\n'.repeat(MAX_LINES + 1) };
  for (let i = 0; i <= MAX_FILES_PER_FOLDER; i++) files[`kubelet/f${i}.ts`] = 'export {};\n';
  const dir = tree(files);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const rules = checkSources(dir).map((v) => `${v.rule} ${v.message.split(' ')[0]}`).sort();
  assert.deepEqual(rules, ['file-size src/api/big.ts', 'folder-size src/kubelet', 'unknown-folder src/extras/a.ts:']);
});

test('a runtime import cycle is reported once with its members; a chain and stale outputs are not', (t) => {
  const dir = tree({
    'js/a.js': "import { b } from './b.js';\nexport const a = 1;\n",
    'js/b.js': "import { c } from './sub/c.js';\nexport const b = 2;\n",
    'js/sub/c.js': "export { a } from '../a.js';\n",
    'js/d.js': "import { a } from './a.js';\n",
    'js/stale.js': "import './stale2.js';\n",
    'js/stale2.js': "import './stale.js';\n",
    'ts/a.ts': '', 'ts/b.ts': '', 'ts/sub/c.ts': '', 'ts/d.ts': '',
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cycles = checkCycles(join(dir, 'js'), join(dir, 'ts'));
  assert.equal(cycles.length, 1);
  assert.match(cycles[0]!.message, /^import cycle among src\/a\.ts, src\/b\.ts, src\/sub\/c\.ts:/);
  assert.equal(checkCycles(join(dir, 'js')).length, 2, 'without srcDir every output counts');
});

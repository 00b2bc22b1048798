import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isStandaloneExecutable, SERVER_NODE_FLAGS, withServerNodeFlags } from '../../../src/cli/server-node-flags.js';

const repoRoot = join(import.meta.dirname, '../../../..');

test('the server node flags: bin/k1s runs with exactly them, `k1s start` adds them unless the user gave a value', () => {
  const shebang = readFileSync(join(repoRoot, 'bin/k1s'), 'utf8').split('\n')[0]!;
  assert.deepEqual(shebang.split(' ').slice(3), [...SERVER_NODE_FLAGS], shebang);
  assert.match(shebang, /^#!\/usr\/bin\/env -S node /);
  assert.deepEqual(withServerNodeFlags([]), [...SERVER_NODE_FLAGS]);
  assert.deepEqual(withServerNodeFlags(['--inspect']), ['--inspect', ...SERVER_NODE_FLAGS]);
  assert.deepEqual(withServerNodeFlags([...SERVER_NODE_FLAGS]), [...SERVER_NODE_FLAGS], 'not twice');
  assert.deepEqual(withServerNodeFlags(['--max-semi-space-size=16']), ['--max-semi-space-size=16'], "the user's own value wins");
  assert.equal(isStandaloneExecutable(), false);
});

test('each set of node flags has its own code cache file (V8 rejects a cache made under other flags)', async () => {
  const href = pathToFileURL(join(repoRoot, 'bin/load-bundle.mjs')).href;
  const { codeCacheFile } = (await import(href)) as { codeCacheFile(execArgv?: string[], nodeOptions?: string): string };
  const plain = codeCacheFile([], '');
  const server = codeCacheFile([...SERVER_NODE_FLAGS], '');
  assert.equal(plain, join(repoRoot, 'dist/k1s.cjs.cache'));
  assert.match(server, /dist\/k1s\.cjs\.[0-9a-f]{12}\.cache$/);
  assert.notEqual(codeCacheFile(['--inspect'], ''), server);
  assert.equal(codeCacheFile([...SERVER_NODE_FLAGS], ''), server, 'stable');
  // NODE_OPTIONS sets flags too
  assert.notEqual(codeCacheFile([...SERVER_NODE_FLAGS], '--max-old-space-size=8192'), server);
  assert.equal(codeCacheFile([], ` ${SERVER_NODE_FLAGS.join(' ')} `), server, 'the same flags, wherever they are given');
});

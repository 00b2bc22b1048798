// Issue 9's acceptance (test/e2e/acceptance.ts) on a REAL node with the compiled CLI: its own pod network (bridge
// k1sacc0, 10.48.0.0/16) and free ports, a temp K1S_HOME and KUBECONFIG, so it runs beside the other real-node tests.
// test/e2e/sea.test.ts runs the same scenario with the standalone executable.
import { test } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanUpAcceptance, runAcceptance, type AcceptanceOptions } from './acceptance.js';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-node-flags.js';
import { kubectlPath, repoRoot, run } from './harness.js';

test('k1s on a real node: start, stop/start, snapshot, delete, start --from-snapshot, delete leaves nothing', { timeout: 150_000 }, async (t) => {
  const t0 = Date.now();
  const home = mkdtempSync(join(tmpdir(), 'k1s-cli-node-'));
  const k1sHome = join(home, 'k1s');
  const kubeconfig = join(home, 'kubeconfig');
  // the compiled CLI (bin/k1s may run a bundle of another build); K1S_SELF makes `start` spawn the same one
  const entry = join(home, 'k1s.mjs');
  writeFileSync(entry, `import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/src/cli/main.js')).href)}).then((m) => m.main(process.argv.slice(2)));\n`);
  const env: NodeJS.ProcessEnv = { HOME: home, K1S_HOME: k1sHome, KUBECONFIG: kubeconfig, K1S_SELF: entry, K1S_KUBECTL: kubectlPath('1.33'), K1S_SQLITE_WRITER: 'thread' };
  const o: AcceptanceOptions = {
    k1s: (...args) => run(process.execPath, [entry, ...args], { env, timeoutMs: 90_000 }),
    kubectl: (args, input) => run(kubectlPath('1.33'), args, { env, input, timeoutMs: 30_000 }),
    home,
    k1sHome,
    kubeconfig,
    bridge: 'k1sacc0',
    clusterCIDR: '10.48.0.0/16',
    serviceCIDR: '10.148.0.0/16',
    serverNodeFlags: SERVER_NODE_FLAGS,
  };
  t.after(async () => {
    await cleanUpAcceptance(o);
    rmSync(home, { recursive: true, force: true });
  });
  const figures = await runAcceptance(o);
  console.log(`cli-node acceptance: ${figures.join(', ')}; total ${Date.now() - t0} ms`);
});

// A `k1s` executable of the compiled CLI in a temp dir, with a K1S_HOME holding two stopped clusters, for tests
// that run the CLI as a user does.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const mainJs = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

export function run(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: { ...process.env, ...opts.env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** A `k1s` executable (the compiled CLI) in a temp dir with two clusters in its K1S_HOME. */
export function fixture(t: { after: (fn: () => void) => void }): { dir: string; k1s: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-completion-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const k1s = join(dir, 'k1s');
  writeFileSync(join(dir, 'k1s.mjs'), `import(${JSON.stringify(pathToFileURL(mainJs).href)}).then((m) => m.main(process.argv.slice(2)));\n`);
  writeFileSync(k1s, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, 'k1s.mjs'))} "$@"\n`);
  chmodSync(k1s, 0o755);
  const home = join(dir, 'home');
  for (const name of ['dev', 'ci-1']) {
    mkdirSync(join(home, name), { recursive: true });
    writeFileSync(join(home, name, 'k1s-cluster.json'), JSON.stringify({ name, pid: 0, port: 6443, startedAt: '', serverArgs: ['--disable-agent'] }));
  }
  writeFileSync(join(dir, 'golden.tar'), '');
  return { dir, k1s, env: { K1S_HOME: home } };
}

// The k1s CLI end to end, as a user runs it: start → kubectl → stop → start → snapshot → delete → start
// --from-snapshot → delete, with API-only clusters and simulated nodes (no root features), in a temp HOME.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { kubectlPath, repoRoot } from './harness.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

test('k1s start/stop/snapshot/delete keep and fork the objects and leave nothing behind', { timeout: 120_000 }, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'k1s-cli-e2e-'));
  const k1sHome = join(home, '.k1s');
  const kubeconfig = join(home, '.kube', 'config');
  // the compiled CLI (bin/k1s may run a bundle of another build); K1S_SELF makes `start` spawn the same one
  const entry = join(home, 'k1s.mjs');
  writeFileSync(entry, `import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/src/cli/main.js')).href)}).then((m) => m.main(process.argv.slice(2)));\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, K1S_HOME: k1sHome, KUBECONFIG: kubeconfig, K1S_SELF: entry, K1S_KUBECTL: kubectlPath('1.33') };
  delete env.K1S_SQLITE_WRITER;
  const pids = new Set<number>();
  t.after(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  });
  const run = (file: string, args: string[]) =>
    new Promise<Run>((resolve) => {
      execFile(file, args, { env, cwd: home, timeout: 90_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  const k1s = async (...args: string[]) => {
    const r = await run(process.execPath, [entry, ...args]);
    for (const name of ['k1s', 'fork']) {
      try {
        pids.add((JSON.parse(readFileSync(join(k1sHome, name, 'k1s-cluster.json'), 'utf8')) as { pid: number }).pid);
      } catch {
        // no such cluster
      }
    }
    pids.delete(0);
    return r;
  };
  const kubectl = (...args: string[]) => run(kubectlPath('1.33'), args);
  const ok = (r: Run, what: string) => assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
  const serverAlive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2].startsWith('Z');
    } catch {
      return false;
    }
  };

  // usage errors are exit code 2, with help
  const bad = await k1s('start', '--simulated-nodes', 'many');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--simulated-nodes must be a whole number/);
  assert.equal((await k1s('stop', '--help')).code, 0);

  const started = await k1s('start', '--simulated-nodes', '2', '--no-kubelet');
  ok(started, 'k1s start');
  assert.match(started.stdout, /cluster "k1s" is ready at https:\/\/127\.0\.0\.1:\d+/);
  assert.match(started.stderr, /Certificates .*\nObject store/); // plain progress lines when not a terminal
  assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
  const again = await k1s('start');
  ok(again, 'second start');
  assert.match(again.stdout, /already running/);

  // the merged context is current: plain kubectl reaches the cluster, whose nodes are Ready
  const nodes = await kubectl('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}');
  ok(nodes, 'kubectl get nodes');
  assert.equal(nodes.stdout.trim(), 'k1s-sim-0=True k1s-sim-1=True');
  ok(await kubectl('create', 'configmap', 'settings', '--from-literal=color=blue'), 'create configmap');
  ok(await kubectl('patch', 'configmap', 'settings', '-p', '{"data":{"color":"green"}}'), 'patch configmap');
  ok(await kubectl('create', 'deployment', 'web', '--image=busybox', '--replicas=2'), 'create deployment');
  const viaK1s = await k1s('kubectl', 'get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}');
  ok(viaK1s, 'k1s kubectl');
  assert.equal(viaK1s.stdout, 'green');

  const list = await k1s('list');
  ok(list, 'k1s list');
  assert.match(list.stdout, /^NAME\s+STATUS\s+URL\s+NODES\s+CONTEXT\s+PID\nk1s\s+Running\s+https:\S+\s+2\/2\s+k1s\s+\d+\n$/);
  const history = await k1s('history', 'cm/settings');
  ok(history, 'k1s history');
  assert.match(history.stdout, /ADDED by kubectl-create \(Update\)[\s\S]*MODIFIED by kubectl-patch \(Update\)[\s\S]*-   color: blue\n\+   color: green/);
  assert.match((await k1s('logs', '--tail', '50')).stdout, /API server ready at/);

  // stop keeps the objects; start resumes with the same flags
  const firstPid = [...pids][0];
  ok(await k1s('stop'), 'k1s stop');
  assert.equal(serverAlive(firstPid), false);
  assert.equal((await k1s('status')).code, 1);
  ok(await k1s('start'), 'restart');
  const resumed = await kubectl('get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}');
  ok(resumed, 'get after restart');
  assert.equal(resumed.stdout, 'green');
  const nodesAfter = await kubectl('get', 'nodes', '-o', 'name');
  assert.equal(nodesAfter.stdout.trim().split('\n').length, 2);

  // a CRD and one of its objects travel in the snapshot too
  const crdFile = join(home, 'crd.json');
  writeFileSync(crdFile, JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'notes.cli.example.com' },
    spec: { group: 'cli.example.com', scope: 'Namespaced', names: { plural: 'notes', kind: 'Note' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { text: { type: 'string' } } } } }] },
  }));
  ok(await kubectl('apply', '-f', crdFile), 'apply CRD');
  ok(await kubectl('wait', '--for=condition=Established', 'crd/notes.cli.example.com', '--timeout=20s'), 'CRD established');
  const noteFile = join(home, 'note.json');
  writeFileSync(noteFile, JSON.stringify({ apiVersion: 'cli.example.com/v1', kind: 'Note', metadata: { name: 'hello', namespace: 'default' }, text: 'kept' }));
  ok(await kubectl('apply', '-f', noteFile), 'apply Note');

  // snapshot while it runs, delete everything, fork a new cluster from the file
  const snap = join(home, 'golden.tar');
  const saved = await k1s('snapshot', 'save', snap);
  ok(saved, 'snapshot save');
  assert.match(saved.stdout, /saved to .* objects at revision \d+/);
  const runningPid = JSON.parse(readFileSync(join(k1sHome, 'k1s', 'k1s-cluster.json'), 'utf8')).pid as number;
  ok(await k1s('delete'), 'k1s delete');
  assert.equal(serverAlive(runningPid), false);
  assert.equal(existsSync(join(k1sHome, 'k1s')), false);
  assert.doesNotMatch(readFileSync(kubeconfig, 'utf8'), /name: k1s\b/);

  const forked = await k1s('start', 'fork', '--from-snapshot', snap);
  ok(forked, 'start --from-snapshot');
  assert.match(forked.stdout, /kubectl context "k1s-fork" is now current/);
  const cm = await kubectl('get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}');
  ok(cm, 'get in the fork');
  assert.equal(cm.stdout, 'green');
  const note = await kubectl('get', 'note', 'hello', '-o', 'jsonpath={.text}');
  ok(note, 'get the custom object in the fork');
  assert.equal(note.stdout, 'kept');
  const deploy = await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}');
  assert.equal(deploy.stdout, '2');
  const forkNodes = await kubectl('get', 'nodes', '-o', 'name');
  assert.equal(forkNodes.stdout.trim(), 'node/k1s-sim-0\nnode/k1s-sim-1', 'the snapshot\'s flags (2 simulated nodes) carry over');
  const forkPid = JSON.parse(readFileSync(join(k1sHome, 'fork', 'k1s-cluster.json'), 'utf8')).pid as number;
  ok(await k1s('delete', 'fork'), 'delete fork');
  assert.equal(serverAlive(forkPid), false);
  assert.equal(existsSync(join(k1sHome, 'fork')), false);
  const finalConfig = readFileSync(kubeconfig, 'utf8');
  assert.doesNotMatch(finalConfig, /k1s/);
  assert.match((await k1s('list')).stdout, /no clusters/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionCommand, fishScript } from '../../../src/cli/completion.js';
import { fixture, run } from './cli-fixture.js';

test('completion: help with install lines, usage errors exit 2', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
  assert.equal(await completionCommand(['--help'], [], io), 0);
  assert.match(out.join(''), /source <\(k1s completion bash\)/);
  assert.match(out.join(''), /k1s completion fish > ~\/\.config\/fish\/completions\/k1s\.fish/);
  assert.match(out.join(''), /^Examples:/m);
  assert.equal(await completionCommand([], [], io), 2);
  assert.equal(await completionCommand(['tcsh'], [], io), 2);
  assert.match(err.join(''), /unsupported shell "tcsh" \(bash, zsh or fish\)/);
  assert.equal(await completionCommand(['bash', 'extra'], [], io), 2);
});

test('the bash script is valid and completes commands, flags, subcommands, cluster names and files', async (t) => {
  const { dir, k1s, env } = fixture(t);
  const script = await run(k1s, ['completion', 'bash'], { env });
  assert.equal(script.code, 0, script.stderr);
  const file = join(dir, 'k1s.bash');
  writeFileSync(file, script.stdout);
  const syntax = await run('bash', ['-n', file]);
  assert.equal(syntax.code, 0, syntax.stderr);
  // what bash does on TAB: COMP_WORDS/COMP_CWORD set, the registered function called, COMPREPLY read
  const complete = async (...words: string[]) => {
    const r = await run(
      'bash',
      ['-c', `cd ${JSON.stringify(dir)}; source ${JSON.stringify(file)}; complete -p k1s; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _k1s; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', k1s, ...words],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    const [registration, ...replies] = r.stdout.split('\n').filter(Boolean);
    assert.equal(registration, 'complete -F _k1s k1s');
    return replies.sort();
  };
  assert.deepEqual(await complete('st'), ['start', 'status', 'stop']);
  assert.deepEqual(await complete('comp'), ['completion']);
  assert.deepEqual(await complete('start', '--w'), ['--wait']);
  assert.deepEqual(await complete('start', '--cluster'), ['--cluster-cidr']);
  assert.deepEqual(await complete('stop', '--'), ['--help', '--keep-pods', '--name', '--timeout']);
  assert.deepEqual(await complete('image', ''), ['load', 'ls', 'rm']);
  assert.deepEqual(await complete('snapshot', 'r'), ['restore']);
  assert.deepEqual(await complete('stop', ''), ['ci-1', 'dev'], 'cluster names from k1s list');
  assert.deepEqual(await complete('delete', 'd'), ['dev']);
  assert.deepEqual(await complete('snapshot', 'save', '--name', ''), ['ci-1', 'dev']);
  assert.deepEqual(await complete('stop', 'dev', ''), [], 'one NAME only');
  assert.deepEqual(await complete('start', '--from-snapshot', 'gol'), ['golden.tar']);
  assert.deepEqual(await complete('snapshot', 'save', 'gold'), ['golden.tar']);
  assert.deepEqual(await complete('start', '--wait', ''), [], 'a value with no completion');
});

test('the zsh and fish scripts name every command and flag', async (t) => {
  const { k1s, env } = fixture(t);
  const zsh = await run(k1s, ['completion', 'zsh'], { env });
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /^#compdef k1s\n/);
  assert.match(zsh.stdout, /bashcompinit/);
  assert.match(zsh.stdout, /complete -F _k1s k1s/);
  const fish = await run(k1s, ['completion', 'fish'], { env });
  assert.equal(fish.code, 0);
  assert.match(fish.stdout, /complete -c k1s -n "not __fish_seen_subcommand_from server node image start .*" -a start -d 'start a cluster/);
  assert.match(fish.stdout, /complete -c k1s -n "__fish_seen_subcommand_from start" -l from-snapshot -r -F/);
  assert.match(fish.stdout, /complete -c k1s -n "__fish_seen_subcommand_from stop" -l name -x -a "\(__k1s_clusters\)"/);
  assert.match(fish.stdout, /complete -c k1s -n "__fish_seen_subcommand_from logs" -s f/);
  assert.equal(fishScript([{ name: 'x', summary: "it's" }], {}).includes(`-d 'it'\\''s'`), true, 'summaries are quoted for the shell');
});

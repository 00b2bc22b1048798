// `k1s completion bash|zsh|fish`: prints a shell completion script (kubectl/kind style): commands, their flags,
// subcommands, file names where a command takes files, and cluster names (from `k1s list -o json`, asked of the
// same k1s the user typed) for NAME arguments and --name. The flag table is checked against every command's
// --help by the unit tests, so the two cannot drift apart.

export interface CommandSpec {
  /** flags (long and short forms) */
  flags: string[];
  /** flags that take a value */
  valueFlags?: string[];
  /** flags whose value is a file or directory */
  fileFlags?: string[];
  /** the first positional is a cluster name */
  cluster?: boolean;
  /** the first positional is one of these */
  subcommands?: string[];
  /** positionals (after any subcommand) are files */
  files?: boolean;
}

const NAME = ['--name'];
const HELP = ['-h', '--help'];

export const COMMAND_SPECS: Record<string, CommandSpec> = {
  server: {
    flags: [
      '--data-dir', '--https-listen-port', '--bind-address', '--write-kubeconfig', '--disable-agent', '--node-name',
      '--container-runtime-endpoint', '--pause-image', '--kubelet-port', '--cni-bridge', '--cni-bin-dir', '--ingress-http-port',
      '--ingress-https-port', '--disable-ingress', '--disable-servicelb', '--registry-port', '--disable-registry', '--authorization-mode', '--anonymous-auth', '--disable-controller-manager',
      '--disable-scheduler', '--disable-metrics', '--cluster-cidr', '--service-cidr', '--simulated-nodes', '--simulated-node-cpu', '--simulated-node-memory',
      '--simulated-node-pods', '--admission-control-config-file', '--audit-policy-file', '--audit-log-path', '--audit-log-maxsize',
      '--audit-log-maxbackup', '--audit-log-maxage', '--audit-log-compress', '--encryption-provider-config', '--encryption-provider-config-automatic-reload', '--secrets-encryption',
      '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix',
      '--token', '--token-file', '--advertise-address', ...HELP,
    ],
    valueFlags: [
      '--data-dir', '--https-listen-port', '--bind-address', '--write-kubeconfig', '--node-name', '--container-runtime-endpoint',
      '--pause-image', '--kubelet-port', '--cni-bridge', '--cni-bin-dir', '--ingress-http-port', '--ingress-https-port', '--registry-port',
      '--cluster-cidr', '--service-cidr', '--authorization-mode', '--simulated-nodes', '--simulated-node-cpu', '--simulated-node-memory', '--simulated-node-pods',
      '--admission-control-config-file', '--audit-policy-file', '--audit-log-path', '--audit-log-maxsize', '--audit-log-maxbackup',
      '--audit-log-maxage', '--encryption-provider-config', '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile',
      '--datastore-keyfile', '--etcd-prefix', '--token', '--token-file', '--advertise-address',
    ],
    fileFlags: ['--data-dir', '--write-kubeconfig', '--cni-bin-dir', '--admission-control-config-file', '--audit-policy-file', '--audit-log-path',
      '--encryption-provider-config', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--token-file'],
  },
  agent: {
    flags: ['--server', '--token', '--token-file', '--ca-cert-hash', '--data-dir', '--node-name', '--node-ip', '--node-labels', '--kubelet-port', '--cni-bridge', ...HELP],
    valueFlags: ['--server', '--token', '--token-file', '--ca-cert-hash', '--data-dir', '--node-name', '--node-ip', '--node-labels', '--kubelet-port', '--cni-bridge'],
    fileFlags: ['--token-file', '--data-dir'],
  },
  token: {
    flags: ['--ttl', '--description', '--groups', '--usages', '--kubeconfig', '--context', '--print-join-command', ...HELP],
    valueFlags: ['--ttl', '--description', '--groups', '--usages', '--kubeconfig', '--context'],
    fileFlags: ['--kubeconfig'],
    subcommands: ['create', 'list', 'delete'],
  },
  node: {
    flags: ['--simulated', '--cpu', '--memory', '--pods', '--zone', '--kubeconfig', '--context', ...HELP],
    valueFlags: ['--cpu', '--memory', '--pods', '--zone', '--kubeconfig', '--context'],
    fileFlags: ['--kubeconfig'],
    subcommands: ['add', 'remove', 'ls'],
  },
  image: {
    flags: [...NAME, '--data-dir', '--container-runtime-endpoint', ...HELP],
    valueFlags: [...NAME, '--data-dir', '--container-runtime-endpoint'],
    fileFlags: ['--data-dir'],
    subcommands: ['load', 'ls', 'rm'],
    files: true,
  },
  start: {
    flags: [
      ...NAME, '--simulated-nodes', '--no-kubelet', '--port', '--wait', '--from-snapshot', '--no-switch-context', '--cni-bridge', '--cni-bin-dir',
      '--cluster-cidr', '--service-cidr', '--ingress-http-port', '--ingress-https-port', '--kubelet-port', '--node-name', '--disable-ingress',
      '--disable-servicelb', '--registry-port', '--disable-registry', '--audit-policy-file', '--audit-log-path', '--audit-log-maxsize', '--audit-log-maxbackup', '--audit-log-maxage',
      '--audit-log-compress', '--encryption-provider-config', '--encryption-provider-config-automatic-reload', '--secrets-encryption',
      '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix', ...HELP,
    ],
    valueFlags: [
      ...NAME, '--simulated-nodes', '--port', '--wait', '--from-snapshot', '--cni-bridge', '--cni-bin-dir', '--cluster-cidr', '--service-cidr', '--ingress-http-port',
      '--ingress-https-port', '--kubelet-port', '--node-name', '--registry-port', '--audit-policy-file', '--audit-log-path', '--audit-log-maxsize', '--audit-log-maxbackup',
      '--audit-log-maxage', '--encryption-provider-config', '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile',
      '--datastore-keyfile', '--etcd-prefix',
    ],
    fileFlags: ['--from-snapshot', '--cni-bin-dir', '--audit-policy-file', '--audit-log-path', '--encryption-provider-config',
      '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile'],
    cluster: true,
  },
  stop: { flags: [...NAME, '--timeout', '--keep-pods', ...HELP], valueFlags: [...NAME, '--timeout'], cluster: true },
  delete: { flags: [...NAME, '--timeout', ...HELP], valueFlags: [...NAME, '--timeout'], cluster: true },
  status: { flags: [...NAME, '-o', '--output', ...HELP], valueFlags: [...NAME, '-o', '--output'], cluster: true },
  list: { flags: ['-o', '--output', ...HELP], valueFlags: ['-o', '--output'] },
  logs: { flags: [...NAME, '-f', '--follow', '--tail', ...HELP], valueFlags: [...NAME, '--tail'], cluster: true },
  kubeconfig: { flags: [...NAME, '--path', ...HELP], valueFlags: NAME, cluster: true },
  kubectl: { flags: [...NAME, ...HELP], valueFlags: NAME, cluster: true },
  snapshot: {
    flags: [...NAME, '--data-dir', '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix', '--force', ...HELP],
    valueFlags: [...NAME, '--data-dir', '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix'],
    fileFlags: ['--data-dir', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile'],
    subcommands: ['save', 'restore'],
    files: true,
  },
  datastore: {
    flags: ['--from', '--to', '--etcd-prefix', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--force', ...HELP],
    valueFlags: ['--from', '--to', '--etcd-prefix', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile'],
    fileFlags: ['--datastore-cafile', '--datastore-certfile', '--datastore-keyfile'],
    subcommands: ['migrate'],
  },
  certs: {
    flags: [...NAME, '--data-dir', '--kubeconfig', '-o', '--output', ...HELP],
    valueFlags: [...NAME, '--data-dir', '--kubeconfig', '-o', '--output'],
    fileFlags: ['--data-dir', '--kubeconfig'],
    subcommands: ['check', 'rotate'],
  },
  'secrets-encrypt': {
    flags: [...NAME, '--data-dir', '--kubeconfig', ...HELP],
    valueFlags: [...NAME, '--data-dir', '--kubeconfig'],
    fileFlags: ['--data-dir', '--kubeconfig'],
    subcommands: ['status', 'rotate', 'reencrypt', 'prune'],
  },
  history: {
    flags: ['-n', '--namespace', ...NAME, '--data-dir', '--show-managed-fields', '-o', '--output', ...HELP],
    valueFlags: ['-n', '--namespace', ...NAME, '--data-dir', '-o', '--output'],
    fileFlags: ['--data-dir'],
  },
  completion: { flags: HELP, subcommands: ['bash', 'zsh', 'fish'] },
  version: { flags: HELP },
};

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const words = (xs: string[] | undefined) => (xs ?? []).join(' ');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The bash completion function `_k1s` and its `complete` line. */
export function bashScript(commands: string[], specs: Record<string, CommandSpec> = COMMAND_SPECS): string {
  const cases = (pick: (s: CommandSpec) => string) =>
    Object.entries(specs)
      .map(([c, s]) => `    ${c}) ${pick(s)} ;;`)
      .join('\n');
  return `# bash completion for k1s (generated by: k1s completion bash)
_k1s_clusters() {
  "\${COMP_WORDS[0]}" list -o json 2>/dev/null | sed -n 's/^ *"name": "\\([^"]*\\)".*/\\1/p'
}

_k1s() {
  local cur prev cmd i sub="" flags="" values="" fileflags="" subs="" cluster="" files=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W ${quote(commands.join(' '))} -- "$cur") )
    return 0
  fi
  cmd="\${COMP_WORDS[1]}"
  case "$cmd" in
${cases((s) => `flags=${quote(words(s.flags))}; values=${quote(words(s.valueFlags))}; fileflags=${quote(words(s.fileFlags))}; subs=${quote(words(s.subcommands))}; cluster=${s.cluster ? 1 : '""'}; files=${s.files ? 1 : '""'}`)}
    *) return 0 ;;
  esac
  # a flag's value
  if [[ " $values " == *" $prev "* ]]; then
    if [[ "$prev" == "--name" ]]; then
      COMPREPLY=( $(compgen -W "$(_k1s_clusters)" -- "$cur") )
    elif [[ " $fileflags " == *" $prev "* ]]; then
      COMPREPLY=( $(compgen -f -- "$cur") )
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
    return 0
  fi
  # the positionals typed so far (skipping flags and their values)
  local -a args=()
  for (( i=2; i < COMP_CWORD; i++ )); do
    local w="\${COMP_WORDS[i]}"
    if [[ "$w" == -* ]]; then
      [[ " $values " == *" $w "* ]] && (( i++ ))
      continue
    fi
    args+=("$w")
  done
  if [[ -n "$subs" && \${#args[@]} -eq 0 ]]; then
    COMPREPLY=( $(compgen -W "$subs" -- "$cur") )
  elif [[ -n "$cluster" && \${#args[@]} -eq 0 ]]; then
    COMPREPLY=( $(compgen -W "$(_k1s_clusters)" -- "$cur") )
  elif [[ -n "$files" ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
  return 0
}

complete -F _k1s k1s
`;
}

/** zsh runs the bash function through bashcompinit (as terraform's and several Go CLIs' zsh completions do). */
export function zshScript(commands: string[]): string {
  return `#compdef k1s
# zsh completion for k1s (generated by: k1s completion zsh)
autoload -U +X compinit && { (( $+functions[compdef] )) || compinit }
autoload -U +X bashcompinit && bashcompinit
${bashScript(commands).replace(/^# bash completion.*\n/, '')}`;
}

export function fishScript(commands: { name: string; summary: string }[], specs: Record<string, CommandSpec> = COMMAND_SPECS): string {
  const lines = [
    '# fish completion for k1s (generated by: k1s completion fish)',
    'function __k1s_clusters',
    '    set -l k1s (commandline -opc)[1]',
    `    $k1s list -o json 2>/dev/null | string match -rg '"name": "([^"]*)"'`,
    'end',
    'complete -c k1s -f',
  ];
  const all = commands.map((c) => c.name).join(' ');
  for (const c of commands) lines.push(`complete -c k1s -n "not __fish_seen_subcommand_from ${all}" -a ${c.name} -d ${quote(c.summary)}`);
  for (const [cmd, s] of Object.entries(specs)) {
    const when = `-n "__fish_seen_subcommand_from ${cmd}"`;
    for (const f of s.flags) {
      const opt = f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`;
      const value = s.valueFlags?.includes(f) ? (f === '--name' ? ' -x -a "(__k1s_clusters)"' : s.fileFlags?.includes(f) ? ' -r -F' : ' -x') : '';
      lines.push(`complete -c k1s ${when} ${opt}${value}`);
    }
    if (s.subcommands) lines.push(`complete -c k1s ${when} -n "not __fish_seen_subcommand_from ${s.subcommands.join(' ')}" -a ${quote(s.subcommands.join(' '))}`);
    if (s.cluster) lines.push(`complete -c k1s ${when} -a "(__k1s_clusters)"`);
    if (s.files) lines.push(`complete -c k1s ${when} -F`);
  }
  return lines.join('\n') + '\n';
}

export const completionHelp = `Usage: k1s completion bash|zsh|fish

Prints a shell completion script for k1s: its commands, their flags and subcommands, file names, and the names
of your clusters (from "k1s list") for NAME arguments and --name.

Examples:
  # bash (needs the bash-completion package): this shell, then every new one
  source <(k1s completion bash)
  k1s completion bash > /etc/bash_completion.d/k1s        # or: echo 'source <(k1s completion bash)' >> ~/.bashrc

  # zsh
  source <(k1s completion zsh)
  echo 'source <(k1s completion zsh)' >> ~/.zshrc

  # fish
  k1s completion fish | source
  k1s completion fish > ~/.config/fish/completions/k1s.fish

Flags:
  -h, --help   show this help

Exit status: 0 printed, 2 usage error (no or an unknown shell).`;

/** `commands`: the k1s commands with their one-line summaries, in the order `k1s --help` lists them. */
export async function completionCommand(args: string[], commands: { name: string; summary: string }[], io: { out?: (s: string) => void; err?: (s: string) => void } = {}): Promise<number> {
  const out = io.out ?? ((s: string) => process.stdout.write(s));
  const err = io.err ?? ((s: string) => process.stderr.write(s));
  if (args.includes('-h') || args.includes('--help')) {
    out(completionHelp + '\n');
    return 0;
  }
  const [shell, ...extra] = args;
  if (!shell || !(SHELLS as readonly string[]).includes(shell) || extra.length) {
    err(`k1s completion: ${shell ? (extra.length ? `unexpected arguments: ${extra.join(' ')}` : `unsupported shell "${shell}"`) : 'name a shell'} (bash, zsh or fish)\n\n${completionHelp}\n`);
    return 2;
  }
  const names = commands.map((c) => c.name);
  if (shell === 'bash') out(bashScript(names));
  else if (shell === 'zsh') out(zshScript(names));
  else out(fishScript(commands));
  return 0;
}

// `k1s token create|list|delete`: bootstrap tokens for nodes joining the cluster, as `kubeadm token` manages them
// (Secrets kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token, through the API).
import { parseArgs } from 'node:util';
import { kubeconfigClient } from './kubeconfig-client.js';
import type { KObject } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';
import { parseGoDuration } from '../machinery/cel/types.js';
import { BOOTSTRAP_TOKEN_PATTERN, BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE, EXTRA_GROUP_PATTERN } from '../apiserver/auth/bootstrap-token.js';
import { bootstrapTokenSecret, generateBootstrapToken, NODE_JOIN_GROUP } from '../cluster/bootstrap-tokens.js';
import { caCertHash } from '../pki/bootstrap-jws.js';

const help = `Usage: k1s token <create|list|delete> [flags]

Manages bootstrap tokens: what \`k1s agent --token\` presents to join a node to the cluster (as kubeadm's tokens).
The server's own join token, which never expires, is in DATA-DIR/token.

Examples:
  k1s token create                       a token valid for 24 hours, printed on stdout
  k1s token create --ttl 0 --description "CI runners"
  k1s token create --ttl 2h --print-join-command   the k1s agent command line that joins a node with it
  k1s token list
  k1s token delete abcdef                by its id (or the whole token); joined nodes keep working

Flags:
  --ttl DURATION           how long the token is valid (Go duration: 24h, 90m; 0: never expires; default 24h)
  --description TEXT       what the token is for
  --groups G1,G2           extra groups (default ${NODE_JOIN_GROUP}, which may join nodes)
  --usages U1,U2           authentication, signing (default both)
  --print-join-command     with create: print the whole k1s agent command (server URL, token, --ca-cert-hash)
  --kubeconfig FILE        cluster to act on (default $KUBECONFIG, else ~/.kube/config)
  --context NAME           kubeconfig context (default: the current one)
  -h, --help               show this help`;

type Secret = KObject & { type?: string; data?: Record<string, string> };
const text = (s: Secret, k: string) => (s.data?.[k] === undefined ? undefined : Buffer.from(s.data[k]!, 'base64').toString('utf8'));

/** kubeadm's TTL column: whole hours or minutes left, `<forever>` without expiry, `<invalid>` once past */
function ttlOf(expiration: string | undefined, now: number): string {
  if (expiration === undefined) return '<forever>';
  const left = Date.parse(expiration) - now;
  if (Number.isNaN(left) || left <= 0) return '<invalid>';
  return left >= 3_600_000 ? `${Math.round(left / 3_600_000)}h` : `${Math.max(1, Math.round(left / 60_000))}m`;
}

export function tokenTable(secrets: Secret[], now = Date.now()): string {
  const rows = [['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS']];
  for (const s of secrets) {
    if (s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) continue;
    const id = text(s, 'token-id') ?? '';
    const usages = Object.keys(s.data ?? {}).filter((k) => k.startsWith('usage-bootstrap-') && text(s, k) === 'true').map((k) => k.slice('usage-bootstrap-'.length));
    const expiration = text(s, 'expiration');
    rows.push([`${id}.${text(s, 'token-secret') ?? ''}`, ttlOf(expiration, now), expiration ?? '<never>', usages.sort().join(',') || '<none>', text(s, 'description') || '<none>', text(s, 'auth-extra-groups') || '<none>']);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('').trimEnd()).join('\n');
}

export async function tokenCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ttl: { type: 'string' },
        description: { type: 'string' },
        groups: { type: 'string' },
        usages: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'print-join-command': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (e) {
    console.error(`k1s token: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const usage = (msg: string) => {
    console.error(`k1s token: ${msg}\n\n${help}`);
    return 2;
  };
  const [verb, arg] = positionals;
  if (!verb || !['create', 'list', 'ls', 'delete', 'rm'].includes(verb)) return usage('say create, list or delete');
  const ttl = parseGoDuration(values.ttl ?? '24h');
  if (ttl === undefined || ttl < 0n) return usage(`--ttl ${values.ttl}: not a duration such as 24h, 90m or 0`);
  const usages = (values.usages ?? 'authentication,signing').split(',').map((u) => u.trim()).filter(Boolean);
  const badUsage = usages.find((u) => !['authentication', 'signing'].includes(u));
  if (badUsage) return usage(`--usages: unknown usage "${badUsage}" (authentication, signing)`);
  const groups = (values.groups ?? NODE_JOIN_GROUP).split(',').map((g) => g.trim()).filter(Boolean);
  const badGroup = groups.find((g) => !EXTRA_GROUP_PATTERN.test(g));
  if (badGroup) return usage(`--groups: "${badGroup}" must start with system:bootstrappers: (lowercase letters, digits, ':' and '-')`);
  let id: string | undefined;
  if (verb === 'delete' || verb === 'rm') {
    if (!arg) return usage('delete needs a token id (or the token)');
    id = /^[a-z0-9]{6}$/.test(arg) ? arg : BOOTSTRAP_TOKEN_PATTERN.exec(arg)?.[1];
    if (!id) return usage(`"${arg}" is neither a token id ([a-z0-9]{6}) nor a token ([a-z0-9]{6}.[a-z0-9]{16})`);
  }
  const target = kubeconfigClient('token', values);
  if (!target) return 1;
  const { client, config } = target;
  const secrets = client.resource('v1', 'secrets');
  try {
    if (verb === 'create') {
      const t = generateBootstrapToken();
      const expires = ttl === 0n ? undefined : new Date(Date.now() + Number(ttl / 1_000_000n));
      await secrets.create('kube-system', bootstrapTokenSecret({ ...t, description: values.description, expires, usages, groups }));
      // kubeadm's --print-join-command: the server as this kubeconfig reaches it, the CA pinned by its key hash
      if (values['print-join-command']) console.log(`k1s agent --server ${config.server} --token ${t.token}${config.caPem ? ` --ca-cert-hash ${caCertHash(config.caPem)}` : ''}`);
      else console.log(t.token);
    } else if (verb === 'list' || verb === 'ls') {
      const list = await secrets.list('kube-system', { fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` });
      console.log(tokenTable(list.items as Secret[]));
    } else {
      await secrets.delete('kube-system', `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
      console.log(`bootstrap token "${id}" deleted`);
    }
    return 0;
  } catch (e) {
    if (e instanceof StatusError && e.code === 404 && id) console.error(`k1s token: no bootstrap token "${id}" (k1s token list shows them)`);
    else console.error(`k1s token: ${(e as Error).message}`);
    return 1;
  } finally {
    client.close();
  }
}

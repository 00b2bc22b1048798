// The server's own join token, DATA-DIR/token (0600): a bootstrap token without expiry, made at the first start,
// that `k1s agent --token` presents to join. Revoked like any bootstrap token (`k1s token delete ID`); a revoked
// one is not made again, since the file stays.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalClient } from '../client/local.js';
import { bootstrapTokenSecret, generateBootstrapToken } from './bootstrap-tokens.js';

export const JOIN_TOKEN_FILE = 'token';

export async function ensureJoinToken(dataDir: string, client: LocalClient): Promise<string> {
  const file = join(dataDir, JOIN_TOKEN_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const t = generateBootstrapToken();
  await client.resource('v1', 'secrets').create('kube-system', bootstrapTokenSecret({ ...t, description: `the join token of the k1s server in ${dataDir}` }));
  // after the Secret: a failed create leaves no token that does not work
  writeFileSync(file, `${t.token}\n`, { mode: 0o600 });
  return t.token;
}

// Shared helpers for the PKI tests: temp dirs and optional external tools.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'k1s-pki-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first existing executable among `candidates` (absolute paths or names looked up on PATH). */
export function findTool(...candidates: string[]): string | undefined {
  for (const c of candidates) {
    if (c.includes('/')) {
      if (existsSync(c)) return c;
      continue;
    }
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && existsSync(join(dir, c))) return join(dir, c);
    }
  }
  return undefined;
}

export const OPENSSL = findTool('openssl');
export const KUBECTL = findTool('/usr/lib/google-cloud-sdk/bin/kubectl.1.33', 'kubectl');

export function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

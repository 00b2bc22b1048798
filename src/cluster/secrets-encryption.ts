// k3s-style secrets encryption: an EncryptionConfiguration kept in the data dir (DATA-DIR/cred/encryption-config.json,
// mode 0600) with generated aescbc keys for Secrets and identity after them (Secrets stored before stay readable).
// `k1s secrets-encrypt rotate` puts a new key first; `reencrypt` rewrites the Secrets; `prune` (after) drops the old keys.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EncryptionConfiguration, KeyConfig } from '../apiserver/encryption/validation.js';

export const SECRETS_ENCRYPTION_KEY_PREFIX = 'aescbckey';

export function secretsEncryptionConfigPath(dataDir: string): string {
  return join(dataDir, 'cred', 'encryption-config.json');
}

/** A new 32-byte key named after the time it was made (the first one just `aescbckey`, as k3s names it). */
export function newKey(first: boolean, now = new Date()): KeyConfig {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return { name: first ? SECRETS_ENCRYPTION_KEY_PREFIX : `${SECRETS_ENCRYPTION_KEY_PREFIX}-${stamp}`, secret: randomBytes(32).toString('base64') };
}

export function secretsConfig(keys: KeyConfig[]): EncryptionConfiguration {
  return {
    kind: 'EncryptionConfiguration',
    apiVersion: 'apiserver.config.k8s.io/v1',
    resources: [{ resources: ['secrets'], providers: [{ aescbc: { keys } }, { identity: {} }] }],
  };
}

/** Writes the file whole or not at all (a reloading server never reads half of it), readable by its owner only. */
export function writeSecretsConfig(path: string, config: EncryptionConfiguration): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, path);
}

export function readSecretsConfig(path: string): EncryptionConfiguration {
  return JSON.parse(readFileSync(path, 'utf8')) as EncryptionConfiguration;
}

/** The aescbc keys of the Secrets entry, the active (writing) one first. */
export function secretsKeys(config: EncryptionConfiguration): KeyConfig[] {
  const entry = config.resources?.find((r) => r.resources?.includes('secrets'));
  return entry?.providers?.find((p) => p.aescbc)?.aescbc?.keys ?? [];
}

/** The data dir's configuration, made with a new key when there is none yet; returns its path. */
export function ensureSecretsEncryptionConfig(dataDir: string, log: (line: string) => void): string {
  const path = secretsEncryptionConfigPath(dataDir);
  if (!existsSync(path)) {
    writeSecretsConfig(path, secretsConfig([newKey(true)]));
    log(`k1s: secrets encryption key generated in ${path}`);
  }
  return path;
}

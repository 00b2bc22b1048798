// Encryption at rest for one cluster: --encryption-provider-config (kube-apiserver's flag, with its
// --encryption-provider-config-automatic-reload) or --secrets-encryption (k3s': a key and a configuration made in the
// data dir, Secrets under aescbc). The store gets transformers that a reload swaps in place; a bad file refuses the
// start, and a bad reload keeps the configuration in force, as kube does.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { configHash, loadEncryptionConfig } from '../apiserver/encryption/config.js';
import { KeyTransformers } from '../storage/encryption/key-transformers.js';
import { ensureSecretsEncryptionConfig } from './secrets-encryption.js';

export interface EncryptionOptions {
  /** --encryption-provider-config */
  providerConfig?: string;
  /** --encryption-provider-config-automatic-reload: follow changes of the file while running */
  automaticReload?: boolean;
  /** --secrets-encryption: the data dir's own configuration (made on first use), reloaded automatically */
  secretsEncryption?: boolean;
}

export class Encryption {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;

  private constructor(
    readonly path: string,
    readonly transformers: KeyTransformers,
    private hash: string,
    readonly automaticReload: boolean,
    private readonly log: (line: string) => void,
  ) {}

  /** undefined when neither flag is given; throws a message saying what to fix */
  static start(dataDir: string, opts: EncryptionOptions, log: (line: string) => void): Encryption | undefined {
    if (opts.providerConfig && opts.secretsEncryption) {
      throw new Error('--secrets-encryption makes its own encryption configuration: leave out --encryption-provider-config (or --secrets-encryption)');
    }
    if (opts.automaticReload && !opts.providerConfig) {
      throw new Error('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    }
    const path = opts.secretsEncryption ? ensureSecretsEncryptionConfig(dataDir, log) : opts.providerConfig;
    if (!path) return undefined;
    let loaded;
    try {
      loaded = loadEncryptionConfig(path);
    } catch (e) {
      throw new Error(`--encryption-provider-config ${path}: ${(e as Error).message}`);
    }
    const enc = new Encryption(path, new KeyTransformers(loaded.overrides), loaded.hash, !!(opts.automaticReload || opts.secretsEncryption), log);
    log(`k1s: encryption at rest from ${path} (${[...loaded.overrides.keys()].map(displayName).join(', ')})`);
    if (enc.automaticReload) enc.follow();
    return enc;
  }

  /** Reads the file again; a changed and valid one replaces the transformers. Returns whether it did. */
  reload(): boolean {
    let data: Buffer;
    try {
      data = readFileSync(this.path);
    } catch (e) {
      this.log(`k1s: encryption configuration ${this.path} not reloaded: ${(e as Error).message}`);
      return false;
    }
    if (configHash(data) === this.hash) return false;
    try {
      const loaded = loadEncryptionConfig(this.path);
      this.transformers.set(loaded.overrides);
      this.hash = loaded.hash;
      this.log(`k1s: encryption configuration reloaded from ${this.path}`);
      return true;
    } catch (e) {
      // kube keeps serving with what it has
      this.log(`k1s: encryption configuration ${this.path} not reloaded, the one in force is kept: ${(e as Error).message}`);
      return false;
    }
  }

  /** Watches the file's folder (editors and atomic writers replace the file) and checks once a minute as well. */
  private follow(): void {
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), (_ev, f) => {
        if (f !== null && f !== name) return;
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.reload(), 50);
        this.debounce.unref();
      });
      this.watcher.unref();
    } catch {
      // the minute's check below still follows it
    }
    this.timer = setInterval(() => this.reload(), 60_000);
    this.timer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }
}

function displayName(k: string): string {
  const [group, resource] = k.split('/');
  if (group === '') return resource === '*' ? '*.' : resource!;
  return `${resource}.${group}`;
}

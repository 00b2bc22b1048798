// Picks up certificates replaced on disk (`k1s certs rotate`, or files copied in) while the server runs, as
// kube-apiserver's dynamic serving certificates do: the tls dir is watched, re-read a minute after the last look in
// any case, and on SIGHUP. A pair is taken only once its key matches its certificate and its CA signed it, so a
// half-written rotation is never served. New TLS connections get the new certificate; open ones (watches) go on.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isExpired, isSignedBy, keyMatchesCert, type CertKeyPem } from '../pki/certs.js';
import { holds } from '../pki/pki.js';
import { describeCertificate, expiryWarnings, readInventory } from '../pki/inventory.js';

export interface ReloadedPair {
  /** base name in the tls dir: server for server.crt/server.key */
  base: string;
  /** the CA that must have signed it */
  caPem: string;
  current: CertKeyPem;
  apply(pem: CertKeyPem): void;
}

export interface CertificateReloaderOptions {
  dir: string;
  pairs: ReloadedPair[];
  log: (line: string) => void;
  /** how often the files are read even without a change event (default 60 s) */
  resyncMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class CertificateReloader {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private lastWarned = 0;

  constructor(private readonly opts: CertificateReloaderOptions) {}

  start(): void {
    try {
      this.watcher = watch(this.opts.dir, () => this.soon());
      this.watcher.on('error', () => undefined); // the periodic resync still runs
    } catch {
      // no inotify (or the dir went away): the periodic resync still runs
    }
    this.timer = setInterval(() => void this.reload(), this.opts.resyncMs ?? 60_000);
    this.timer.unref();
    void this.warnDaily();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }

  /** A rotation writes several files: one reload once they have settled. */
  private soon(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), 100);
    this.debounce.unref();
  }

  /** Reads every pair again and applies the ones that changed; resolves when done (SIGHUP and tests await it). */
  reload(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        for (const p of this.opts.pairs) await this.reloadPair(p);
        await this.warnDaily();
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async reloadPair(p: ReloadedPair): Promise<void> {
    let certPem: string;
    let keyPem: string;
    try {
      [certPem, keyPem] = await Promise.all([readFile(join(this.opts.dir, `${p.base}.crt`), 'utf8'), readFile(join(this.opts.dir, `${p.base}.key`), 'utf8')]);
    } catch {
      return; // removed or being replaced: keep serving what we have
    }
    if (certPem === p.current.certPem && keyPem === p.current.keyPem) return;
    const usable = holds(() => keyMatchesCert(certPem, keyPem) && isSignedBy(certPem, p.caPem) && !isExpired(certPem));
    if (!usable) return; // mid-rotation (new key, old certificate) or not ours: the next event brings the rest
    try {
      p.apply({ certPem, keyPem });
    } catch (e) {
      this.opts.log(`k1s: could not load the new ${p.base} certificate: ${(e as Error).message}`);
      return;
    }
    p.current = { certPem, keyPem };
    const info = describeCertificate(p.base, join(this.opts.dir, `${p.base}.crt`), certPem);
    this.opts.log(`k1s: ${p.base} certificate reloaded (serial ${info.serial}, valid until ${info.notAfter.toISOString()})`);
  }

  /** Expiry warnings in the log at most once a day while the server runs (and once at start). */
  private async warnDaily(): Promise<void> {
    if (Date.now() - this.lastWarned < DAY_MS) return;
    this.lastWarned = Date.now();
    await logExpiryWarnings(this.opts.dir, this.opts.log);
  }
}

/** Logs a warning per certificate of `dir` that expired or expires within 30 days. */
export async function logExpiryWarnings(dir: string, log: (line: string) => void): Promise<void> {
  try {
    for (const w of expiryWarnings((await readInventory(dir)).certificates)) log(`k1s: warning: ${w}`);
  } catch {
    // an unreadable dir is reported by whatever needs the files
  }
}

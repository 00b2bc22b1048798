// Small file helpers for secrets: atomic writes with exact modes.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const KEY_MODE = 0o600;
export const CERT_MODE = 0o644;
export const DIR_MODE = 0o700;

/**
 * Writes via a temp file + rename so a crash never leaves a half-written key or
 * cert behind. The mode is given at creation (no window where a key is world
 * readable) and chmod-ed again because the umask may have narrowed it.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, data, { mode, flag: 'wx' });
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Creates `dir` (and parents) if needed; `mode` applies to the directories created. */
export async function ensureParentDir(path: string, mode = DIR_MODE): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode });
}

/** File contents as UTF-8, or null when the file does not exist. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

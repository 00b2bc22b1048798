// Kubernetes' AtomicWriter layout (pkg/volume/util/atomic_writer.go) for configMap, secret, downwardAPI and projected
// volumes: the payload lives in a timestamped `..YYYY_MM_DD_HH_MM_SS.<n>` directory, `..data` is a symlink to it,
// and every user-visible top-level name is a symlink `name -> ..data/name`. An update writes a new timestamped
// directory and swaps `..data` with one rename, so a reader never sees half of an update.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';

export interface FileProjection {
  data: Buffer;
  mode: number;
  /** owner uid to chown the file to (projected service-account tokens with a single runAsUser) */
  fsUser?: number;
}
export type Payload = Map<string, FileProjection>;

const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';
const MAX_PATH = 4096;
const MAX_NAME = 255;

/** atomic_writer validatePath, with its messages. */
export function validatePayloadPath(p: string): string | undefined {
  if (p === '') return `invalid path: must not be empty: "${p}"`;
  if (path.posix.isAbsolute(p)) return `invalid path: must be relative path: ${p}`;
  if (p.length > MAX_PATH) return `invalid path: must be less than or equal to ${MAX_PATH} characters`;
  const items = p.split('/');
  for (const item of items) {
    if (item === '..') return `invalid path: must not contain '..': ${p}`;
    if (item.length > MAX_NAME) return `invalid path: filenames must be less than or equal to ${MAX_NAME} characters`;
  }
  if (items[0].startsWith('..') && items[0].length > 2) return `invalid path: must not start with '..': ${p}`;
  return undefined;
}

const pad = (n: number): string => String(n).padStart(2, '0');
function tsDirPrefix(d: Date): string {
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.`;
}

async function readlinkOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fs.readlink(p);
  } catch {
    return undefined;
  }
}

/** Relative paths of the files under dir. */
async function walkFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walkFiles(path.join(dir, e.name), rel)));
    else out.push(rel);
  }
  return out;
}

/** Whether the payload differs from what the current data directory holds (content or mode). */
async function differs(payload: Payload, oldDir: string, oldFiles: string[]): Promise<boolean> {
  if (oldFiles.length !== payload.size) return true;
  for (const [p, f] of payload) {
    try {
      const [content, st] = await Promise.all([fs.readFile(path.join(oldDir, p)), fs.stat(path.join(oldDir, p))]);
      if (!content.equals(f.data) || (st.mode & 0o7777) !== f.mode) return true;
    } catch {
      return true;
    }
  }
  return false;
}

export interface WriteResult {
  /** false when the payload was already on disk */
  changed: boolean;
}

/**
 * Writes the payload into targetDir (which must exist) atomically. `afterWrite` runs on the new timestamped
 * directory before the swap (kube's setPerms hook: volume ownership for fsGroup).
 */
export async function writePayloadAtomically(
  targetDir: string,
  payload: Payload,
  opts: { now?: Date; afterWrite?: (tsDir: string) => Promise<void> } = {},
): Promise<WriteResult> {
  const clean: Payload = new Map();
  for (const [p, f] of payload) {
    const err = validatePayloadPath(p);
    if (err) throw new Error(err);
    clean.set(path.posix.normalize(p), f);
  }
  const oldTs = await readlinkOrUndefined(path.join(targetDir, DATA_DIR));
  const oldDir = oldTs ? path.join(targetDir, oldTs) : undefined;
  const oldFiles = oldDir ? await walkFiles(oldDir) : [];
  const topOf = (p: string): string => p.split('/')[0];
  const newTops = new Set([...clean.keys()].map(topOf));
  const staleTops = [...new Set(oldFiles.map(topOf))].filter((t) => !newTops.has(t));

  if (oldDir && !(await differs(clean, oldDir, oldFiles))) {
    await linkUserVisible(targetDir, newTops); // repairs a removed link; the data itself is current
    return { changed: false };
  }

  const tsDir = await fs.mkdtemp(path.join(targetDir, tsDirPrefix(opts.now ?? new Date())));
  // mkdtemp may use letters; kube's names end in digits: rename to a numeric suffix for the same look
  const numbered = `${tsDir.slice(0, tsDir.lastIndexOf('.') + 1)}${randomInt(1, 2 ** 31 - 1)}`;
  await fs.rename(tsDir, numbered);
  await fs.chmod(numbered, 0o755); // group and other must be able to walk the tree
  for (const [p, f] of clean) {
    const full = path.join(numbered, p);
    await fs.mkdir(path.dirname(full), { recursive: true, mode: 0o755 });
    await fs.writeFile(full, f.data, { mode: f.mode });
    await fs.chmod(full, f.mode); // writeFile's mode is masked by the umask
    if (f.fsUser !== undefined) await fs.chown(full, f.fsUser, -1);
  }
  if (opts.afterWrite) await opts.afterWrite(numbered);

  const tmpLink = path.join(targetDir, DATA_DIR_TMP);
  await fs.rm(tmpLink, { force: true });
  await fs.symlink(path.basename(numbered), tmpLink);
  await fs.rename(tmpLink, path.join(targetDir, DATA_DIR));

  await linkUserVisible(targetDir, newTops);
  for (const t of staleTops) await fs.rm(path.join(targetDir, t), { force: true, recursive: true });
  if (oldDir) await fs.rm(oldDir, { recursive: true, force: true });
  return { changed: true };
}

async function linkUserVisible(targetDir: string, tops: Set<string>): Promise<void> {
  for (const t of tops) {
    const link = path.join(targetDir, t);
    const want = path.join(DATA_DIR, t);
    const cur = await readlinkOrUndefined(link);
    if (cur === want) continue;
    await fs.rm(link, { force: true, recursive: true });
    await fs.symlink(want, link);
  }
}

// Kubernetes' semver library (blang/semver strict parsing, optional normalisation of "v1", "1.02" style input).
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

export class Semver {
  constructor(readonly major: bigint, readonly minor: bigint, readonly patch: bigint, readonly pre: string[], readonly build: string[]) {}
  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre.length ? `-${this.pre.join('.')}` : ''}${this.build.length ? `+${this.build.join('.')}` : ''}`;
  }
  compare(o: Semver): number {
    for (const k of ['major', 'minor', 'patch'] as const) if (this[k] !== o[k]) return this[k] < o[k] ? -1 : 1;
    if (!this.pre.length || !o.pre.length) return this.pre.length === o.pre.length ? 0 : this.pre.length ? -1 : 1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i];
      const b = o.pre[i];
      if (a === b) continue;
      const an = /^\d+$/.test(a);
      const bn = /^\d+$/.test(b);
      if (an && bn) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return Math.sign(this.pre.length - o.pre.length);
  }
}

const NUM = /^(0|[1-9][0-9]*)$/;

/** blang/semver Parse, with its error texts. */
export function parseSemver(s: string): Semver {
  if (s.length === 0) throw new CelRuntimeError('Version string empty');
  const parts = s.split('.', 3);
  if (s.split('.').length < 3) throw new CelRuntimeError('No Major.Minor.Patch elements found');
  const rest = s.slice(parts[0].length + parts[1].length + 2);
  if (!/^[0-9]+$/.test(parts[0])) throw new CelRuntimeError(`Invalid character(s) found in major number "${parts[0]}"`);
  if (parts[0].length > 1 && parts[0][0] === '0') throw new CelRuntimeError(`Major number must not contain leading zeroes "${parts[0]}"`);
  if (!/^[0-9]+$/.test(parts[1])) throw new CelRuntimeError(`Invalid character(s) found in minor number "${parts[1]}"`);
  if (parts[1].length > 1 && parts[1][0] === '0') throw new CelRuntimeError(`Minor number must not contain leading zeroes "${parts[1]}"`);
  const m = /^([0-9]+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(rest);
  const patch = /^[0-9]+/.exec(rest)?.[0] ?? '';
  if (!patch) throw new CelRuntimeError(`Invalid character(s) found in patch number "${rest}"`);
  if (patch.length > 1 && patch[0] === '0') throw new CelRuntimeError(`Patch number must not contain leading zeroes "${patch}"`);
  if (!m) throw new CelRuntimeError(`Invalid character(s) found in prerelease or build "${rest.slice(patch.length)}"`);
  const pre = m[2] ? m[2].split('.') : [];
  for (const p of pre) {
    if (p === '') throw new CelRuntimeError('Prerelease is empty');
    if (/^\d+$/.test(p) && !NUM.test(p)) throw new CelRuntimeError(`Numeric PreRelease version must not contain leading zeroes "${p}"`);
  }
  const build = m[3] ? m[3].split('.') : [];
  if (build.some((b) => b === '')) throw new CelRuntimeError('Build meta data is empty');
  return new Semver(BigInt(parts[0]), BigInt(parts[1]), BigInt(m[1]), pre, build);
}

/** Kubernetes' normalizeAndParse: drops a leading "v", pads to three numbers, strips leading zeros. */
export function normalizeSemver(s: string): Semver {
  let v = s.startsWith('v') ? s.slice(1) : s;
  const cut = v.search(/[-+]/);
  const core = cut < 0 ? v : v.slice(0, cut);
  const tail = cut < 0 ? '' : v.slice(cut);
  const nums = core.split('.');
  while (nums.length < 3) nums.push('0');
  v = nums.map((n) => (/^0+\d/.test(n) ? n.replace(/^0+/, '') : n)).join('.') + tail;
  return parseSemver(v);
}

const ok = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

export function registerSemver(reg: LibraryRegistrar): void {
  const S = 'kubernetes.Semver';
  reg.type(S, Semver, ((a: Semver, b: Semver) => a.compare(b) === 0) as never);
  reg.fn(`semver(string): ${S}`, parseSemver);
  reg.fn(`semver(string, bool): ${S}`, (s: string, n: boolean) => (n ? normalizeSemver(s) : parseSemver(s)));
  reg.fn('isSemver(string): bool', (s: string) => ok(() => parseSemver(s)));
  reg.fn('isSemver(string, bool): bool', (s: string, n: boolean) => ok(() => (n ? normalizeSemver(s) : parseSemver(s))));
  reg.fn(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === 1);
  reg.fn(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === -1);
  reg.fn(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)));
  reg.fn(`${S}.major(): int`, (v: Semver) => v.major);
  reg.fn(`${S}.minor(): int`, (v: Semver) => v.minor);
  reg.fn(`${S}.patch(): int`, (v: Semver) => v.patch);
}

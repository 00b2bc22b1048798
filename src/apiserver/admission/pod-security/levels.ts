// Pod Security levels, policy versions and the namespace labels that pick them (k8s.io/pod-security-admission/api).
import { FieldError } from '../../../machinery/errors.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: v1.N, or latest (newer than every numbered version). */
export interface Version {
  minor: number;
  latest: boolean;
}

export const LATEST: Version = { minor: Number.MAX_SAFE_INTEGER, latest: true };

export const minorVersion = (minor: number): Version => ({ minor, latest: false });

export const versionString = (v: Version): string => (v.latest ? 'latest' : `v1.${v.minor}`);

export interface LevelVersion {
  level: Level;
  version: Version;
}

export const levelVersionString = (lv: LevelVersion): string => `${lv.level}:${versionString(lv.version)}`;

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean =>
  a.level === b.level && a.version.latest === b.version.latest && a.version.minor === b.version.minor;

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

/** An unknown level is restricted (fail closed), with the error kube reports. */
export function parseLevel(s: string): { level: Level; error?: string } {
  return (LEVELS as readonly string[]).includes(s) ? { level: s as Level } : { level: 'restricted', error: LEVEL_ERROR };
}

/** An unparsable version is latest, with the error kube reports. */
export function parseVersion(s: string): { version: Version; error?: string } {
  if (s === 'latest') return { version: LATEST };
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(s);
  const n = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(n)) return { version: LATEST, error: VERSION_ERROR };
  return { version: minorVersion(n) };
}

/** -1, 0, 1 as a is less strict than, as strict as, stricter than b. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

export const PRIVILEGED_LATEST: Policy = {
  enforce: { level: 'privileged', version: LATEST },
  audit: { level: 'privileged', version: LATEST },
  warn: { level: 'privileged', version: LATEST },
};

/**
 * The policy a namespace's labels select over the defaults. Always a usable policy: a bad enforce label fails
 * closed (restricted), bad audit and warn labels fail open (privileged); errors name the bad labels.
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels) return { policy: p, errors };
  const note = (label: string, value: string, error: string | undefined) => {
    if (error) errors.push(FieldError.invalid(`metadata.labels[${label}]`, value, error));
  };
  const mode = (lv: LevelVersion, levelLabel: string, versionLabel: string, failLevel?: Level) => {
    const level = labels[levelLabel];
    if (level !== undefined) {
      const r = parseLevel(level);
      lv.level = r.error && failLevel ? failLevel : r.level;
      note(levelLabel, level, r.error);
    }
    const version = labels[versionLabel];
    if (version !== undefined) {
      const r = parseVersion(version);
      lv.version = r.version;
      note(versionLabel, version, r.error);
    }
  };
  mode(p.enforce, ENFORCE_LABEL, ENFORCE_VERSION_LABEL);
  mode(p.audit, AUDIT_LABEL, AUDIT_VERSION_LABEL, 'privileged');
  mode(p.warn, WARN_LABEL, WARN_VERSION_LABEL, 'privileged');
  return { policy: p, errors };
}

/** field.ErrorList.ToAggregate().Error(): one message, or "[a, b]". */
export function aggregateErrors(errors: FieldError[]): string {
  const parts = [...new Set(errors.map((e) => e.toString()))];
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

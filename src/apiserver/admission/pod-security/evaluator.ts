// Evaluates a pod against a level and version: the checks that apply there, in kube's order (baseline IDs sorted,
// then restricted IDs sorted; a restricted variant replaces the baseline checks it overrides), and the messages
// built from their results (policy/registry.go, checks.go).
import { ALL_CHECKS, type Check, type VersionedCheck } from './checks.js';
import type { LevelVersion } from './levels.js';
import type { CheckFn, CheckResult, PodMeta, PodSpecLike } from './pod-view.js';

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The variant of a check in force at a policy minor, if any. */
function variantAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minVersion <= minor) found = v;
  return found;
}

export class Evaluator {
  /** the newest minor any check changes at: later versions (and latest) evaluate as it */
  readonly maxMinor: number;
  private readonly cache = new Map<string, CheckFn[]>();
  private readonly ordered: Check[];

  constructor(checks: readonly Check[] = ALL_CHECKS) {
    this.maxMinor = Math.max(0, ...checks.flatMap((c) => c.versions.map((v) => v.minVersion)));
    const baseline = checks.filter((c) => c.level === 'baseline').sort((a, b) => byteOrder(a.id, b.id));
    const restricted = checks.filter((c) => c.level === 'restricted').sort((a, b) => byteOrder(a.id, b.id));
    this.ordered = [...baseline, ...restricted];
  }

  /** The check functions of a level at a version, in evaluation order (none for privileged). */
  checksFor(lv: LevelVersion): CheckFn[] {
    if (lv.level === 'privileged') return [];
    const minor = lv.version.latest ? this.maxMinor : Math.min(lv.version.minor, this.maxMinor);
    const key = `${lv.level}:${minor}`;
    let fns = this.cache.get(key);
    if (!fns) {
      const inForce = this.ordered
        .filter((c) => lv.level === 'restricted' || c.level === 'baseline')
        .map((c) => ({ check: c, variant: variantAt(c, minor) }))
        .filter((x): x is { check: Check; variant: VersionedCheck } => !!x.variant);
      const overridden = new Set(inForce.flatMap((x) => (x.check.level === 'restricted' ? x.variant.overrides ?? [] : [])));
      fns = inForce.filter((x) => !(x.check.level === 'baseline' && overridden.has(x.check.id))).map((x) => x.variant.check);
      this.cache.set(key, fns);
    }
    return fns;
  }

  evaluate(lv: LevelVersion, meta: PodMeta, spec: PodSpecLike): AggregateResult {
    return aggregate(this.checksFor(lv).map((fn) => fn(meta, spec)));
  }
}

export interface AggregateResult {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

export function aggregate(results: CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || 'unknown forbidden reason');
    details.push(r.detail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `reason (detail), reason, …` as in the deny and warning messages. */
export const forbiddenDetail = (r: AggregateResult): string =>
  r.reasons.map((reason, i) => (r.details[i] ? `${reason} (${r.details[i]})` : reason)).join(', ');

/** The reasons only, as in the per-pod lines of a namespace label change. */
export const forbiddenReason = (r: AggregateResult): string => r.reasons.join(', ');

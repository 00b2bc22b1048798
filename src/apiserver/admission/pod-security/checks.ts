// The registry of Pod Security checks: each check's level and the policy versions its variants apply from.
import type { CheckFn } from './pod-view.js';
import { baselineChecks } from './checks-baseline.js';
import { profileChecks } from './checks-profiles.js';
import { restrictedChecks } from './checks-restricted.js';

export interface VersionedCheck {
  /** the first policy minor (v1.N) this variant applies to */
  minVersion: number;
  check: CheckFn;
  /** baseline checks this restricted variant replaces */
  overrides?: string[];
}

export interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  versions: VersionedCheck[];
}

export const ALL_CHECKS: readonly Check[] = [...baselineChecks, ...profileChecks, ...restrictedChecks];

// spec.successPolicy of Indexed Jobs (success_policy.go): the first rule whose indexes or count are reached
// declares the job successful ahead of its completions.
import type { Job } from '../../api/batch/types.js';
import { Indexes } from './indexes.js';

/** The SuccessCriteriaMet message when a rule matches. */
export function matchSuccessPolicy(job: Job, succeeded: Indexes): string | undefined {
  const rules = job.spec?.successPolicy?.rules;
  const completions = job.spec?.completions ?? 0;
  if (!rules || succeeded.total() === 0) return undefined;
  for (const [i, rule] of rules.entries()) {
    if (rule.succeededIndexes != null) {
      const required = Indexes.parse(rule.succeededIndexes, completions);
      if (required.total() === 0) continue;
      const matched = required.countIn(succeeded);
      if (rule.succeededCount == null ? matched === required.total() : matched >= rule.succeededCount) return `Matched rules at index ${i}`;
    } else if (rule.succeededCount != null && succeeded.total() >= rule.succeededCount) {
      return `Matched rules at index ${i}`;
    }
  }
  return undefined;
}

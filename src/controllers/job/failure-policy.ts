// Which finished pods count as failures and what spec.podFailurePolicy says about them (pod_failure_policy.go).
import type { Job, PodFailurePolicyRule } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import { onlyReplaceFailedPods } from './status.js';

export type FailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

interface ContainerStatus {
  name: string;
  state?: { terminated?: { exitCode?: number; finishedAt?: string } };
}

interface PodStatus {
  phase?: string;
  conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
}

export const podStatus = (pod: KObject): PodStatus => ((pod as { status?: PodStatus }).status ?? {});

/**
 * isPodFailed: Failed pods, and (unless replacements wait for Failed) pods being deleted before they succeeded,
 * since such orphans may never reach the Failed phase.
 */
export function isPodFailed(pod: KObject, job: Job): boolean {
  const phase = podStatus(pod).phase;
  if (onlyReplaceFailedPods(job)) return phase === 'Failed';
  if (phase === 'Failed') return true;
  return !!pod.metadata.deletionTimestamp && phase !== 'Succeeded';
}

export interface PolicyMatch {
  /** set for FailJob: the message of the FailureTarget condition */
  message?: string;
  /** whether the failure counts towards backoffLimit */
  countFailed: boolean;
  action?: FailurePolicyAction;
}

function matchExitCodes(statuses: ContainerStatus[] | undefined, req: NonNullable<PodFailurePolicyRule['onExitCodes']>): ContainerStatus | undefined {
  for (const cs of statuses ?? []) {
    const term = cs.state?.terminated;
    if (!term) continue;
    if (req.containerName != null && req.containerName !== cs.name) continue;
    const code = term.exitCode ?? 0;
    if (code === 0) continue;
    const listed = (req.values ?? []).includes(code);
    if (req.operator === 'In' ? listed : req.operator === 'NotIn' ? !listed : false) return cs;
  }
  return undefined;
}

/** matchPodFailurePolicy: the first rule matching the pod decides; no rule matched counts the failure. */
export function matchPodFailurePolicy(job: Job, pod: KObject): PolicyMatch {
  const rules = job.spec?.podFailurePolicy?.rules;
  if (!rules) return { countFailed: true };
  const st = podStatus(pod);
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name;
  for (const [i, rule] of rules.entries()) {
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const cs = matchExitCodes(st.containerStatuses, rule.onExitCodes) ?? matchExitCodes(st.initContainerStatuses, rule.onExitCodes);
      if (!cs) continue;
      failJobMessage = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state!.terminated!.exitCode} matching ${rule.action} rule at index ${i}`;
    } else if (rule.onPodConditions) {
      const cond = (st.conditions ?? []).find((c) => rule.onPodConditions!.some((p) => p.type === c.type && (p.status ?? 'True') === c.status));
      if (!cond) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${cond.type} matching ${rule.action} rule at index ${i}`;
    } else continue;
    switch (rule.action) {
      case 'Ignore':
        return { countFailed: false, action: 'Ignore' };
      case 'FailIndex':
        return { countFailed: true, action: 'FailIndex' };
      case 'Count':
        return { countFailed: true, action: 'Count' };
      case 'FailJob':
        return { countFailed: true, action: 'FailJob', message: failJobMessage };
      default:
        // an unknown action matches nothing; later rules still apply
        continue;
    }
  }
  return { countFailed: true };
}

/** getFailJobMessage: the message of the first failed pod a FailJob rule matches. */
export function failJobMessage(job: Job, pods: KObject[]): string | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const m = matchPodFailurePolicy(job, p);
    if (m.message) return m.message;
  }
  return undefined;
}

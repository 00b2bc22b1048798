// When a namespace's enforce level is raised: the existing pods it would refuse, as warnings grouped by their
// reasons. As kube, at most 3000 pods and about a second are spent, and the warnings say when not all were seen.
import type { KObject } from '../../../api/types.js';
import { forbiddenReason, type Evaluator } from './evaluator.js';
import { levelVersionString, type LevelVersion } from './levels.js';
import type { PodMeta, PodSpecLike } from './pod-view.js';

export const MAX_PODS_TO_CHECK = 3000;
export const POD_CHECK_TIMEOUT_MS = 1000;

export interface NamespacePodsInput {
  namespace: string;
  enforce: LevelVersion;
  evaluator: Evaluator;
  exemptRuntimeClasses: ReadonlySet<string>;
  list: () => Promise<KObject[]>;
  maxPods?: number;
  timeoutMs?: number;
}

export async function checkNamespacePods(input: NamespacePodsInput): Promise<string[]> {
  const deadline = Date.now() + (input.timeoutMs ?? POD_CHECK_TIMEOUT_MS);
  let pods: KObject[];
  try {
    pods = await input.list();
  } catch {
    return ['failed to list pods while checking new PodSecurity enforce level'];
  }
  const total = pods.length;
  pods = pods.slice(0, input.maxPods ?? MAX_PODS_TO_CHECK);
  let checked = pods.length;
  // reasons → the lexically first pod name with them and how many pods share them, in first-seen order
  const byReasons = new Map<string, { first: string; count: number }>();
  for (let i = 0; i < pods.length; i++) {
    const pod = pods[i] as KObject & { spec?: PodSpecLike };
    const spec = pod.spec ?? {};
    if (!(spec.runtimeClassName && input.exemptRuntimeClasses.has(spec.runtimeClassName))) {
      const r = input.evaluator.evaluate(input.enforce, pod.metadata as PodMeta, spec);
      if (!r.allowed) {
        const reasons = forbiddenReason(r);
        const name = pod.metadata.name ?? '';
        const seen = byReasons.get(reasons);
        if (!seen) byReasons.set(reasons, { first: name, count: 1 });
        else {
          seen.count++;
          if (name < seen.first) seen.first = name;
        }
      }
    }
    if (Date.now() > deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (byReasons.size) {
    warnings.push(`existing pods in namespace "${input.namespace}" violate the new PodSecurity enforce level "${levelVersionString(input.enforce)}"`);
  }
  const lines = [...byReasons].map(([reasons, { first, count }]) => {
    if (count === 1) return `${first}: ${reasons}`;
    if (count === 2) return `${first} (and 1 other pod): ${reasons}`;
    return `${first} (and ${count - 1} other pods): ${reasons}`;
  });
  // the decorated lines, sorted (they start with the pod names)
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...lines];
}

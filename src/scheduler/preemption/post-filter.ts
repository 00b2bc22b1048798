// DefaultPreemption's PostFilter (kube-scheduler 1.33), as pure functions over the scheduler's in-memory nodes:
// is the pod allowed to preempt, which lower-priority pods would have to go on each node (removing all of them,
// then reprieving as many as possible, PDB-protected ones first), and which node is the cheapest to preempt on
// (pickOneNodeForPreemption). Writing the outcome (nomination, DisruptionTarget, deletes, events) is the
// scheduler's job: see actions.ts.
import type { KObject } from '../../api/types.js';
import type { PodSpec } from '../../api/core/pod/types.js';
import type { PodDisruptionBudget } from '../../api/policy/poddisruptionbudget/resource.js';
import { fromLabelSelector, type LabelSelector } from '../../machinery/labels.js';
import { runFilters } from '../plugins/filters.js';
import { type FilterStatus, type PodInfo } from '../plugins/pod-info.js';
import { fitErrorMessage, NO_PREEMPTION_VICTIMS, NOT_ELIGIBLE_PREEMPT_NEVER, PREEMPTION_NOT_HELPFUL } from '../messages.js';
import type { NodeInfo, PodEntry } from '../node-info.js';

export const NOT_ELIGIBLE_TERMINATING = 'not eligible due to a terminating pod on the nominated node.';
export const DISRUPTION_TARGET = 'DisruptionTarget';
export const PREEMPTION_BY_SCHEDULER = 'PreemptionByScheduler';
/** DefaultPreemptionArgs defaults */
export const MIN_CANDIDATE_NODES_PERCENTAGE = 10;
export const MIN_CANDIDATE_NODES_ABSOLUTE = 100;

const INT32_OFFSET = 2 ** 31;

type PodLike = KObject & { spec?: PodSpec; status?: { startTime?: string; nominatedNodeName?: string; conditions?: { type: string; status?: string; reason?: string }[] } };

/** Nominated pods on a node that the pod being scheduled must leave room for (priority ≥ its own, not itself). */
export type NominatedOn = (node: string, p: PodInfo) => PodEntry[];

/** A PodDisruptionBudget as preemption reads it: namespace, selector, disruptionsAllowed, disruptedPods. */
export interface PdbView {
  namespace: string;
  selector: LabelSelector;
  allowed: number;
  disrupted: Set<string>;
}

export function pdbView(pdb: PodDisruptionBudget): PdbView | undefined {
  let selector: LabelSelector;
  try {
    selector = fromLabelSelector(pdb.spec?.selector as Parameters<typeof fromLabelSelector>[0]);
  } catch {
    return undefined;
  }
  return {
    namespace: pdb.metadata.namespace ?? '',
    selector,
    allowed: pdb.status?.disruptionsAllowed ?? 0,
    disrupted: new Set(Object.keys(pdb.status?.disruptedPods ?? {})),
  };
}

export interface Victims {
  /** most important first */
  pods: PodEntry[];
  numPDBViolations: number;
}

export interface Candidate extends Victims {
  node: NodeInfo;
}

export type PreemptionOutcome =
  /** PodEligibleToPreemptOthers said no: the nomination stays as it is */
  | { kind: 'ineligible'; message: string }
  /** no node works even with preemption: the nomination is cleared */
  | { kind: 'none'; message: string }
  | { kind: 'nominate'; candidate: Candidate };

function startTime(e: PodEntry, now: number): number {
  const t = Date.parse((e.pod as PodLike).status?.startTime ?? '');
  return Number.isNaN(t) ? now : t;
}

/** util.MoreImportantPod: higher priority, then the one that started earlier. */
export function moreImportant(a: PodEntry, b: PodEntry, now: number): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  return startTime(a, now) < startTime(b, now);
}

export function podTerminatingByPreemption(pod: KObject): boolean {
  if (!pod.metadata.deletionTimestamp) return false;
  const c = (pod as PodLike).status?.conditions?.find((x) => x.type === DISRUPTION_TARGET);
  return !!c && c.status === 'True' && c.reason === PREEMPTION_BY_SCHEDULER;
}

/** PodEligibleToPreemptOthers: the message when the pod may not preempt, undefined when it may. */
export function ineligibleReason(
  p: PodInfo,
  nodes: NodeInfo[],
  statuses: Map<NodeInfo, FilterStatus>,
  opts: { nominatedNode?: string } = {},
): string | undefined {
  if (p.spec.preemptionPolicy === 'Never') return NOT_ELIGIBLE_PREEMPT_NEVER;
  const nominated = (p.pod as PodLike).status?.nominatedNodeName || opts.nominatedNode;
  if (!nominated) return undefined;
  const ni = nodes.find((n) => n.name === nominated);
  if (!ni) return undefined;
  // the nominated node became hopeless: preempt elsewhere
  if (statuses.get(ni)?.code === 'UnschedulableAndUnresolvable') return undefined;
  for (const e of ni.pods.values()) if (e.priority < p.priority && podTerminatingByPreemption(e.pod)) return NOT_ELIGIBLE_TERMINATING;
  return undefined;
}

/** Splits (ordered) pods into those whose eviction would break a PDB and the others; the order is kept. */
export function splitByPdbViolation(pods: PodEntry[], pdbs: PdbView[]): { violating: PodEntry[]; nonViolating: PodEntry[] } {
  const allowed = pdbs.map((d) => d.allowed);
  const violating: PodEntry[] = [];
  const nonViolating: PodEntry[] = [];
  for (const e of pods) {
    const labels = e.pod.metadata.labels ?? {};
    let violated = false;
    if (Object.keys(labels).length) {
      pdbs.forEach((d, i) => {
        if (d.namespace !== e.pod.metadata.namespace) return;
        if (d.selector.empty || !d.selector.matches(labels)) return;
        // already counted by the disruption controller as being evicted
        if (d.disrupted.has(e.pod.metadata.name ?? '')) return;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(e);
  }
  return { violating, nonViolating };
}

function withPods(ni: NodeInfo, extra: PodEntry[]): NodeInfo {
  if (!extra.length) return ni;
  const copy = ni.without(() => false);
  for (const e of extra) if (!copy.pods.has(e.uid)) copy.addPod(e);
  return copy;
}

/** The filters with the node's nominated pods counted (RunFilterPluginsWithNominatedPods for monotone filters). */
export function filtersWithNominated(p: PodInfo, ni: NodeInfo, nominatedOn?: NominatedOn): FilterStatus | undefined {
  return runFilters(p, withPods(ni, nominatedOn?.(ni.name, p) ?? []));
}

/**
 * SelectVictimsOnNode: remove every lower-priority pod; if the pod then fits, put back as many as possible, most
 * important first, PDB-violating ones before the others. A FilterStatus when the node cannot be made to fit.
 */
export function selectVictimsOnNode(
  p: PodInfo,
  ni: NodeInfo,
  opts: { pdbs?: PdbView[]; nominatedOn?: NominatedOn; now?: number } = {},
): Victims | FilterStatus {
  const now = opts.now ?? Date.now();
  const potential = [...ni.pods.values()].filter((e) => e.priority < p.priority);
  if (!potential.length) return { plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [NO_PREEMPTION_VICTIMS] };
  const drop = new Set(potential.map((e) => e.uid));
  const trial = ni.without((e) => drop.has(e.uid));
  const nominated = opts.nominatedOn?.(ni.name, p) ?? [];
  const st = runFilters(p, withPods(trial, nominated));
  if (st) return st;
  potential.sort((a, b) => (moreImportant(a, b, now) ? -1 : moreImportant(b, a, now) ? 1 : 0));
  const { violating, nonViolating } = splitByPdbViolation(potential, opts.pdbs ?? []);
  const victims: PodEntry[] = [];
  let numPDBViolations = 0;
  const reprieve = (e: PodEntry, { violates }: { violates: boolean }) => {
    trial.addPod(e);
    if (!runFilters(p, withPods(trial, nominated))) return;
    trial.removePod(e.uid);
    victims.push(e);
    if (violates) numPDBViolations++;
  };
  for (const e of violating) reprieve(e, { violates: true });
  for (const e of nonViolating) reprieve(e, { violates: false });
  victims.sort((a, b) => (moreImportant(a, b, now) ? -1 : moreImportant(b, a, now) ? 1 : 0));
  return { pods: victims, numPDBViolations };
}

const isStatus = (v: Victims | FilterStatus): v is FilterStatus => 'reasons' in v;

/** GetOffsetAndNumCandidates: a random start and how many candidates are enough. */
export function numCandidates(numNodes: number): number {
  const n = Math.trunc((numNodes * MIN_CANDIDATE_NODES_PERCENTAGE) / 100);
  return Math.min(Math.max(n, MIN_CANDIDATE_NODES_ABSOLUTE), numNodes);
}

/**
 * pickOneNodeForPreemption: a node without victims wins at once; otherwise fewest PDB violations, lowest
 * highest-victim priority, smallest sum of priorities, fewest victims, latest start of the most important victims,
 * then the first candidate.
 */
export function pickOneNode(candidates: Candidate[], now = Date.now()): Candidate | undefined {
  if (!candidates.length) return undefined;
  for (const c of candidates) if (!c.pods.length) return c;
  const earliestTopStart = (c: Candidate) => {
    const top = c.pods[0].priority;
    let t = Infinity;
    for (const e of c.pods) if (e.priority === top) t = Math.min(t, startTime(e, now));
    return t;
  };
  // each criterion scores higher = better; the survivors of one go to the next
  const criteria: ((c: Candidate) => number)[] = [
    (c) => -c.numPDBViolations,
    (c) => -c.pods[0].priority,
    (c) => -c.pods.reduce((s, e) => s + e.priority + INT32_OFFSET, 0),
    (c) => -c.pods.length,
    earliestTopStart,
  ];
  let left = candidates;
  for (const score of criteria) {
    const scores = left.map(score);
    const best = Math.max(...scores);
    left = left.filter((_, i) => scores[i] === best);
    if (left.length === 1) return left[0];
  }
  return left[0];
}

export interface PreemptOptions {
  pdbs?: PdbView[];
  nominatedOn?: NominatedOn;
  /** the node the pod is nominated to in memory, when its status does not show it yet */
  nominatedNode?: string;
  /** where the dry run starts (kube: random) */
  offset?: number;
  now?: number;
}

/**
 * Preempt: eligibility, the dry run over nodes rejected as resolvable, and the choice of a candidate. `statuses`
 * holds the filter status of every node the scheduling attempt rejected.
 */
export function preempt(p: PodInfo, nodes: NodeInfo[], statuses: Map<NodeInfo, FilterStatus>, opts: PreemptOptions = {}): PreemptionOutcome {
  const why = ineligibleReason(p, nodes, statuses, { nominatedNode: opts.nominatedNode });
  if (why) return { kind: 'ineligible', message: `preemption: ${why}` };
  const now = opts.now ?? Date.now();
  const potential = nodes.filter((n) => statuses.get(n)?.code === 'Unschedulable');
  const dryStatuses: FilterStatus[] = [];
  const candidates: Candidate[] = [];
  if (potential.length) {
    const want = numCandidates(potential.length);
    const offset = (opts.offset ?? 0) % potential.length;
    let violatingCandidates = 0;
    for (let i = 0; i < potential.length; i++) {
      const ni = potential[(offset + i) % potential.length];
      const r = selectVictimsOnNode(p, ni, { pdbs: opts.pdbs, nominatedOn: opts.nominatedOn, now });
      if (isStatus(r)) {
        dryStatuses.push(r);
        continue;
      }
      candidates.push({ node: ni, ...r });
      if (r.numPDBViolations) violatingCandidates++;
      const nonViolating = candidates.length - violatingCandidates;
      if (nonViolating > 0 && candidates.length >= want) break;
    }
  }
  if (!candidates.length) {
    // every node not in the dry run (unresolvable ones included) is the absent-nodes status
    for (let i = dryStatuses.length; i < nodes.length; i++) dryStatuses.push({ plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [PREEMPTION_NOT_HELPFUL] });
    return { kind: 'none', message: `preemption: ${fitErrorMessage(nodes.length, dryStatuses)}` };
  }
  return { kind: 'nominate', candidate: pickOneNode(candidates, now)! };
}

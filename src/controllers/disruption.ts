// The disruption controller (pkg/controller/disruption, 1.33): PodDisruptionBudget status from the selected
// pods and their controllers' scale, pruning of disruptedPods the eviction API recorded, and the reset of stale
// DisruptionTarget pod conditions whose pod was never deleted.
import type { Pod } from '../api/core/pod/types.js';
import type { PodDisruptionBudget } from '../api/policy/poddisruptionbudget/resource.js';
import type { Condition, PDBSpec } from '../api/policy/poddisruptionbudget/validation.js';
import type { KObject } from '../api/types.js';
import { splitKey, type Informer } from '../client/informer.js';
import { StatusError } from '../machinery/errors.js';
import { fromLabelSelector, type MetaLabelSelector } from '../machinery/labels.js';
import { clone, deepEqual, rfc3339 } from '../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';
import { controllerOf, type OwnerReference } from './framework/owner.js';
import { isPodReady } from './framework/pod-util.js';

/** How long an eviction recorded in disruptedPods keeps its pod out of currentHealthy (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
/** How long a DisruptionTarget condition may stay on a pod that is not terminating (--stale-pod-disruption-timeout). */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60 * 1000;
const POD_KEY = 'pod:';

interface PDBStatus {
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string> | null;
  conditions?: Condition[] | null;
}

/** intstr.GetScaledValueFromIntOrPercent rounding up. */
export function scaledValue(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(.*)%$/.exec(v);
  if (!m) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  if (!/^[+-]?\d+$/.test(m[1])) throw new Error(`invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${m[1]}": invalid syntax`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** metav1.LabelSelector's generated String(), as `%v` prints it in the UnmanagedPods event. */
export function labelSelectorString(sel: MetaLabelSelector | null | undefined): string {
  if (!sel) return 'nil';
  const labels = Object.keys(sel.matchLabels ?? {}).sort().map((k) => `${k}: ${sel.matchLabels![k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** apimeta.SetStatusCondition: the transition time moves only with the status. */
function setCondition(conds: Condition[], c: Condition, now: string): void {
  const cur = conds.find((x) => x.type === c.type);
  if (!cur) {
    conds.push({ ...c, lastTransitionTime: now });
    return;
  }
  if (cur.status !== c.status) cur.lastTransitionTime = now;
  cur.status = c.status;
  cur.reason = c.reason;
  cur.message = c.message;
  cur.observedGeneration = c.observedGeneration;
}

export class DisruptionController extends Reconciler {
  readonly name = 'disruption';
  private pods!: Informer;
  private pdbs!: Informer;
  private rcs!: Informer;
  private rss!: Informer;
  private deployments!: Informer;
  private statefulsets!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx);
  }

  private get recorder() {
    return this.ctx.recorder('controllermanager');
  }

  setup(): void {
    this.pods = this.informer('v1', 'pods');
    this.pdbs = this.informer('policy/v1', 'poddisruptionbudgets');
    this.rcs = this.informer('v1', 'replicationcontrollers');
    this.rss = this.informer('apps/v1', 'replicasets');
    this.deployments = this.informer('apps/v1', 'deployments');
    this.statefulsets = this.informer('apps/v1', 'statefulsets');
    this.watchOwn(this.pdbs);
    const onPod = (p: KObject, opts: { staleCheck: boolean }) => {
      this.pdbsForPod(p as Pod).forEach((b) => this.enqueueObject(b));
      const wait = opts.staleCheck ? this.staleDisruptionWait(p as Pod) : undefined;
      if (wait !== undefined) this.enqueueAfter(`${POD_KEY}${p.metadata.namespace}/${p.metadata.name}`, wait);
    };
    this.pods.addHandler({
      add: (p) => onPod(p, { staleCheck: true }),
      update: (_, p) => onPod(p, { staleCheck: true }),
      delete: (p) => onPod(p, { staleCheck: false }),
    });
  }

  /** GetPodPodDisruptionBudgets (an empty selector selects every pod); more than one is worth a warning. */
  private pdbsForPod(pod: Pod): PodDisruptionBudget[] {
    const out = (this.pdbs.list(pod.metadata.namespace ?? '') as PodDisruptionBudget[]).filter((pdb) => {
      try {
        return fromLabelSelector(pdb.spec?.selector).matches(pod.metadata.labels ?? {});
      } catch {
        return false;
      }
    });
    if (out.length > 1) {
      const msg = `Pod "${pod.metadata.namespace}"/"${pod.metadata.name}" matches multiple PodDisruptionBudgets.  Chose "${out[0].metadata.name}" arbitrarily.`;
      this.recorder.event(pod, 'Warning', 'MultiplePodDisruptionBudgets', msg);
    }
    return out;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    if (key.startsWith(POD_KEY)) return this.syncStalePodDisruption(key.slice(POD_KEY.length));
    const { namespace, name } = splitKey(key);
    const pdb = this.pdbs.get(namespace, name) as PodDisruptionBudget | undefined;
    if (!pdb) return;
    try {
      return await this.trySync(pdb);
    } catch (e) {
      if (e instanceof StatusError && e.code === 409) throw e;
      this.ctx.log(`k1s: disruption controller: failed to sync PDB ${key}: ${(e as Error).message}`);
      await this.failSafe(pdb, (e as Error).message);
    }
  }

  private async trySync(pdb: PodDisruptionBudget): Promise<{ requeueAfterMs?: number } | void> {
    let pods: Pod[];
    try {
      const sel = fromLabelSelector(pdb.spec?.selector);
      pods = (this.pods.list(pdb.metadata.namespace ?? '') as Pod[]).filter((p) => sel.matches(p.metadata.labels ?? {}));
    } catch (e) {
      this.recorder.event(pdb, 'Warning', 'NoPods', `Failed to get pods: ${(e as Error).message}`);
      throw e;
    }
    if (pods.length === 0) this.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');

    let counts: { expected: number; desiredHealthy: number; unmanaged: string[] };
    try {
      counts = this.expectedPodCount(pdb.spec ?? {}, pods);
    } catch (e) {
      this.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(e as Error).message}`);
      throw e;
    }
    if (counts.unmanaged.length > 0) {
      this.recorder.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${labelSelectorString(pdb.spec?.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }

    const now = this.ctx.now();
    const { disrupted, recheckAt } = this.disruptedPodMap(pods, pdb, now);
    let healthy = 0;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const t = disrupted[pod.metadata.name ?? ''];
      if (t !== undefined && Date.parse(t) + DELETION_TIMEOUT_MS > now) continue; // about to go
      if (isPodReady(pod)) healthy++;
    }
    await this.updateStatus(pdb, { currentHealthy: healthy, desiredHealthy: counts.desiredHealthy, expectedPods: counts.expected, disruptedPods: disrupted });
    if (recheckAt !== undefined) return { requeueAfterMs: Math.max(0, recheckAt - now) };
  }

  /** getExpectedPodCount: an integer minAvailable counts pods; anything else scales with the controllers. */
  private expectedPodCount(spec: PDBSpec, pods: Pod[]): { expected: number; desiredHealthy: number; unmanaged: string[] } {
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const { expected, unmanaged } = this.expectedScale(pods);
      const desiredHealthy = Math.max(0, expected - scaledValue(spec.maxUnavailable, expected));
      return { expected, desiredHealthy, unmanaged };
    }
    if (typeof spec.minAvailable === 'number') return { expected: pods.length, desiredHealthy: spec.minAvailable, unmanaged: [] };
    if (typeof spec.minAvailable === 'string') {
      const { expected, unmanaged } = this.expectedScale(pods);
      return { expected, desiredHealthy: scaledValue(spec.minAvailable, expected), unmanaged };
    }
    return { expected: 0, desiredHealthy: 0, unmanaged: [] };
  }

  /** getExpectedScale: the sum of the scale of every controller of the pods (each counted once). */
  private expectedScale(pods: Pod[]): { expected: number; unmanaged: string[] } {
    const scales = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanaged.push(pod.metadata.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = this.findController(ref, pod.metadata.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name}"`);
      scales.set(found.uid, found.replicas);
    }
    let expected = 0;
    for (const n of scales.values()) expected += n;
    return { expected, unmanaged };
  }

  /** The finders: ReplicationController, Deployment (through its ReplicaSet), ReplicaSet, StatefulSet, then scale. */
  private findController(ref: OwnerReference, namespace: string): { uid: string; replicas: number } | undefined {
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
    const get = (inf: Informer, name: string, uid: string) => {
      const o = inf.get(namespace, name);
      return o && o.metadata.uid === uid ? o : undefined;
    };
    const replicas = (o: KObject) => ((o as { spec?: { replicas?: number } }).spec?.replicas ?? 1);
    if (ref.kind === 'ReplicationController' && group === '') {
      const rc = get(this.rcs, ref.name, ref.uid);
      if (rc) return { uid: ref.uid, replicas: replicas(rc) };
    }
    if (ref.kind === 'ReplicaSet' && (group === 'apps' || group === 'extensions')) {
      const rs = get(this.rss, ref.name, ref.uid);
      if (rs) {
        const owner = controllerOf(rs);
        const g = owner?.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
        const d = owner?.kind === 'Deployment' && (g === 'apps' || g === 'extensions') ? get(this.deployments, owner.name, owner.uid) : undefined;
        if (d) return { uid: d.metadata.uid!, replicas: replicas(d) };
        // a ReplicaSet alone, or whose Deployment is gone: its own scale
        return { uid: ref.uid, replicas: replicas(rs) };
      }
    }
    if (ref.kind === 'StatefulSet' && group === 'apps') {
      const ss = get(this.statefulsets, ref.name, ref.uid);
      if (ss) return { uid: ref.uid, replicas: replicas(ss) };
    }
    return undefined;
  }

  /** buildDisruptedPodMap: entries of pods still here and not yet deleted, until their deletion is overdue. */
  private disruptedPodMap(pods: Pod[], pdb: PodDisruptionBudget, now: number): { disrupted: Record<string, string>; recheckAt?: number } {
    const recorded = (pdb.status as PDBStatus | undefined)?.disruptedPods ?? {};
    const disrupted: Record<string, string> = {};
    let recheckAt: number | undefined;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const t = recorded[pod.metadata.name ?? ''];
      if (t === undefined) continue;
      const expected = Date.parse(t) + DELETION_TIMEOUT_MS;
      if (expected < now) {
        this.recorder.event(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.namespace} to be deleted but it wasn't`);
      } else {
        disrupted[pod.metadata.name ?? ''] = t;
        if (recheckAt === undefined || expected < recheckAt) recheckAt = expected;
      }
    }
    return { disrupted, recheckAt };
  }

  private async updateStatus(pdb: PodDisruptionBudget, s: { currentHealthy: number; desiredHealthy: number; expectedPods: number; disruptedPods: Record<string, string> }): Promise<void> {
    // no disruptions while no pods are expected: a budget whose first pods just appeared stays safe
    const allowed = s.expectedPods <= 0 || s.currentHealthy - s.desiredHealthy <= 0 ? 0 : s.currentHealthy - s.desiredHealthy;
    const st = (pdb.status ?? {}) as PDBStatus;
    const gen = pdb.metadata.generation ?? 0;
    const cond = (st.conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
    const condOK = !!cond && (st.observedGeneration ?? 0) === gen && ((st.disruptionsAllowed ?? 0) > 0 ? cond.status === 'True' && cond.reason === 'SufficientPods' : cond.status === 'False' && cond.reason === 'InsufficientPods');
    if (
      st.currentHealthy === s.currentHealthy &&
      st.desiredHealthy === s.desiredHealthy &&
      st.expectedPods === s.expectedPods &&
      st.disruptionsAllowed === allowed &&
      deepEqual(Object.keys(st.disruptedPods ?? {}).length ? st.disruptedPods : {}, s.disruptedPods) &&
      (st.observedGeneration ?? 0) === gen &&
      condOK
    ) {
      return;
    }
    const next = clone(pdb);
    const conditions = clone(st.conditions ?? []);
    const status: PDBStatus = { ...s, disruptionsAllowed: allowed, observedGeneration: gen, conditions };
    if (Object.keys(s.disruptedPods).length === 0) delete status.disruptedPods;
    // UpdateDisruptionAllowedCondition
    setCondition(
      conditions,
      allowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: gen }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: gen },
      rfc3339(this.ctx.now()),
    );
    next.status = status as PodDisruptionBudget['status'];
    await this.ctx.client.resource('policy/v1', 'poddisruptionbudgets').update(pdb.metadata.namespace ?? '', next, { subresource: 'status' });
  }

  /** failSafe: at least stop evictions when the status cannot be computed. */
  private async failSafe(pdb: PodDisruptionBudget, message: string): Promise<void> {
    const next = clone(pdb);
    const st = (next.status ??= {}) as PDBStatus;
    st.disruptionsAllowed = 0;
    const conditions = (st.conditions ??= []);
    setCondition(conditions, { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: st.observedGeneration }, rfc3339(this.ctx.now()));
    await this.ctx.client.resource('policy/v1', 'poddisruptionbudgets').update(pdb.metadata.namespace ?? '', next, { subresource: 'status' });
  }

  /** nonTerminatingPodHasStaleDisruptionCondition: how long until the pod's DisruptionTarget is stale, if it has one. */
  private staleDisruptionWait(pod: Pod): number | undefined {
    if (pod.metadata.deletionTimestamp) return undefined;
    const c = pod.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
    const phase = pod.status?.phase;
    if (!c || c.status !== 'True' || c.reason === 'TerminationByKubelet' || phase === 'Succeeded' || phase === 'Failed') return undefined;
    const since = typeof c.lastTransitionTime === 'string' ? Date.parse(c.lastTransitionTime) : 0;
    return Math.max(0, STALE_POD_DISRUPTION_TIMEOUT_MS - (this.ctx.now() - since));
  }

  private async syncStalePodDisruption(podKey: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitKey(podKey);
    const pod = this.pods.get(namespace, name) as Pod | undefined;
    if (!pod) return;
    const wait = this.staleDisruptionWait(pod);
    if (wait === undefined) return;
    if (wait > 0) return { requeueAfterMs: wait };
    const next = clone(pod);
    const c = next.status!.conditions!.find((x) => x.type === 'DisruptionTarget')!;
    // UpdatePodCondition with only type and status: reason and message are cleared
    Object.assign(c, { status: 'False', lastTransitionTime: rfc3339(this.ctx.now()) });
    delete c.reason;
    delete c.message;
    await this.ctx.client.resource('v1', 'pods').update(namespace, next, { subresource: 'status' });
  }
}

/** The disruption controller, as kube-controller-manager's "disruption" controller. */
export function disruptionController(): ControllerFactory {
  return (ctx) => new DisruptionController(ctx);
}

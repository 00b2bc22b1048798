// The Deployment controller (pkg/controller/deployment): claims ReplicaSets by selector, then per sync either
// only scales (paused, or a replica count change) or makes one rollout step with the Deployment's strategy.
import type { KObject } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { splitKey } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { fromLabelSelector, nothing, type LabelSelector } from '../../machinery/labels.js';
import { clone } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import { syncDeploymentStatus } from './status.js';
import { cleanupOldRSs, newAndOldRSs, scaleDeployment, updateDeploymentStatus, type DeployEnv } from './sync.js';
import { activeRSs, desired, desiredReplicasAnnotation, getCondition, hasProgressDeadline, newCondition, setCondition, type Deployment, type RS } from './util.js';
import { controllerOf, controllerRef, controllerUidIndex } from '../framework/owner.js';

export function deploymentController(): ControllerFactory {
  return (ctx) => new DeploymentReconciler(ctx);
}

export class DeploymentReconciler extends Reconciler {
  readonly name = 'deployment-controller';
  private deployments!: Informer;
  private replicaSets!: Informer;
  private pods!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx);
  }

  setup(): void {
    this.deployments = this.informer('apps/v1', 'deployments');
    this.replicaSets = this.informer('apps/v1', 'replicasets');
    this.pods = this.informer('v1', 'pods');
    this.replicaSets.addIndex('controllerUid', controllerUidIndex);
    this.pods.addIndex('controllerUid', controllerUidIndex);
    this.watchOwn(this.deployments);
    const onRS = (rs: KObject) => {
      const owner = this.ownerOf(rs);
      if (owner) this.enqueueObject(owner);
      else if (!controllerOf(rs)) for (const d of this.matching(rs)) this.enqueueObject(d);
    };
    this.replicaSets.addHandler({
      add: onRS,
      update: (old, cur) => {
        const before = this.ownerOf(old);
        if (before && before.metadata.uid !== this.ownerOf(cur)?.metadata.uid) this.enqueueObject(before);
        onRS(cur);
      },
      delete: (rs) => {
        const owner = this.ownerOf(rs);
        if (owner) this.enqueueObject(owner);
      },
    });
    // Recreate waits for old pods to be gone: their deletion is what lets it continue
    this.pods.addHandler({
      delete: (pod) => {
        const ref = controllerOf(pod);
        const rs = ref?.kind === 'ReplicaSet' ? this.replicaSets.get(pod.metadata.namespace ?? '', ref.name) : undefined;
        const d = rs && this.ownerOf(rs);
        if (d && (d as Deployment).spec.strategy?.type === 'Recreate') this.enqueueObject(d);
      },
    });
  }

  private ownerOf(rs: KObject): KObject | undefined {
    const ref = controllerOf(rs);
    if (!ref || ref.kind !== 'Deployment') return undefined;
    const d = this.deployments.get(rs.metadata.namespace ?? '', ref.name);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  private matching(rs: KObject): KObject[] {
    return this.deployments.list(rs.metadata.namespace ?? '').filter((d) => selectorOf(d as Deployment).matches(rs.metadata.labels));
  }

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.deployments.get(namespace, name);
    if (!cached) return;
    const d = { ...clone(cached), apiVersion: 'apps/v1', kind: 'Deployment' } as Deployment;
    const env: DeployEnv = {
      client: this.ctx.client,
      recorder: this.ctx.recorder('deployment-controller'),
      now: () => this.ctx.now(),
      requeueAfter: (ms) => this.enqueueAfter(key, ms),
    };
    const sel = d.spec.selector;
    if (sel && !Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length) {
      env.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        d.status = { ...d.status, observedGeneration: d.metadata.generation };
        await updateDeploymentStatus(env, d);
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d);
    if (d.metadata.deletionTimestamp) {
      const { newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: false });
      return syncDeploymentStatus(env, d, [...oldRSs, newRS], newRS);
    }
    await this.checkPausedConditions(env, d);
    if (d.spec.paused) return this.sync(env, d, rsList);
    if (await this.isScalingEvent(env, d, rsList)) return this.sync(env, d, rsList);
    if (d.spec.strategy?.type === 'Recreate') return rolloutRecreate(env, d, rsList, this.podsByRS(rsList));
    return rolloutRolling(env, d, rsList);
  }

  /** sync: scale only, clean up history when paused, write counts and Available. */
  private async sync(env: DeployEnv, d: Deployment, rsList: RS[]): Promise<void> {
    const { newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: false });
    await scaleDeployment(env, d, newRS, oldRSs);
    if (d.spec.paused) await cleanupOldRSs(env, oldRSs, d);
    await syncDeploymentStatus(env, d, [...oldRSs, newRS], newRS);
  }

  /** A scaling event: some active ReplicaSet was sized for another replica count than the Deployment's. */
  private async isScalingEvent(env: DeployEnv, d: Deployment, rsList: RS[]): Promise<boolean> {
    const { newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: false });
    return activeRSs([...oldRSs, newRS]).some((rs) => {
      const want = desiredReplicasAnnotation(rs);
      return want !== undefined && want !== desired(d);
    });
  }

  /** Pausing and resuming are recorded in the Progressing condition (unless the rollout already timed out). */
  private async checkPausedConditions(env: DeployEnv, d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === 'ProgressDeadlineExceeded') return;
    const pausedCond = cond?.reason === 'DeploymentPaused';
    const now = env.now();
    if (d.spec.paused && !pausedCond) setCondition((d.status ??= {}), newCondition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', now));
    else if (!d.spec.paused && pausedCond) setCondition((d.status ??= {}), newCondition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', now));
    else return;
    await updateDeploymentStatus(env, d);
  }

  /** ClaimReplicaSets: owned and matching ones, adopted orphans; owned ones that stopped matching are released. */
  private async claimReplicaSets(d: Deployment): Promise<RS[]> {
    const selector = selectorOf(d);
    const rc = this.ctx.client.resource('apps/v1', 'replicasets');
    const out: RS[] = [];
    let fresh: boolean | undefined;
    for (const rs of this.replicaSets.list(d.metadata.namespace ?? '')) {
      const ref = controllerOf(rs);
      const matches = selector.matches(rs.metadata.labels);
      if (ref) {
        if (ref.uid !== d.metadata.uid) continue;
        if (matches) out.push(clone(rs) as RS);
        else if (!d.metadata.deletionTimestamp) {
          await rc
            .patch(rs.metadata.namespace!, rs.metadata.name!, 'strategic', { metadata: { ownerReferences: [{ $patch: 'delete', uid: d.metadata.uid }], uid: rs.metadata.uid } })
            .catch(ignoreGone);
        }
        continue;
      }
      if (!matches || d.metadata.deletionTimestamp || rs.metadata.deletionTimestamp) continue;
      fresh ??= await this.stillCurrent(d);
      if (!fresh) continue;
      try {
        const adopted = await rc.patch(rs.metadata.namespace!, rs.metadata.name!, 'strategic', { metadata: { ownerReferences: [controllerRef(d)], uid: rs.metadata.uid } });
        out.push(adopted as RS);
      } catch (e) {
        ignoreGone(e);
      }
    }
    return out;
  }

  private async stillCurrent(d: Deployment): Promise<boolean> {
    try {
      const cur = await this.ctx.client.resource('apps/v1', 'deployments').get(d.metadata.namespace!, d.metadata.name!);
      return cur.metadata.uid === d.metadata.uid && !cur.metadata.deletionTimestamp;
    } catch (e) {
      ignoreGone(e);
      return false;
    }
  }

  private podsByRS(rsList: RS[]): Map<string, KObject[]> {
    const m = new Map<string, KObject[]>();
    for (const rs of rsList) m.set(rs.metadata.uid!, this.pods.byIndex('controllerUid', rs.metadata.uid!));
    return m;
  }
}

function selectorOf(d: Deployment): LabelSelector {
  try {
    return fromLabelSelector(d.spec.selector as never);
  } catch {
    return nothing();
  }
}

function ignoreGone(e: unknown): void {
  if (e instanceof StatusError && (e.code === 404 || e.code === 409 || e.code === 422)) return;
  throw e;
}


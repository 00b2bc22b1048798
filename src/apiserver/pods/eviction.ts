// pods/<name>/eviction: a delete that honours PodDisruptionBudgets (pkg/registry/core/pod/storage/eviction.go,
// 1.33). Terminal, pending and terminating pods are deleted directly; otherwise the one PDB that selects the pod
// must allow a disruption, which is taken from its status (CAS) before the pod gets the DisruptionTarget condition
// and is deleted with the eviction's deleteOptions.
import { updatePodCondition } from '../../api/core/pod/subresources.js';
import type { Pod } from '../../api/core/pod/types.js';
import type { PodDisruptionBudget } from '../../api/policy/poddisruptionbudget/resource.js';
import type { PDBStatus } from '../../api/policy/poddisruptionbudget/validation.js';
import type { KObject } from '../../api/types.js';
import { errors, StatusError, type Status } from '../../machinery/errors.js';
import { fromLabelSelector } from '../../machinery/labels.js';
import { clone, isPlainObject, rfc3339 } from '../../machinery/object.js';
import type { ActionHandler } from '../registry/actions.js';
import type { DeleteOptions, RequestContext } from '../context.js';
import type { Registry } from '../registry/registry.js';
import { listObjects } from '../registry/list.js';
import type { ResourceStore } from '../registry/store.js';

/** More entries than this in status.disruptedPods means the disruption controller is not keeping up. */
const MAX_DISRUPTED_PODS = 2000;
/** kube retries conflicts for ~10 s with backoff; in-process conflicts clear at once, so a few tries do. */
const CONFLICT_RETRIES = 5;

/** The body of an action request after kube's create-handler checks (group/version, kind, namespace). */
export function actionObject(body: KObject, namespace: string, apiVersions: string[], kind: string): KObject {
  const av = body.apiVersion;
  if (av !== undefined && av !== '' && !apiVersions.includes(String(av))) {
    throw errors.badRequest(`the API version in the data (${String(av)}) does not match the expected API version (${apiVersions[0]})`);
  }
  if (body.kind !== undefined && body.kind !== '' && body.kind !== kind) {
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind})`);
  }
  if (body.metadata !== undefined && !isPlainObject(body.metadata)) throw errors.badRequest(`${kind}.metadata must be an object`);
  const meta = (body.metadata ??= {});
  if (meta.namespace && meta.namespace !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return body;
}

/** What create handlers answer for a subresource whose result is a bare success. */
export function successStatus(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

const isConflict = (e: unknown) => e instanceof StatusError && e.code === 409;
const rvUnset = (o: DeleteOptions) => !o.preconditions?.resourceVersion;
const withRV = (o: DeleteOptions, rv: string | undefined): DeleteOptions => ({ ...o, preconditions: { ...o.preconditions, resourceVersion: rv } });

/** canIgnorePDB: these pods already disrupt nothing (or are on their way out). */
function canIgnorePDB(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** shouldEnforceResourceVersion: a running pod might become ready (and count for a PDB) meanwhile. */
function shouldEnforceResourceVersion(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

const isPodReady = (pod: Pod) => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function tooManyRequests(message: string, retryAfterSeconds: number, cause: string): StatusError {
  const details: Status['details'] = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds) details.retryAfterSeconds = retryAfterSeconds;
  return new StatusError(429, 'TooManyRequests', message, details);
}

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const stillProcessing = (pdb: string) => tooManyRequests(VIOLATION, 10, `The disruption budget ${pdb} is still being processed by the server.`);

/** eviction.DeleteOptions with the request's dryRun (propagateDryRun). */
function deleteOptionsOf(eviction: KObject, ctx: RequestContext): DeleteOptions {
  const raw = eviction.deleteOptions;
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) throw errors.badRequest('Eviction.deleteOptions must be an object');
  const opts = clone((raw ?? {}) as DeleteOptions);
  const query = ctx.dryRun ? ['All'] : [];
  if (!opts.dryRun?.length) opts.dryRun = query;
  else if (query.length && opts.dryRun.join() !== query.join()) {
    throw new StatusError(500, '', `Non-matching dry-run options in request and content: [${query.join(' ')}] and [${opts.dryRun.join(' ')}]`);
  }
  return opts;
}

/** The PDBs of the pod's namespace whose (valid, non-empty) selector matches the pod. */
async function podDisruptionBudgets(registry: Registry, pod: Pod): Promise<PodDisruptionBudget[]> {
  const rs = registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (!rs) return [];
  const { items } = await listObjects(rs, pod.metadata.namespace ?? '', {});
  return (items as PodDisruptionBudget[]).filter((pdb) => {
    try {
      const sel = fromLabelSelector(pdb.spec?.selector);
      return !sel.empty && sel.matches(pod.metadata.labels ?? {});
    } catch {
      return false; // an invalid selector matches nothing
    }
  });
}

interface BudgetStatus extends PDBStatus {
  observedGeneration?: number;
  disruptionsAllowed: number;
  disruptedPods?: Record<string, string>;
}

/** checkAndDecrement: takes one allowed disruption from the PDB's status and records the pod as disrupted. */
async function checkAndDecrement(rs: ResourceStore, ctx: RequestContext, podName: string, pdb: PodDisruptionBudget, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const st = (pdb.status ??= {}) as BudgetStatus;
  st.disruptionsAllowed ??= 0;
  if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw stillProcessing(name);
  const forbidden = (why: string) => errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, `poddisruptionbudget.policy "${name}" is forbidden: ${why}`);
  if (st.disruptionsAllowed < 0) throw forbidden('pdb disruptions allowed is negative');
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
    throw forbidden('DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (st.disruptionsAllowed === 0) {
    throw tooManyRequests(VIOLATION, 0, `The disruption budget ${name} needs ${st.desiredHealthy} healthy pods and has ${st.currentHealthy} currently`);
  }
  st.disruptionsAllowed--;
  const now = rfc3339();
  if (st.disruptionsAllowed === 0) {
    // pdbhelper.UpdateDisruptionAllowedCondition (apimeta.SetStatusCondition)
    const conds = (st.conditions ??= []);
    const c = conds.find((x) => x.type === 'DisruptionAllowed');
    const next = { type: 'DisruptionAllowed', status: 'False', observedGeneration: st.observedGeneration || undefined, lastTransitionTime: now, reason: 'InsufficientPods', message: '' };
    if (!c) conds.push(next);
    else Object.assign(c, { ...next, lastTransitionTime: c.status === 'False' ? c.lastTransitionTime : now });
  }
  if (dryRun) return;
  (st.disruptedPods ??= {})[podName] = now;
  // pinned to the resourceVersion read: a concurrent change is a conflict the caller retries
  await rs.update({ ...ctx, dryRun: false, fieldManager: 'kube-apiserver', warnings: [] }, pdb.metadata.namespace ?? '', name, pdb, 'status');
}

/** addConditionAndDeletePod: the DisruptionTarget condition (through pods/status), then the delete. */
async function addConditionAndDelete(pods: ResourceStore, ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<void> {
  if (!ctx.dryRun) {
    const pre = opts.preconditions;
    const res = await pods.guaranteedUpdate(ctx, namespace, name, (cur) => {
      const pod = cur as Pod;
      const why = (what: string, want: string, have: string, hint: string) =>
        errors.conflict({ group: '', resource: 'Pod' }, name, `the ${what} in the precondition (${want}) does not match the ${what} in record (${have}). ${hint}`);
      if (pre?.uid && pre.uid !== pod.metadata.uid) throw why('UID', pre.uid, pod.metadata.uid ?? '', 'The object might have been deleted and then recreated');
      if (pre?.resourceVersion && pre.resourceVersion !== pod.metadata.resourceVersion) {
        throw why('ResourceVersion', pre.resourceVersion, pod.metadata.resourceVersion ?? '', 'The object might have been modified');
      }
      updatePodCondition(pod, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, rfc3339());
      delete pod.metadata.resourceVersion; // checked above; lets the store retry its compare-and-swap
      return pod;
    }, { subresource: 'status' });
    // our own write moved the resourceVersion the caller pinned
    if (!rvUnset(opts)) opts = withRV(opts, res.object.metadata.resourceVersion);
  }
  await pods.delete(ctx, namespace, name, opts);
}

export function podEvictionHandler(): ActionHandler {
  return async ({ ctx, store: pods, registry, namespace, name, body }) => {
    const eviction = actionObject(body, namespace, ['policy/v1', 'policy/v1beta1'], 'Eviction');
    if ((eviction.metadata.name ?? '') !== name) throw errors.badRequest('name in URL does not match name in Eviction object');
    const opts = deleteOptionsOf(eviction, ctx);
    const dryRun = opts.dryRun?.includes('All') ?? false;
    const dctx: RequestContext = { ...ctx, dryRun };

    let pod: Pod | undefined;
    for (let attempt = 0; ; attempt++) {
      pod = (await pods.get(namespace, name)) as Pod;
      if (!canIgnorePDB(pod)) break;
      // the PDB does not matter: delete, unless the pod changed since we looked (then look again)
      const o = shouldEnforceResourceVersion(pod) && rvUnset(opts) ? withRV(opts, pod.metadata.resourceVersion) : opts;
      try {
        await addConditionAndDelete(pods, dctx, namespace, name, o);
        return { code: 201, object: successStatus() };
      } catch (e) {
        if (!isConflict(e) || !rvUnset(opts) || attempt >= CONFLICT_RETRIES) throw e;
      }
    }

    const pdbs = await podDisruptionBudgets(registry, pod);
    if (pdbs.length > 1) {
      const message = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
      return { code: 500, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 } };
    }
    let pdbName = '';
    let unhealthyAllowed = false;
    if (pdbs.length === 1) {
      let pdb = pdbs[0];
      pdbName = pdb.metadata.name ?? '';
      const st = pdb.status;
      // An unready pod does not count as healthy: it may go when the policy says so or the budget is met anyway.
      if (!isPodReady(pod) && (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' || ((st?.currentHealthy ?? 0) >= (st?.desiredHealthy ?? 0) && (st?.desiredHealthy ?? 0) > 0))) {
        unhealthyAllowed = true;
      } else {
        const pdbStore = registry.mustLookup('policy', 'v1', 'poddisruptionbudgets');
        for (let attempt = 0; ; attempt++) {
          try {
            await checkAndDecrement(pdbStore, ctx, name, clone(pdb), dryRun);
            break;
          } catch (e) {
            if (!isConflict(e) || attempt >= CONFLICT_RETRIES) throw e;
            pdb = (await pdbStore.get(namespace, pdbName)) as PodDisruptionBudget;
          }
        }
      }
    }
    // An unready pod let through must still be unready when deleted: pin the version we judged.
    const o = unhealthyAllowed ? withRV(opts, pod.metadata.resourceVersion) : opts;
    try {
      await addConditionAndDelete(pods, dctx, namespace, name, o);
    } catch (e) {
      if (isConflict(e) && unhealthyAllowed && rvUnset(opts)) throw stillProcessing(pdbName);
      throw e;
    }
    return { code: 201, object: successStatus() };
  };
}

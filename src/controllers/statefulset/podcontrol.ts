// StatefulPodControl (pkg/controller/statefulset/stateful_pod_control.go, 1.33): the API writes for a StatefulSet's
// pods and claims, each followed by the event Kubernetes records ("create Pod web-0 in StatefulSet web successful").
import type { StatefulSet } from '../../api/apps/statefulset/validation.js';
import type { Client } from '../../client/types.js';
import type { Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';
import type { EventRecorder } from '../../client/events.js';
import {
  claimIsStale, claimOwnerUpToDate, claimOwnersForPolicy, claimsFor, identityMatches, ordinalOf, storageMatches, updateIdentity,
  updateStorage, type Claim, type Pod,
} from './pods.js';

const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);
const isCode = (e: unknown, code: number) => e instanceof StatusError && e.code === code;
const errText = (e: unknown) => (e as Error)?.message ?? String(e);

export class StatefulPodControl {
  constructor(
    private readonly client: Client,
    private readonly claims: Informer,
    private readonly recorder: EventRecorder,
  ) {}

  private pods() {
    return this.client.resource('v1', 'pods');
  }

  private pvcs() {
    return this.client.resource('v1', 'persistentvolumeclaims');
  }

  private claim(ns: string, name: string): Claim | undefined {
    return this.claims.get(ns, name) as Claim | undefined;
  }

  recordPodEvent(verb: string, set: StatefulSet, pod: Pod, err?: unknown): void {
    if (err === undefined) this.recorder.event(set, 'Normal', `Successful${title(verb)}`, `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    else this.recorder.event(set, 'Warning', `Failed${title(verb)}`, `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${errText(err)}`);
  }

  private recordClaimEvent(verb: string, set: StatefulSet, pod: Pod, claim: Claim, err?: unknown): void {
    if (err === undefined) {
      this.recorder.event(set, 'Normal', `Successful${title(verb)}`, `${verb} Claim ${claim.metadata.name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`);
    } else {
      this.recorder.event(set, 'Warning', `Failed${title(verb)}`, `${verb} Claim ${claim.metadata.name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${errText(err)}`);
    }
  }

  /** CreateStatefulPod: claims first, then the pod, then the claims' owners per the retention policy. */
  async createPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.createMissingClaims(set, pod);
    } catch (e) {
      this.recordPodEvent('create', set, pod, e);
      throw e;
    }
    let created: Pod;
    try {
      created = (await this.pods().create(set.metadata.namespace!, pod)) as Pod;
    } catch (e) {
      // an existing pod is not news: the cache is behind
      if (!isCode(e, 409)) this.recordPodEvent('create', set, pod, e);
      throw e;
    }
    try {
      await this.updateClaimsForRetentionPolicy(set, created);
    } catch (e) {
      this.recordPodEvent('update', set, created, e);
      throw e;
    }
    this.recordPodEvent('create', set, pod);
  }

  /** createPersistentVolumeClaims: every missing claim of the pod; one being deleted is an error. */
  async createMissingClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errs: string[] = [];
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const have = this.claim(claim.metadata.namespace!, claim.metadata.name!);
      if (have) {
        if (have.metadata.deletionTimestamp) errs.push(`pvc ${claim.metadata.name} is being deleted`);
        continue;
      }
      // Owners the policy already allows (the set) go on at creation, so no later update is needed.
      const owners = claimOwnersForPolicy(claim, set, pod);
      if (owners.length) claim.metadata.ownerReferences = owners;
      try {
        await this.pvcs().create(claim.metadata.namespace!, claim);
        this.recordClaimEvent('create', set, pod, claim);
      } catch (e) {
        if (isCode(e, 409)) continue;
        errs.push(`failed to create PVC ${claim.metadata.name}: ${errText(e)}`);
        this.recordClaimEvent('create', set, pod, claim, e);
      }
    }
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  /** PodClaimIsStale: a claim is still owned by an earlier pod with this name. */
  claimIsStale(set: StatefulSet, pod: Pod): boolean {
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const have = this.claim(c.metadata.namespace!, c.metadata.name!);
      if (have && claimIsStale(have, pod)) return true;
    }
    return false;
  }

  /** ClaimsMatchRetentionPolicy: every existing claim of the pod has the owners the policy wants. */
  claimsMatchRetentionPolicy(set: StatefulSet, pod: Pod): boolean {
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const have = this.claim(c.metadata.namespace!, c.metadata.name!);
      if (have && !claimOwnerUpToDate(have, set, pod)) return false;
    }
    return true;
  }

  /** UpdatePodClaimForRetentionPolicy: rewrites the ownerReferences of the pod's claims that disagree. */
  async updateClaimsForRetentionPolicy(set: StatefulSet, pod: Pod): Promise<void> {
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const have = this.claim(c.metadata.namespace!, c.metadata.name!);
      if (!have || claimOwnerUpToDate(have, set, pod)) continue;
      const upd = clone(have);
      upd.metadata.ownerReferences = claimOwnersForPolicy(have, set, pod);
      try {
        await this.pvcs().update(upd.metadata.namespace!, upd);
      } catch (e) {
        throw new Error(`could not update claim ${c.metadata.name} for delete policy ownerRefs: ${errText(e)}`);
      }
    }
  }

  /** UpdateStatefulPod: restores identity, storage and claim owners; records an update event when it wrote. */
  async updatePod(set: StatefulSet, pod: Pod): Promise<void> {
    const p = clone(pod);
    let consistent = true;
    try {
      if (!identityMatches(set, p)) {
        updateIdentity(set, p);
        consistent = false;
      }
      if (!storageMatches(set, p)) {
        updateStorage(set, p);
        consistent = false;
        await this.createMissingClaims(set, p);
      }
      if (!this.claimsMatchRetentionPolicy(set, p)) {
        await this.updateClaimsForRetentionPolicy(set, p);
        consistent = false;
      }
      if (consistent) return;
      await this.pods().update(set.metadata.namespace!, p);
    } catch (e) {
      this.recordPodEvent('update', set, p, e);
      throw e;
    }
    this.recordPodEvent('update', set, p);
  }

  /** DeleteStatefulPod; a pod already gone counts as deleted. */
  async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.pods().delete(set.metadata.namespace!, pod.metadata.name!);
    } catch (e) {
      if (isCode(e, 404)) return;
      this.recordPodEvent('delete', set, pod, e);
      throw e;
    }
    this.recordPodEvent('delete', set, pod);
  }
}

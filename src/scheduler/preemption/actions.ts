// What the scheduler writes once preemption picked a node (prepareCandidate, 1.33): each victim first gets the
// DisruptionTarget=True/PreemptionByScheduler condition through the status subresource, is then deleted
// gracefully, and gets a Preempted event; lower-priority pods nominated to the same node lose their nomination.
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import type { EventRecorder } from '../../client/events.js';
import { StatusError } from '../../machinery/errors.js';
import { rfc3339 } from '../../machinery/object.js';
import type { PodEntry } from '../node-info.js';
import { DISRUPTION_TARGET, PREEMPTION_BY_SCHEDULER } from './post-filter.js';

export interface PreemptionWriter {
  client: Client;
  recorder: EventRecorder;
  log: (line: string) => void;
  now: () => number;
}

type PodLike = KObject & { spec?: { schedulerName?: string }; status?: { conditions?: { type: string; status?: string; reason?: string; message?: string }[] } };

const notFound = (e: unknown) => e instanceof StatusError && e.code === 404;

export function disruptionMessage(preemptor: KObject): string {
  return `${(preemptor as PodLike).spec?.schedulerName || 'default-scheduler'}: preempting to accommodate a higher priority pod`;
}

/** Evicts one victim; resolves false when it was already gone. */
async function preemptPod(w: PreemptionWriter, preemptor: KObject, victim: KObject, node: string): Promise<boolean> {
  const pods = w.client.resource('v1', 'pods');
  const ns = victim.metadata.namespace!;
  const name = victim.metadata.name!;
  const message = disruptionMessage(preemptor);
  const cur = (victim as PodLike).status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
  try {
    if (!cur || cur.status !== 'True' || cur.reason !== PREEMPTION_BY_SCHEDULER || cur.message !== message) {
      const cond = { type: DISRUPTION_TARGET, status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(w.now()), reason: PREEMPTION_BY_SCHEDULER, message };
      await pods.patch(ns, name, 'strategic', { status: { conditions: [cond] } }, { subresource: 'status' });
    }
    await pods.delete(ns, name, { preconditions: { uid: victim.metadata.uid } });
  } catch (e) {
    if (notFound(e) || (e instanceof StatusError && e.code === 409)) return false;
    throw e;
  }
  w.recorder.event(victim, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata.uid} on node ${node}`);
  return true;
}

/**
 * Evicts the victims (those already terminating are left alone) and clears the nomination of `demoted` pods.
 * Errors are logged: the preemptor is retried anyway and preempts again if it still does not fit.
 */
export async function executePreemption(
  w: PreemptionWriter,
  preemptor: KObject,
  node: string,
  victims: PodEntry[],
  demoted: KObject[],
): Promise<void> {
  const key = `${preemptor.metadata.namespace}/${preemptor.metadata.name}`;
  await Promise.all(
    victims
      .filter((v) => !v.pod.metadata.deletionTimestamp)
      .map((v) =>
        preemptPod(w, preemptor, v.pod, node).catch((e) => w.log(`k1s: scheduler: ${key}: preempting ${v.key}: ${(e as Error).message}`)),
      ),
  );
  await Promise.all(
    demoted.map((p) =>
      w.client
        .resource('v1', 'pods')
        .patch(p.metadata.namespace!, p.metadata.name!, 'merge', { status: { nominatedNodeName: null } }, { subresource: 'status' })
        .catch((e) => {
          if (!notFound(e)) w.log(`k1s: scheduler: clearing the nomination of ${p.metadata.namespace}/${p.metadata.name}: ${(e as Error).message}`);
        }),
    ),
  );
}

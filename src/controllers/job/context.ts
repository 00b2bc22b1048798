// What one sync of one Job works with (syncJobCtx) and what the controller lends it.
import type { Job, JobCondition } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { BackoffRecord } from './backoff.js';
import type { JobExpectations } from './expectations.js';
import type { Indexes } from './indexes.js';

export interface JobDeps {
  client: Client;
  recorder: EventRecorder;
  now(): number;
  log(line: string): void;
  expectations: JobExpectations;
  /** per job key: failures since the last success, kept by the controller instance */
  backoff: Map<string, BackoffRecord>;
}

export interface SyncCtx {
  key: string;
  /** a private copy whose status the sync edits */
  job: Job;
  pods: KObject[];
  activePods: KObject[];
  expectedRmFinalizers: Set<string>;
  uncounted: { succeeded: Set<string>; failed: Set<string> };
  newBackoff: BackoffRecord;
  finishedCondition?: JobCondition;
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  prevSucceededIndexes?: Indexes;
  succeededIndexes?: Indexes;
  failedIndexes?: Indexes;
  /** per index, the last failed pod kept (with its finalizer) until its replacement exists */
  delayedDeletion: Map<number, KObject>;
  /** the shortest delay after which the job wants another sync */
  requeueAfterMs?: number;
}

export function requeueWithin(ctx: SyncCtx, ms: number): void {
  const d = Math.max(0, Math.ceil(ms));
  if (ctx.requeueAfterMs === undefined || d < ctx.requeueAfterMs) ctx.requeueAfterMs = d;
}

// The checkpointer thread of a store that commits on the main thread. A checkpoint copies the pages committed to
// the WAL back into the database file and syncs both: on the main thread those syncs took as long as the commits
// themselves. Here they block only this thread. Its checkpoints are passive: they never wait for, nor block, the
// writer; what a commit adds meanwhile is left for the next one.
import type { MessagePort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { openCheckpointConnection, type Durability } from './schema.js';
import { errorMessage } from '../types.js';

/** 'kick': a commit happened since the last checkpoint; 'close': close the connection and end the thread. */
export type CheckpointRequest = { t: 'kick' } | { t: 'close' };

export interface CheckpointInfo {
  /** frames in the WAL when the checkpoint ran (-1: another checkpoint was running) */
  frames: number;
  /** of those, the frames now in the database file: all of them lets the next commit start the WAL over */
  copied: number;
  ms: number;
}

export type CheckpointReply =
  | ({ t: 'checkpointed' } & CheckpointInfo)
  | { t: 'failed'; error: string }
  | { t: 'closed' };

export interface CheckpointerConfig {
  path: string;
  durability: Durability;
  lockTimeoutMs?: number;
}

export interface CheckpointerData extends CheckpointerConfig {
  k1sSqliteCheckpointer: true;
  port: MessagePort;
}

export function runCheckpointer(data: CheckpointerData): void {
  const port = data.port;
  let db: Database.Database;
  try {
    db = openCheckpointConnection(data.path, data);
  } catch (e) {
    port.postMessage({ t: 'failed', error: errorMessage(e) } satisfies CheckpointReply);
    port.close();
    return;
  }
  port.on('message', (req: CheckpointRequest) => {
    if (req.t === 'close') {
      db.close();
      port.postMessage({ t: 'closed' } satisfies CheckpointReply);
      port.close();
      return;
    }
    const t0 = performance.now();
    let reply: CheckpointReply;
    try {
      const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      reply = { t: 'checkpointed', frames: r!.log, copied: r!.checkpointed, ms: performance.now() - t0 };
    } catch (e) {
      reply = { t: 'failed', error: errorMessage(e) };
    }
    port.postMessage(reply);
  });
}

// What SqliteStore can be given, and what it reports after each commit.
import type { CheckpointInfo } from './checkpoint-thread.js';
import type { Durability } from './schema.js';
import type { KeyTransformers } from '../encryption/key-transformers.js';

export type { CheckpointInfo };

export interface SqliteStoreOptions {
  /** database file, or ':memory:' */
  path: string;
  /** 'full' (default): acknowledged writes survive power loss; 'normal': they survive a process crash */
  durability?: Durability;
  /** log each commit batch to stderr (default: when K1S_TRACE lists "store") */
  trace?: boolean;
  /** called after each committed batch (metrics, tests) */
  onCommit?: (info: CommitInfo) => void;
  /** how many keys' latest revisions revision() answers from the last commits: 65536 (default) to twice that */
  recentRevisions?: number;
  /** called after each checkpoint of the checkpointer thread (tests, traces) */
  onCheckpoint?: (info: CheckpointInfo) => void;
  /** how long open waits for another process to release the database (default 5000 ms) */
  lockTimeoutMs?: number;
  /** most writes per transaction (default 2000) */
  maxBatch?: number;
  /** revisions compacted per transaction, so compaction does not stall the event loop (default 10000) */
  compactionChunk?: number;
  /**
   * 'thread': commit on a writer thread, so the main thread serves requests while the disk syncs; 'inline':
   * commit on the main thread. ':memory:' is always inline (another connection cannot see it). Default: 'inline'
   * (the API-level benchmark did not show the thread clearly faster yet), or K1S_SQLITE_WRITER.
   */
  writer?: 'thread' | 'inline';
  /**
   * Where an inline file store checkpoints its WAL: 'thread' (default, or K1S_SQLITE_CHECKPOINTER): a thread of its
   * own, so the syncs of a checkpoint do not stall the event loop; 'inline': in the commit that fills the WAL past
   * 1000 pages, as SQLite does by default.
   */
  checkpointer?: 'thread' | 'inline';
  /**
   * Encryption at rest (--encryption-provider-config): values are transformed on their way into the log and back,
   * so that watchers, lists and the callers' caches only ever see plain values while the file holds ciphertext.
   */
  transformers?: KeyTransformers;
}

export interface CommitInfo {
  /** writes in the batch */
  ops: number;
  /** writes that succeeded (the others failed their precondition) */
  changed: number;
  /** the revision after the batch */
  revision: number;
  /** time spent applying and committing */
  ms: number;
}

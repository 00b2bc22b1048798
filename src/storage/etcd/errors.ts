// The store's own refusals, worded as SqliteStore words them.
import { StoreError } from '../types.js';

export function compactedError(rev: number, compacted: number): StoreError {
  return new StoreError('Compacted', `revision ${rev} has been compacted (oldest available: ${compacted})`, compacted);
}

export function closedError(): StoreError {
  return new StoreError('Closed', 'the store is closed');
}

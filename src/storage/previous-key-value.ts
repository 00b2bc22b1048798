// The previous revision of a key that a watch event carries, with its value read from the store only when asked.
// Watchers mostly have that revision decoded already (the resource store keeps it), so most events never read it;
// reading every one would copy the whole stored object out of SQLite on each update.
import type { KeyValue } from './types.js';

export class PreviousKeyValue implements KeyValue {
  private loaded: string | undefined;

  constructor(
    readonly key: string,
    readonly modRevision: number,
    readonly createRevision: number,
    /** the row's value; undefined once compacted away (a watcher that far behind gets '', which decodes to nothing) */
    private readonly load: (rev: number, key: string) => string | undefined,
  ) {}

  get value(): string {
    return (this.loaded ??= this.load(this.modRevision, this.key) ?? '');
  }
}

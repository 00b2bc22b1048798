// The decoded objects of the latest revisions of recently written or watched keys, for one resource store. A
// revision names one stored value, so decoding it again can copy the kept object (about twice as fast as
// JSON.parse) and watchers can share it as it is. Kept objects are read-only (frozen with
// K1S_FREEZE_WATCH_OBJECTS=1).
import type { KObject } from '../../api/types.js';
import type { KeyValue } from '../../storage/types.js';

/** A key's decoded value: at a committed revision, or (rev undefined) the value a write of ours is storing. */
interface Entry {
  rev: number | undefined;
  value: string | undefined;
  obj: KObject;
  /** the key's committed revision before this one: a watch event's previous object (the watch hub's triggers
   * and the watchers' selectors read it) */
  prev?: { rev: number; obj: KObject };
}

export interface DecodedRevisionsOptions {
  /** false: keep nothing (converted kinds are decoded by every version's store: each decodes for itself) */
  enabled: boolean;
  /** deep-freeze the objects handed out as shared */
  freeze: boolean;
  /** how many keys are kept, least recently stored dropped first (default 2048: the objects being written now) */
  size?: number;
  /** how many dropped revisions are remembered weakly before the dead ones are swept out (default 65536; the
   * bound then follows the live ones: twice as many as survived the last sweep) */
  droppedSize?: number;
  /** metadata with resourceVersion added where this kind's JSON has it (default: appended) */
  withResourceVersion?: (meta: Record<string, unknown>, rv: string) => Record<string, unknown>;
}

/** A committed revision dropped from the kept ones: its object lives on while others (informers) hold it. */
interface Dropped {
  rev: number;
  ref: WeakRef<KObject>;
}

export class DecodedRevisions {
  private readonly latest = new Map<string, Entry>();
  private readonly size: number;
  /**
   * Revisions dropped from `latest`, held weakly: in-process informers share the decoded objects of watch events
   * (a scheduler's pending pods), so the one a later write reads is often still alive after thousands of other
   * writes, and a copy of it beats parsing the stored text again. Entries are small; when there are too many, the
   * dead ones go, so all the objects informers hold stay findable (100,000 pending pods) without keeping entries
   * of deleted keys for ever.
   */
  private readonly dropped = new Map<string, Dropped>();
  private readonly droppedSize: number;
  private droppedLimit: number;

  constructor(private readonly opts: DecodedRevisionsOptions) {
    this.size = opts.size ?? 2048;
    this.droppedSize = opts.droppedSize ?? 65536;
    this.droppedLimit = this.droppedSize;
  }

  /** The kept object of exactly this revision, if any (shared: never to be modified). */
  get(kv: KeyValue): KObject | undefined {
    const c = this.latest.get(kv.key);
    if (c === undefined) return this.revive(kv);
    if (c.rev === kv.modRevision) return c.obj;
    if (c.prev !== undefined && c.prev.rev === kv.modRevision) return c.prev.obj;
    // a write of ours: its revision is known once committed, and its value is the very string it stored
    if (c.rev !== undefined || c.value !== kv.value) return undefined;
    const rv = String(kv.modRevision);
    if (this.opts.withResourceVersion) c.obj.metadata = this.opts.withResourceVersion(c.obj.metadata as Record<string, unknown>, rv) as KObject['metadata'];
    else c.obj.metadata.resourceVersion = rv;
    c.rev = kv.modRevision;
    c.value = undefined;
    if (this.opts.freeze) deepFreeze(c.obj);
    return c.obj;
  }

  /** The kept object of the key's committed revision `rev`, if any (shared): what get() gives for it, without its value. */
  peek(key: string, rev: number): KObject | undefined {
    const c = this.latest.get(key);
    if (c === undefined) return this.revive({ key, modRevision: rev });
    if (c.rev === rev) return c.obj;
    if (c.prev !== undefined && c.prev.rev === rev) return c.prev.obj;
    return undefined;
  }

  /** Keeps `obj`, decoded from the key's value at revision `rev` (frozen first when freezing). */
  remember(key: string, rev: number, obj: KObject): void {
    if (this.opts.freeze) deepFreeze(obj);
    this.keep(key, { rev, value: undefined, obj });
  }

  /**
   * Before a write of `value`: `decoded` is what decoding it will give, less metadata.resourceVersion (get()
   * adds it, as decoding does, once the revision is committed). Watchers see the change before the writer
   * does, so this is known ahead.
   */
  expect(key: string, value: string, decoded: KObject): void {
    this.keep(key, { rev: undefined, value, obj: decoded });
  }

  private keep(key: string, e: Entry): void {
    if (!this.opts.enabled) return;
    const before = this.latest.get(key);
    if (before?.rev !== undefined && e.rev !== undefined && e.rev < before.rev) {
      // an older revision decoded late (a watch event's previous object): it does not displace the newer one
      if (before.prev === undefined || before.prev.rev < e.rev) before.prev = { rev: e.rev, obj: e.obj };
      return;
    }
    if (before !== undefined) {
      // a write of ours replaces the revision it read: keep that as the previous one (a pending write that never
      // committed passes on its own previous)
      const prev = before.rev !== undefined ? { rev: before.rev, obj: before.obj } : before.prev;
      if (prev !== undefined && (e.rev === undefined || prev.rev < e.rev)) e.prev = prev;
    }
    this.latest.delete(key);
    this.dropped.delete(key);
    this.latest.set(key, e);
    if (this.latest.size > this.size) {
      const [oldKey, old] = this.latest.entries().next().value!;
      this.latest.delete(oldKey);
      // a write still uncommitted is not worth keeping: its revision is unknown
      if (old.rev !== undefined) {
        this.dropped.set(oldKey, { rev: old.rev, ref: new WeakRef(old.obj) });
        if (this.dropped.size > this.droppedLimit) this.sweepDropped();
      }
    }
  }

  /** Forgets the dropped revisions no longer alive; the next sweep comes when as many again are added. */
  private sweepDropped(): void {
    for (const [key, d] of this.dropped) if (d.ref.deref() === undefined) this.dropped.delete(key);
    this.droppedLimit = Math.max(this.droppedSize, 2 * this.dropped.size);
  }

  /** A dropped revision's object if it is this revision and still alive; kept again. */
  private revive(kv: Pick<KeyValue, 'key' | 'modRevision'>): KObject | undefined {
    const d = this.dropped.get(kv.key);
    if (d === undefined) return undefined;
    if (d.rev !== kv.modRevision) return undefined;
    const obj = d.ref.deref();
    if (obj === undefined) {
      this.dropped.delete(kv.key);
      return undefined;
    }
    this.keep(kv.key, { rev: d.rev, value: undefined, obj });
    return obj;
  }
}

export function deepFreeze(o: unknown): void {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return;
  Object.freeze(o);
  for (const v of Object.values(o)) deepFreeze(v);
}

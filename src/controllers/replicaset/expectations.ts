// ControllerExpectations: how many creates and which deletes a controller has issued but not yet seen in its
// informer cache, so a reconcile over a stale cache never creates or deletes twice. Entries expire after 5 minutes.
const TTL_MS = 5 * 60 * 1000;

interface Expectation {
  adds: number;
  dels: Set<string>;
  at: number;
}

export class Expectations {
  private readonly items = new Map<string, Expectation>();

  constructor(private readonly now: () => number) {}

  satisfied(key: string): boolean {
    const e = this.items.get(key);
    if (!e) return true;
    return (e.adds <= 0 && e.dels.size === 0) || this.now() - e.at > TTL_MS;
  }

  expectCreations(key: string, n: number): void {
    this.items.set(key, { adds: n, dels: new Set(), at: this.now() });
  }

  expectDeletions(key: string, podKeys: string[]): void {
    this.items.set(key, { adds: 0, dels: new Set(podKeys), at: this.now() });
  }

  creationObserved(key: string): void {
    const e = this.items.get(key);
    if (e) e.adds--;
  }

  deletionObserved(key: string, podKey: string): void {
    this.items.get(key)?.dels.delete(podKey);
  }

  delete(key: string): void {
    this.items.delete(key);
  }
}

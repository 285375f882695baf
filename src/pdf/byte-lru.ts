// A least-recently-used map bounded by the bytes its entries hold, for the caches of the render and
// check threads (font subsets, prepared images). Map order is insertion order: a hit is moved to the
// end, and the oldest entries are dropped from the front until the bound holds again.
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;

  constructor(public limit: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` unless it alone is over the bound; drops the oldest entries to stay within it. */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.limit) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.held -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.limit) break;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.held;
  }
}

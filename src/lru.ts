/**
 * The one least-recently-used map of the service: the response cache (src/http/cache.ts), the SQLite
 * statement cache (src/store/sqlite-statements.ts) and the batch memo keep their entries in it. It is
 * bounded by a number of entries and, when given a weight function, by a total weight (bytes, or
 * characters of SQL); it counts what it drops so /metrics can say so. The entries are a list from the
 * least recently used to the most, linked through the entries themselves, beside a Map that finds
 * them: a hit moves its entry to the end of the list and allocates nothing. (Before, a hit deleted and
 * set its key again in the Map, which kept the order; every few hits the Map made itself a new table,
 * and under load those tables lived long enough to reach the old generation: the largest share of the
 * garbage the main thread promoted while lookups and a batch ran together, issue 47.) It imports
 * nothing: the page may use it too.
 */

/** A cache's figures as /metrics shows them (src/store/store.ts' CacheStats has this shape). */
export interface LruStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** Entries dropped to stay within the bounds, since the cache was made. */
  readonly evictions: number;
}

export interface LruOptions<V> {
  readonly maxEntries: number;
  /** The total weight kept; without it only the number of entries bounds the map. */
  readonly maxBytes?: number;
  /** What an entry weighs (0 when not given). */
  readonly weight?: (key: string, value: V) => number;
  /** An entry heavier than this is not kept (the entry it would replace stays). */
  readonly maxEntryBytes?: number;
  /** Entries never dropped however heavy: the most recent ones, about to be used. */
  readonly keep?: number;
}

interface Held<V> {
  readonly key: string;
  value: V;
  weight: number;
  older: Held<V> | undefined;
  newer: Held<V> | undefined;
}

export class Lru<V> {
  private readonly entries = new Map<string, Held<V>>();
  /** The ends of the list: the least recently used, and the most. */
  private oldest: Held<V> | undefined;
  private newest: Held<V> | undefined;
  private bytes = 0;
  private evictions = 0;
  private readonly options: LruOptions<V>;

  /** `limits`: the options, or only the number of entries kept. */
  constructor(limits: LruOptions<V> | number) {
    this.options = typeof limits === 'number' ? { maxEntries: limits } : limits;
  }

  /** The value under `key`, made the most recently used. */
  get(key: string): V | undefined {
    const held = this.entries.get(key);
    if (held === undefined) return undefined;
    this.unlink(held);
    this.append(held);
    return held.value;
  }

  /** The value under `key`, its place in the order unchanged. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key` as the most recently used, dropping the least recently used past the bounds. */
  set(key: string, value: V): void {
    const weight = this.options.weight?.(key, value) ?? 0;
    if (this.options.maxEntryBytes !== undefined && weight > this.options.maxEntryBytes) return;
    const held = this.entries.get(key);
    if (held === undefined) {
      const added: Held<V> = { key, value, weight, older: undefined, newer: undefined };
      this.entries.set(key, added);
      this.append(added);
    } else {
      this.bytes -= held.weight;
      held.value = value;
      held.weight = weight;
      this.unlink(held);
      this.append(held);
    }
    this.bytes += weight;
    this.evict();
  }

  delete(key: string): void {
    const held = this.entries.get(key);
    if (held === undefined) return;
    this.remove(held);
  }

  /** Forgets every entry; the count of evictions stays (a fresh start is not an eviction). */
  clear(): void {
    this.entries.clear();
    this.oldest = this.newest = undefined;
    this.bytes = 0;
  }

  /** The entry `value` under `key` weighs `more` than it did (nothing when `key` holds another value). */
  grew(key: string, value: V, more: number): void {
    const held = this.entries.get(key);
    if (held === undefined || held.value !== value) return;
    held.weight += more;
    this.bytes += more;
    this.evict();
  }

  get count(): number {
    return this.entries.size;
  }

  stats(): LruStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      maxEntries: this.options.maxEntries,
      maxBytes: this.options.maxBytes ?? Infinity,
      evictions: this.evictions,
    };
  }

  private evict(): void {
    const { maxEntries, maxBytes = Infinity, keep = 0 } = this.options;
    while (this.oldest !== undefined && this.entries.size > keep && (this.entries.size > maxEntries || this.bytes > maxBytes)) {
      this.remove(this.oldest);
      this.evictions++;
    }
  }

  private remove(held: Held<V>): void {
    this.entries.delete(held.key);
    this.unlink(held);
    this.bytes -= held.weight;
  }

  /** Takes `held` out of the list. */
  private unlink(held: Held<V>): void {
    if (held.older === undefined) this.oldest = held.newer;
    else held.older.newer = held.newer;
    if (held.newer === undefined) this.newest = held.older;
    else held.newer.older = held.older;
    held.older = held.newer = undefined;
  }

  /** Puts `held` at the end of the list, the most recently used. */
  private append(held: Held<V>): void {
    held.older = this.newest;
    if (this.newest === undefined) this.oldest = held;
    else this.newest.newer = held;
    this.newest = held;
  }
}

/**
 * Answers cached in memory by normalised request. The data only changes when a new dataset is
 * loaded. A SQLite switch brings a new Store object, and caches are kept per store (a WeakMap), so it
 * drops every cached answer at once; a PostgreSQL load by another process keeps the store, and is
 * seen by the dataset hash each cache checks every two seconds.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Store } from '../store/store.js';

export interface CacheLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** A serialised answer and its entity tag, computed together once. */
export interface CachedAnswer {
  readonly body: string;
  readonly etag: string;
}

/** The entity tag names the dataset version too: the same body from another version is another answer (a 200, not a 304). */
export function answer(body: string, version = ''): CachedAnswer {
  return { body, etag: `"${createHash('sha1').update(version).update('\n').update(body).digest('base64url')}"` };
}

/** Least-recently-used by insertion order of a Map: a hit moves the entry to the end. */
class Lru {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(private readonly limits: CacheLimits) {}

  get(key: string): CachedAnswer | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: CachedAnswer): void {
    const size = value.body.length + key.length;
    if (size > this.limits.maxBytes / 4) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.bytes -= previous.body.length + key.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, v] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= v.body.length + oldest.length;
    }
  }
}

/** How often a cache asks its store which dataset it holds: a load by another process (PostgreSQL) swaps no store. */
const REVALIDATE_MS = 2000;

interface PerStore {
  lru: Lru;
  hash: string | null | undefined;
  checkedAt: number;
  checking: boolean;
}

export class ResponseCache {
  private readonly perStore = new WeakMap<Store, PerStore>();

  constructor(private readonly limits: CacheLimits) {}

  get enabled(): boolean {
    return this.limits.maxEntries > 0 && this.limits.maxBytes > 0;
  }

  private entry(store: Store): PerStore {
    let entry = this.perStore.get(store);
    if (!entry) {
      entry = { lru: new Lru(this.limits), hash: undefined, checkedAt: Date.now(), checking: false };
      this.perStore.set(store, entry);
      this.revalidate(store, entry);
    }
    return entry;
  }

  /**
   * Asks the store for its dataset's hash, in the background, and starts afresh when it changed: a
   * dataset loaded by another process shows within REVALIDATE_MS. A store that cannot answer keeps
   * its cache until it can.
   */
  private revalidate(store: Store, entry: PerStore): void {
    if (entry.checking) return;
    entry.checking = true;
    entry.checkedAt = Date.now();
    store
      .dataset()
      .then((info) => {
        const hash = info?.hash ?? null;
        if (entry.hash !== undefined && hash !== entry.hash) entry.lru = new Lru(this.limits);
        entry.hash = hash;
      })
      .catch(() => undefined)
      .finally(() => {
        entry.checking = false;
      });
  }

  /** The serialised answer for `key` on this store's data (of `version`), computed once. */
  async getOrCompute(store: Store, key: string, compute: () => Promise<string>, version = ''): Promise<CachedAnswer> {
    if (!this.enabled) return answer(await compute(), version);
    const entry = this.entry(store);
    if (Date.now() - entry.checkedAt > REVALIDATE_MS) this.revalidate(store, entry);
    const lru = entry.lru;
    // The version is part of the key: a store shared by two versions in turn (PostgreSQL's main tables) never mixes them.
    const versionKey = `${version}\n${key}`;
    const hit = lru.get(versionKey);
    if (hit !== undefined) return hit;
    const computed = answer(await compute(), version);
    lru.set(versionKey, computed);
    return computed;
  }
}

/**
 * Answers a GET from the cache, computing and serialising the payload (through the route's response
 * schema) on a miss. Every cached route answers this way, with the same headers.
 */
export async function sendCached(
  reply: FastifyReply,
  cache: ResponseCache,
  store: Store,
  key: string,
  payload: () => Promise<unknown>,
  version = '',
): Promise<FastifyReply> {
  const { body, etag } = await cache.getOrCompute(store, key, async () => reply.serialize(await payload()) as string, version);
  return reply.headers({ 'cache-control': 'private, no-cache', etag }).type('application/json; charset=utf-8').send(body);
}

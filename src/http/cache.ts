/**
 * Answers cached in memory by normalised request. The data only changes when a new dataset is
 * switched in, and a switch brings a new Store object: caches are kept per store (a WeakMap), so a
 * switch drops every cached answer without anyone having to remember to clear them.
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

export function answer(body: string): CachedAnswer {
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
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

export class ResponseCache {
  private readonly perStore = new WeakMap<Store, Lru>();

  constructor(private readonly limits: CacheLimits) {}

  get enabled(): boolean {
    return this.limits.maxEntries > 0 && this.limits.maxBytes > 0;
  }

  private lru(store: Store): Lru {
    let lru = this.perStore.get(store);
    if (!lru) {
      lru = new Lru(this.limits);
      this.perStore.set(store, lru);
    }
    return lru;
  }

  /** The serialised answer for `key` on this store's data, computed once. */
  async getOrCompute(store: Store, key: string, compute: () => Promise<string>): Promise<CachedAnswer> {
    if (!this.enabled) return answer(await compute());
    const lru = this.lru(store);
    const hit = lru.get(key);
    if (hit !== undefined) return hit;
    const computed = answer(await compute());
    lru.set(key, computed);
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
): Promise<FastifyReply> {
  const { body, etag } = await cache.getOrCompute(store, key, async () => reply.serialize(await payload()) as string);
  return reply.headers({ 'cache-control': 'private, no-cache', etag }).type('application/json; charset=utf-8').send(body);
}

/**
 * Answers cached in memory by normalised request. The data only changes when a new dataset is
 * loaded. A SQLite switch brings a new Store object, and caches are kept per store (a WeakMap), so it
 * drops every cached answer at once; a PostgreSQL load by another process keeps the store, and is
 * seen by the dataset hash each cache checks every two seconds.
 */
import * as crypto from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { Store } from '../store/store.js';

export interface CacheLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** Bodies from this size on go out compressed to a client that accepts it (src/app.ts). */
export const COMPRESS_THRESHOLD = 1024;

/** A serialised answer and the headers that depend on it alone, computed together once. */
export interface CachedAnswer {
  readonly body: string;
  readonly etag: string;
  readonly bytes: number;
  /** Set on the reply when Fastify sends the answer (it works out the length itself, compressed or not). */
  readonly headers: Readonly<Record<string, string>>;
  /** The same and the length, for an answer written directly (serveCached). */
  readonly direct: Readonly<Record<string, string>>;
}

/** SHA-1 in one call where Node has it (from 20.12), without a Hash object per answer; the same digest either way. */
const sha1: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha1', text, 'base64url') : (text) => crypto.createHash('sha1').update(text).digest('base64url');

const JSON_TYPE = 'application/json; charset=utf-8';

/** The entity tag names the dataset version too: the same body from another version is another answer (a 200, not a 304). */
export function answer(body: string, version = ''): CachedAnswer {
  const etag = `"${sha1(`${version}\n${body}`)}"`;
  const bytes = Buffer.byteLength(body);
  const length = String(bytes);
  // Written out whole, with or without the version: each is one object shape, built without a copy.
  if (version === '') {
    return {
      body,
      etag,
      bytes,
      headers: { 'cache-control': 'private, no-cache', etag, 'content-type': JSON_TYPE },
      direct: { 'cache-control': 'private, no-cache', etag, 'content-type': JSON_TYPE, 'content-length': length },
    };
  }
  return {
    body,
    etag,
    bytes,
    headers: { 'cache-control': 'private, no-cache', etag, 'content-type': JSON_TYPE, 'x-dataset-version': version },
    direct: { 'cache-control': 'private, no-cache', etag, 'content-type': JSON_TYPE, 'x-dataset-version': version, 'content-length': length },
  };
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
  /** The normalised key each request URL answered from the cache asked for: a repeated URL is not parsed again. */
  urls: Map<string, string>;
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
      entry = { lru: new Lru(this.limits), urls: new Map(), hash: undefined, checkedAt: Date.now(), checking: false };
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
        if (entry.hash !== undefined && hash !== entry.hash) {
          entry.lru = new Lru(this.limits);
          entry.urls = new Map();
        }
        entry.hash = hash;
      })
      .catch(() => undefined)
      .finally(() => {
        entry.checking = false;
      });
  }

  private current(store: Store): PerStore {
    const entry = this.entry(store);
    if (Date.now() - entry.checkedAt > REVALIDATE_MS) this.revalidate(store, entry);
    return entry;
  }

  /** The answer cached for a request URL seen before, without parsing it. */
  byUrl(store: Store, url: string): CachedAnswer | undefined {
    if (!this.enabled) return undefined;
    const entry = this.current(store);
    const key = entry.urls.get(url);
    return key === undefined ? undefined : entry.lru.get(key);
  }

  /** The serialised answer for `key` on this store's data, computed once; `url` finds it again (byUrl). */
  async getOrCompute(store: Store, question: string, compute: () => Promise<string>, url?: string, version = ''): Promise<CachedAnswer> {
    if (!this.enabled) return answer(await compute(), version);
    const entry = this.current(store);
    const lru = entry.lru;
    // The version is part of the key: a store shared by two versions in turn (PostgreSQL's main tables) never mixes them.
    const key = `${version}\n${question}`;
    const found = lru.get(key) ?? answer(await compute(), version);
    lru.set(key, found);
    if (url !== undefined && entry.lru === lru) this.remember(entry, url, key);
    return found;
  }

  private remember(entry: PerStore, url: string, key: string): void {
    if (entry.urls.size >= this.limits.maxEntries) {
      const oldest = entry.urls.keys().next();
      if (oldest.done !== true) entry.urls.delete(oldest.value);
    }
    entry.urls.set(url, key);
  }
}

/**
 * Whether an answer can be written at once, past the onSend hooks: a GET (HEAD keeps its own path),
 * not conditional (304 is the ETag plugin's), and not a body that would be compressed for this client.
 */
function writableAtOnce(request: FastifyRequest, found: CachedAnswer): boolean {
  const headers = request.headers;
  return request.method === 'GET' && headers['if-none-match'] === undefined && (found.bytes < COMPRESS_THRESHOLD || headers['accept-encoding'] === undefined);
}

/** One writeHead with the headers the hooks set and the answer's own, precomputed with it, and the body. */
function writeAtOnce(reply: FastifyReply, found: CachedAnswer): void {
  reply.raw.writeHead(200, Object.assign(reply.getHeaders(), found.direct) as OutgoingHttpHeaders);
  reply.raw.end(found.body);
}

/**
 * The onRequest hook of a cached GET route, after the guard: an answer already cached for the
 * request's URL is written at once, with its precomputed headers beside those the hooks before it
 * set (request id, security, rate limit, CORS), and the route's handler is never reached. Requests the
 * rest of the pipeline treats differently take the ordinary path: HEAD, a conditional request (304),
 * and a body that would be compressed for this client (docs/adr/0006-hot-path.md).
 */
export function serveCached(cache: ResponseCache, store: (request: FastifyRequest) => Store | undefined): onRequestHookHandler {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const served = request.method === 'GET' && request.headers['if-none-match'] === undefined ? store(request) : undefined;
    const found = served === undefined ? undefined : cache.byUrl(served, request.url);
    if (found !== undefined && writableAtOnce(request, found)) writeAtOnce(reply, found);
    done();
  };
}

/**
 * Answers a GET from the cache, computing and serialising the payload (through the route's response
 * schema) on a miss. Every cached route answers this way, with the same headers; an answer the
 * onSend hooks would leave as it is (writableAtOnce) is written at once, as serveCached writes it.
 */
export async function sendCached(
  reply: FastifyReply,
  cache: ResponseCache,
  store: Store,
  key: string,
  payload: () => Promise<unknown>,
  version = '',
): Promise<FastifyReply> {
  const found = await cache.getOrCompute(store, key, async () => reply.serialize(await payload()) as string, reply.request.url, version);
  if (writableAtOnce(reply.request, found)) {
    // Fastify sends nothing more for this reply; its onResponse hooks (log line, metrics) still run.
    reply.hijack();
    writeAtOnce(reply, found);
    return reply;
  }
  return reply.headers(found.headers).send(found.body);
}

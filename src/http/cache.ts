/**
 * Responses cached in memory by normalised parameters. The data only changes when a new dataset is
 * loaded. A SQLite switch brings a new Store object, and caches are kept per store (a WeakMap), so it
 * drops every cached response at once; a PostgreSQL load by another process keeps the store, and is
 * seen by the dataset hash each cache checks every two seconds.
 */
import * as crypto from 'node:crypto';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import type { IncomingHttpHeaders, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { Lru } from '../lru.js';
import type { CacheStats, Store } from '../store/store.js';

export interface CacheLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** Bodies from this size on go out compressed to a client that accepts it (src/app.ts). */
export const COMPRESS_THRESHOLD = 1024;

/**
 * A serialised response and the headers that depend on it alone, computed together once. The body is
 * kept as its UTF-8 bytes: written as a string, Node would join it to the header block and encode
 * the whole again on every response, which took a bare server from 38,000 to 18,000 answers a second
 * on an 8 KB body (docs/hot-path.md).
 */
export interface CachedResponse extends Written {
  readonly etag: string;
  readonly bytes: number;
  /** Set on the reply when Fastify sends the response (it works out the length itself, compressed or not). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body compressed in a coding a client asked for, made on the first such request and kept with the response. */
  readonly coded: { [coding in Coding]?: Written };
  /** The 304 to a client that holds this response already (If-None-Match): its headers, no body. */
  readonly unchanged: Written;
}

/** A status, a body as it is written and its own headers (names and values in turn), the length among them. */
export interface Written {
  readonly status: 200 | 304;
  readonly body: Buffer;
  readonly head: readonly string[];
}

const NO_BODY = Buffer.alloc(0);

/** The content codings of compressed responses, as the compression plugin is registered with them (src/app.ts). */
export const CODINGS: Coding[] = ['br', 'gzip'];
export type Coding = 'br' | 'gzip';

/** SHA-1 in one call where Node has it (from 20.12), without a Hash object per response; the same digest either way. */
const sha1: (bytes: Buffer) => string =
  typeof crypto.hash === 'function'
    ? (bytes) => crypto.hash('sha1', bytes, 'base64url')
    : (bytes) => crypto.createHash('sha1').update(bytes).digest('base64url');

const JSON_TYPE = 'application/json; charset=utf-8';
/** Kept by the client, asked again each time: a 304 when nothing changed. */
const CACHE_CONTROL = 'private, no-cache';

/** The entity tag names the dataset version too: the same body from another version is another response (a 200, not a 304). */
export function cachedResponse(text: string, version = '', kept = false): CachedResponse {
  // The version, a newline and the body encoded once: hashed whole, the body written. A response the
  // cache keeps gets memory of its own (a slice of Node's shared pool would keep the whole pool alive).
  const tagged = `${version}\n${text}`;
  let whole: Buffer;
  if (kept) {
    whole = Buffer.allocUnsafeSlow(Buffer.byteLength(tagged));
    whole.write(tagged);
  } else {
    whole = Buffer.from(tagged);
  }
  const etag = `"${sha1(whole)}"`;
  const body = whole.subarray(Buffer.byteLength(version) + 1);
  const bytes = body.length;
  const length = String(bytes);
  // The headers that depend on the response alone, once; the length last, as codedHead expects it.
  const own = ['cache-control', CACHE_CONTROL, 'etag', etag, 'content-type', JSON_TYPE];
  if (version !== '') own.push('x-dataset-version', version);
  const headers: Record<string, string> = {};
  for (let i = 0; i < own.length; i += 2) headers[own[i]!] = own[i + 1]!;
  return {
    status: 200,
    body,
    etag,
    bytes,
    headers,
    head: [...own, 'content-length', length],
    coded: {},
    unchanged: { status: 304, body: NO_BODY, head: [...own, 'content-length', '0'] },
  };
}

/** The memory a response holds: its body and the compressed bodies made of it. */
const held = (value: CachedResponse): number => value.bytes + (value.coded.br?.body.length ?? 0) + (value.coded.gzip?.body.length ?? 0);

/** The responses of one store: a quarter of the bytes at most for one response, so one large answer does not empty the cache. */
const responses = (limits: CacheLimits): Lru<CachedResponse> =>
  new Lru<CachedResponse>({ ...limits, weight: (key, value) => held(value) + key.length, maxEntryBytes: limits.maxBytes / 4 });

/**
 * What each request URL seen before named: a repeated URL is not parsed again. The oldest URLs are
 * forgotten past the cache's number of entries or a quarter of its bytes (URLs may be long: a path
 * parameter may have 16 KB); finding one does not make it recent.
 */
const urls = (limits: CacheLimits): Lru<Asked> =>
  new Lru<Asked>({ maxEntries: limits.maxEntries, maxBytes: limits.maxBytes / 4, weight: (url, asked) => url.length + asked.key.length });

/** How often a cache asks its store which dataset it holds: a load by another process (PostgreSQL) swaps no store. */
const REVALIDATE_MS = 2000;

/** What a request URL seen before named: its route, the version that responded and the cache key. */
interface Asked {
  readonly route: string;
  readonly version: string;
  readonly key: string;
}

/** A response found by its request URL, and the route template that made it (for the metrics and the log line). */
export interface Found {
  readonly response: CachedResponse;
  readonly route: string;
}

interface PerStore {
  lru: Lru<CachedResponse>;
  urls: Lru<Asked>;
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
      entry = { lru: responses(this.limits), urls: urls(this.limits), hash: undefined, checkedAt: Date.now(), checking: false };
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
          entry.lru = responses(this.limits);
          entry.urls.clear();
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

  /**
   * The response cached for a request URL seen before, without parsing it, when `version` made it:
   * the store of a PostgreSQL database serves each new version in turn.
   */
  byUrl(store: Store, url: string, version: string): Found | undefined {
    if (!this.enabled) return undefined;
    const entry = this.current(store);
    const asked = entry.urls.peek(url);
    if (asked === undefined || asked.version !== version) return undefined;
    const response = entry.lru.get(asked.key);
    return response === undefined ? undefined : { response, route: asked.route };
  }

  /**
   * The serialised response for the cache key `key` on this store's data as `version`, computed
   * once; `url` finds it again (byUrl), made by `route`.
   */
  async getOrCompute(
    store: Store,
    key: string,
    compute: () => Promise<string>,
    version = '',
    url?: { readonly url: string; readonly route: string },
  ): Promise<CachedResponse> {
    if (!this.enabled) return cachedResponse(await compute(), version);
    const entry = this.current(store);
    const lru = entry.lru;
    // The version is part of the key: a store shared by two versions in turn (PostgreSQL's main tables) never mixes them.
    const versioned = `${version}\n${key}`;
    const found = lru.get(versioned) ?? cachedResponse(await compute(), version, true);
    lru.set(versioned, found);
    if (url !== undefined && entry.lru === lru) entry.urls.set(url.url, { route: url.route, version, key: versioned });
    return found;
  }

  /**
   * The response under the cache key `key` compressed in `coding`, made once and kept with it (its
   * memory counted with the response's); compressed away from the event loop, with the compression plugin's settings.
   */
  async coded(store: Store, key: string, version: string, found: CachedResponse, coding: Coding): Promise<Written> {
    const kept = found.coded[coding];
    if (kept !== undefined) return kept;
    const body = await (coding === 'br' ? brotli(found.body, BROTLI) : gzip(found.body));
    const made = found.coded[coding];
    if (made !== undefined) return made;
    const written: Written = { status: 200, body, head: codedHead(found, coding, body.length) };
    found.coded[coding] = written;
    if (this.enabled) this.current(store).lru.grew(`${version}\n${key}`, found, body.length);
    return written;
  }

  /** What the cache of `store` holds, for /metrics: the responses and the URLs that find them. */
  stats(store: Store): Record<string, CacheStats> {
    const entry = this.perStore.get(store);
    const empty = { entries: 0, bytes: 0, maxEntries: this.limits.maxEntries, maxBytes: this.limits.maxBytes, evictions: 0 };
    if (entry === undefined) return { response_answers: empty, response_urls: { ...empty, maxBytes: this.limits.maxBytes / 4 } };
    return {
      response_answers: entry.lru.stats(),
      response_urls: entry.urls.stats(),
    };
  }
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** @fastify/compress's own choice for brotli: quality 4 of 11, fast at a ratio close to the best. */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

/** A compressed body's headers: the response's own but its length (the last of them), then its coding, `Vary` and its length. */
function codedHead(found: CachedResponse, coding: Coding, bytes: number): string[] {
  const head = found.head.slice(0, -2);
  head.push('vary', 'accept-encoding', 'content-encoding', coding, 'content-length', String(bytes));
  return head;
}

/** The codings chosen for the last Accept-Encoding values seen: clients send few distinct ones. */
const chosen = new Map<string, Coding | null>();

/**
 * The coding the compression plugin would send this response in to this client, by the plugin's own
 * rules (a body from COMPRESS_THRESHOLD bytes, `X-No-Compression` turning it off, `*` and `x-gzip`
 * read as gzip, the client's preferences among br and gzip); null for the body as it is.
 */
export function codingFor(headers: IncomingHttpHeaders, bytes: number): Coding | null {
  const accepted = headers['accept-encoding'];
  if (accepted === undefined || bytes < COMPRESS_THRESHOLD || headers['x-no-compression'] !== undefined) return null;
  let coding = chosen.get(accepted);
  if (coding === undefined) {
    coding = negotiate(accepted.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), CODINGS);
    if (chosen.size >= 64) chosen.clear();
    chosen.set(accepted, coding);
  }
  return coding;
}

/**
 * What a GET writes at once, past the onSend hooks, for this client: a 304 when it holds this response
 * already (If-None-Match), else the body or the compressed body kept with it; undefined when the
 * request takes the ordinary path (HEAD) or the compressed body is not made yet. If-None-Match is
 * compared as @fastify/etag compares it (the tag itself or its weak form), and the coding chosen as
 * @fastify/compress chooses it (`codingFor`): neither plugin exports those functions, so this module
 * holds their one definition, for both paths.
 */
export function writtenFor(method: string | undefined, headers: IncomingHttpHeaders, found: CachedResponse): Written | undefined {
  if (method !== 'GET') return undefined;
  const tag = headers['if-none-match'];
  if (tag !== undefined && (tag === found.etag || tag === `W/${found.etag}`)) return found.unchanged;
  const coding = codingFor(headers, found.bytes);
  return coding === null ? found : found.coded[coding];
}

/** One writeHead with the headers in `head` and the body's own, precomputed with it, and the body. */
export function writeResponse(response: ServerResponse, head: OutgoingHttpHeader[], written: Written): void {
  const own = written.head;
  for (let i = 0; i < own.length; i++) head.push(own[i]!);
  response.writeHead(written.status, head);
  response.end(written.body);
}

/**
 * Responds to a GET from the cache, computing the serialised body on a miss (`compute`: the route's
 * result through its response schema's serialiser, the one the fast path uses too). Every cached
 * route responds this way, with the same headers; a GET (not HEAD) is written at once, with one
 * writeHead, as the fast path writes the next one (src/http/fast-path.ts): a 304 to a client holding
 * the response, its body, or the body compressed for this client, made once and kept.
 * With the cache off, compression is left to the plugin.
 */
export async function sendCached(
  reply: FastifyReply,
  cache: ResponseCache,
  store: Store,
  key: string,
  compute: () => Promise<string>,
  version = '',
  byUrl = true,
): Promise<FastifyReply> {
  const request = reply.request;
  // The route template is worth asking Fastify for (it builds the route's options anew) only when the response is kept.
  // `byUrl` false: the URL alone does not name the parameters (it takes today's date), so it is not found again by it.
  const url = cache.enabled && byUrl ? { url: request.url, route: request.routeOptions.url ?? '' } : undefined;
  const found = await cache.getOrCompute(store, key, compute, version, url);
  let written = writtenFor(request.method, request.headers, found);
  if (written === undefined && cache.enabled && request.method === 'GET') {
    written = await cache.coded(store, key, version, found, codingFor(request.headers, found.bytes)!);
  }
  if (written === undefined) return reply.headers(found.headers).send(found.body);
  // Fastify sends nothing more for this reply; its onResponse hooks (log line, metrics) still run.
  reply.hijack();
  const head: OutgoingHttpHeader[] = [];
  // The response's own headers are its: the version the route named already is one of them.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined && found.headers[name] === undefined) head.push(name, value);
  writeResponse(reply.raw, head, written);
  return reply;
}

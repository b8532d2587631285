/**
 * The per-client rate limit: requests counted per user for a valid token, else per address, in a
 * fixed window that starts at a client's first request (the counting of @fastify/rate-limit's local
 * store, whose headers it keeps). A synchronous hook: a client reusing a token it was already
 * answered with is counted without a promise; only a token never seen is verified first
 * (docs/adr/0006-hot-path.md).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions, onRequestHookHandler } from 'fastify';
import type { TokenService } from '../auth/tokens.js';
import { refusal } from './errors.js';

export interface RateLimitOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly tokens: TokenService;
  /** Route templates never limited (probes, scrapers). */
  readonly exempt: ReadonlySet<string>;
  /** The clock windows are counted by (tests move it instead of waiting out a Retry-After). */
  readonly now?: () => Date;
}

interface Window {
  count: number;
  endsAt: number;
}

/**
 * The mark of a request the service makes of itself (an MCP tool asking its REST operation through
 * app.inject): a header whose value is a secret of this process, never sent out, so no client can
 * forge it. Such a request is not counted again: the /mcp request that made it was counted already.
 */
const INTERNAL_HEADER = 'x-tariff-lookup-internal';
const INTERNAL_MARK = randomBytes(24).toString('base64url');

/** The header that marks a request the service makes of itself (app.inject). */
export const INTERNAL_REQUEST: Readonly<Record<string, string>> = { [INTERNAL_HEADER]: INTERNAL_MARK };

/** Whether a request carries the mark: it is not counted again. */
export function madeByService(headers: IncomingHttpHeaders): boolean {
  return headers[INTERNAL_HEADER] === INTERNAL_MARK;
}

/** Clients tracked at most; past it the windows that have ended are dropped, then the oldest. */
const MAX_TRACKED = 10_000;

/** A visible ASCII character: not one that trim() removes (NaN past the end is not one). */
const printable = (code: number): boolean => code > 32 && code < 127;

/** The token of an `Authorization: Bearer <token>` header, or null; scheme case-insensitive. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  // As clients write it, with nothing around the token (ASCII at both ends): nothing to lower-case or trim.
  if (header.startsWith('Bearer ') && printable(header.charCodeAt(7)) && printable(header.charCodeAt(header.length - 1))) return header.slice(7);
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return null;
  const token = header.slice(space + 1).trim();
  return token === '' ? null : token;
}

const BEARER = Symbol('bearer');

/** A request's bearer token and what TokenService.known says of it (undefined: never verified). */
export interface Bearer {
  readonly token: string | null;
  readonly user: string | null | undefined;
}

/**
 * The request's bearer token and its user as far as already known, worked out once per request: the
 * rate limit and the guard both need it, and a token is long enough for a second look-up to show.
 */
export function bearerOf(request: FastifyRequest, tokens: TokenService): Bearer {
  const memo = request as unknown as { [BEARER]?: Bearer };
  let bearer = memo[BEARER];
  if (bearer === undefined || bearer.user === undefined) {
    const token = bearerToken(request.headers.authorization);
    bearer = { token, user: token === null ? null : tokens.known(token) };
    memo[BEARER] = bearer;
  }
  return bearer;
}

/** The values of the three RateLimit headers of an answer. */
export interface RateHeaders {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** The RateLimit headers of a count, names and values in turn: the one list both paths write. */
export const rateLimitHead = ({ limit, remaining, reset }: RateHeaders): string[] => [
  'ratelimit-limit',
  limit,
  'ratelimit-remaining',
  remaining,
  'ratelimit-reset',
  reset,
];

export class RateLimit {
  private readonly windows = new Map<string, Window>();
  private readonly limit: string;
  /** The client key of each user seen, made once: a key joined anew is joined and hashed again on every request. */
  private readonly userKeys = new Map<string, string>();

  /** The client a user counts as: the same key for the hook and the fast path. */
  userKey(username: string): string {
    let key = this.userKeys.get(username);
    if (key === undefined) {
      if (this.userKeys.size >= MAX_TRACKED) this.userKeys.clear();
      key = `user ${username}`;
      this.userKeys.set(username, key);
    }
    return key;
  }

  /** Milliseconds now, by the options' clock. */
  private readonly clock: () => number;

  constructor(private readonly options: RateLimitOptions) {
    this.limit = String(options.max);
    const now = options.now;
    this.clock = now === undefined ? Date.now : () => now().getTime();
  }

  /** The window `client` counts in now: a new one when it had none or its window has ended. */
  private window(client: string, now: number): Window {
    let w = this.windows.get(client);
    if (w === undefined || w.endsAt <= now) {
      if (w === undefined && this.windows.size >= MAX_TRACKED) this.sweep(now);
      w = { count: 0, endsAt: now + this.options.windowMs };
      this.windows.set(client, w);
    }
    return w;
  }

  private headers(w: Window, now: number): RateHeaders {
    const remaining = this.options.max - w.count;
    return { limit: this.limit, remaining: String(remaining > 0 ? remaining : 0), reset: String(Math.ceil((w.endsAt - now) / 1000)) };
  }

  /** Counts the request for `client`; sets the RateLimit headers, and throws 429 past the limit. */
  take(client: string, reply: FastifyReply, now = this.clock()): void {
    const w = this.window(client, now);
    w.count++;
    const counted = this.headers(w, now);
    const head = rateLimitHead(counted);
    for (let i = 0; i < head.length; i += 2) reply.header(head[i]!, head[i + 1]);
    if (w.count > this.options.max) {
      reply.header('retry-after', counted.reset);
      throw refusal('TOO_MANY_REQUESTS');
    }
  }

  /**
   * Counts `count` requests more of the user `username` in one go (the tool calls of one MCP request
   * beyond the request itself): all of them pass, or 429 with Retry-After and none is made.
   */
  charge(username: string, count: number, reply: FastifyReply, now = this.clock()): void {
    if (count <= 0) return;
    const w = this.window(this.userKey(username), now);
    if (w.count + count > this.options.max) {
      const counted = this.headers(w, now);
      reply.header('retry-after', counted.reset);
      throw refusal('TOO_MANY_REQUESTS');
    }
    w.count += count;
    const head = rateLimitHead(this.headers(w, now));
    for (let i = 0; i < head.length; i += 2) reply.header(head[i]!, head[i + 1]);
  }

  /**
   * Counts a request of `client` that is within the limit and gives its headers; a request past the
   * limit is not counted here (null), and takes the ordinary path, where `take` counts and refuses it.
   */
  admit(client: string, now = this.clock()): RateHeaders | null {
    const w = this.window(client, now);
    if (w.count >= this.options.max) return null;
    w.count++;
    return this.headers(w, now);
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_TRACKED) break;
      this.windows.delete(key);
    }
  }

  /** The onRequest hook: synchronous unless the request carries a token never verified. */
  readonly hook: onRequestHookHandler = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (madeByService(request.headers)) {
      done();
      return;
    }
    const { token, user } = bearerOf(request, this.options.tokens);
    if (user !== undefined || token === null) {
      this.count(request, reply, user ?? null, done);
      return;
    }
    this.options.tokens.verify(token).then((verified) => this.count(request, reply, verified, done), done);
  };

  private count(request: FastifyRequest, reply: FastifyReply, user: string | null, done: HookHandlerDoneFunction): void {
    try {
      this.take(user === null ? `address ${normalizeIP(request.ip)}` : this.userKey(user), reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  }
}

/** Puts a hook before the route's own onRequest hooks (from an onRoute hook, once per route). */
export function runFirst(route: RouteOptions, hook: onRequestHookHandler): void {
  const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [hook, ...own];
}

/**
 * Attaches the limit to every route as it is registered (so no request looks up its route to learn
 * whether it is exempt), and to requests no route matches.
 */
export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): RateLimit {
  const limit = new RateLimit(options);
  app.addHook('onRoute', (route) => {
    if (!options.exempt.has(route.url ?? '')) runFirst(route, limit.hook);
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) limit.hook.call(app, request, reply, done);
    else done();
  });
  return limit;
}

/**
 * Login, /auth/me and the bearer-token check that protects every business route (contract,
 * "Authentication"). The check is one onRequest hook, attached to each protected route.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import { decoyHash, verifyPassword } from '../auth/passwords.js';
import type { LoginThrottle } from '../auth/throttle.js';
import type { TokenService } from '../auth/tokens.js';
import type { Store, User } from '../store/store.js';
import type { ValidationDetail, HttpError } from './errors.js';
import { RequestValidationError, refusal } from './errors.js';
import { bearerOf, bearerToken } from './rate-limit.js';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';
import { nullableText } from './schemas.js';

const BEARER = { 'www-authenticate': 'Bearer' } as const;
const notAuthenticated = (): HttpError => refusal('NOT_AUTHENTICATED', {}, BEARER);
const invalidCredentials = (): HttpError => refusal('INVALID_CREDENTIALS', {}, BEARER);

/** Longer than any username or password worth checking; refused like any wrong credential. */
const MAX_USERNAME = 150;
const MAX_PASSWORD = 1024;

declare module 'fastify' {
  interface FastifyRequest {
    user?: User;
  }
}

export interface LoginContext {
  readonly store: () => Store;
  readonly tokens: TokenService;
  readonly throttle: LoginThrottle;
}

/** What protects the business routes: their onRequest hook, and the same check without a request for the fast path. */
export interface BearerGuard {
  readonly hook: onRequestHookHandler;
  /**
   * The user an `Authorization` header admits when that is known without waiting: a token verified
   * before, a user remembered, enabled. Null for anything else, which the hook decides (src/http/fast-path.ts).
   */
  admitted(authorization: string | undefined, now?: number): User | null;
}

/**
 * The onRequest hook of every protected route. The user's state (exists, enabled) is remembered for
 * `userCacheMs` so that a client reusing its token does not cost a store query per request; a user
 * disabled or removed loses access within that time (0: checked on every request). A request with a
 * token verified before and a user remembered passes synchronously, without a promise; the rest wait
 * for the signature check or the store (docs/adr/0006-hot-path.md). A token naming `internal` admits
 * that user without asking the store: the identity of an app built in-process and never listening,
 * whose tokens only its own process can sign (src/cli/mcp.ts).
 */
export function bearerGuard(store: () => Store, tokens: TokenService, userCacheMs: number, internal?: User): BearerGuard {
  const known = new Map<string, { user: User | undefined; until: number }>();
  const remembered = (username: string, now = Date.now()): User | undefined | null => {
    if (userCacheMs <= 0) return null;
    const hit = known.get(username);
    return hit && hit.until > now ? hit.user : null;
  };
  const findUser = async (username: string): Promise<User | undefined> => {
    // The in-process caller of an app that never listens (tariff-lookup mcp): no row in the store.
    if (internal !== undefined && username === internal.username) return internal;
    const user = await store().findUser(username);
    if (userCacheMs <= 0) return user;
    if (known.size >= 10_000) known.clear();
    known.set(username, { user, until: Date.now() + userCacheMs });
    return user;
  };
  /**
   * Whether the token was issued before the user was created: it was a removed user's of the same name
   * (an account is never reused: src/store/accounts.ts), so it admits no one.
   */
  const earlier = (token: string, user: User): boolean => {
    const issued = tokens.issuedAt(token);
    const created = Date.parse(user.createdAt);
    return issued !== undefined && Number.isFinite(created) && issued < Math.floor(created / 1000);
  };
  const admit = (request: FastifyRequest, user: User | undefined, token: string): void => {
    if (!user || user.disabled || earlier(token, user)) throw invalidCredentials();
    request.user = user;
  };
  const slowly = async (request: FastifyRequest, token: string): Promise<void> => {
    const username = await tokens.verify(token);
    if (username === null) throw invalidCredentials();
    const user = remembered(username);
    admit(request, user === null ? await findUser(username) : user, token);
  };
  const hook = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const { token, user: username } = bearerOf(request, tokens);
    if (token === null) {
      done(notAuthenticated());
      return;
    }
    const user = username === undefined || username === null ? null : remembered(username);
    if (username === null) {
      done(invalidCredentials());
      return;
    }
    if (user === null) {
      slowly(request, token).then(() => done(), done);
      return;
    }
    try {
      admit(request, user, token);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
  const admitted = (authorization: string | undefined, now = Date.now()): User | null => {
    const token = bearerToken(authorization);
    if (token === null) return null;
    const username = tokens.known(token, now);
    const user = username === null || username === undefined ? null : remembered(username, now);
    return user && !user.disabled && !earlier(token, user) ? user : null;
  };
  return { hook, admitted };
}

/** The login body: the document's request body and the type the check gives. */
const LoginRequest = Type.Object(
  { username: Type.String({ title: 'Username' }), password: Type.String({ title: 'Password', format: 'password' }) },
  { title: 'LoginRequest', examples: [{ username: 'broker', password: 'correct horse battery staple' }] },
);
type LoginRequest = Static<typeof LoginRequest>;

/** The token a login answers with. */
const Token = Type.Object({ access_token: Type.String(), token_type: Type.String(), expires_in: Type.Integer() }, { title: 'Token' });

/** The user `GET /api/v1/auth/me` answers with. */
const UserAnswer = Type.Object(
  {
    username: Type.String(),
    full_name: nullableText(),
    email: nullableText(),
    disabled: Type.Boolean(),
  },
  { title: 'User' },
);

/**
 * The login body as FastAPI validates a Pydantic model: every problem listed, in Pydantic's words,
 * each repeating the whole body as its input, and no body a `missing` one (the schema's check,
 * src/http/typed.ts, names a large input instead of repeating it: the original's 422s here repeat it).
 * The login route's refinement of its schema (src/http/contract.ts).
 */
function parseLoginBody(body: unknown): LoginRequest {
  if (body === undefined || body === null || body === '') {
    throw new RequestValidationError([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new RequestValidationError([
      { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: body },
    ]);
  }
  const record = new Map<string, unknown>(Object.entries(body));
  const errors: ValidationDetail[] = [];
  for (const name of Object.keys(LoginRequest.properties)) {
    const value = record.get(name);
    if (value === undefined) errors.push({ type: 'missing', loc: ['body', name], msg: 'Field required', input: body });
    else if (typeof value !== 'string') errors.push({ type: 'string_type', loc: ['body', name], msg: 'Input should be a valid string', input: value });
  }
  const username = record.get('username');
  const password = record.get('password');
  if (errors.length > 0 || typeof username !== 'string' || typeof password !== 'string') throw new RequestValidationError(errors);
  return { username, password };
}

const loginParts = { body: { schema: LoginRequest, read: parseLoginBody } };

async function checkCredentials(store: Store, username: string, password: string): Promise<User | null> {
  const plausible = username.length <= MAX_USERNAME && password.length <= MAX_PASSWORD;
  const user = plausible ? await store.findUser(username) : undefined;
  // The same scrypt work whether or not the user exists, so timing tells nothing.
  const matches = await verifyPassword(password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await decoyHash()));
  return user && matches && !user.disabled ? user : null;
}

/** `application/<anything>+json`, with or without parameters: JSON to FastAPI, as `application/json` is. */
const STRUCTURED_JSON = /^\s*application\/[^;\s]+\+json\s*(;|$)/i;

/**
 * Bodies as FastAPI reads them (fastapi/routing.py): JSON when the request names no Content-Type or an
 * `application/*+json` one (`application/json` with any charset is Fastify's own JSON parser), and an
 * empty body is no body; any other body reaches the route's validation as text, and is refused there
 * with a 422.
 */
export function acceptAnyBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const type = request.headers['content-type'];
    const json = type === undefined || type.trim() === '' || STRUCTURED_JSON.test(type);
    if (!json) return done(null, body);
    if (body === '') return done(null, undefined);
    void parseJson(request, String(body), done);
  });
}

export function loginRoute(ctx: LoginContext): OpenRoute<Checked<typeof loginParts>> {
  return typed(loginParts, {
    schema: {
      operationId: 'login',
      summary: 'Exchange a username and password for a bearer access token',
      description:
        'A bearer access token (a signed JWT) for a username and password, valid for `expires_in` seconds; send it as ' +
        '`Authorization: Bearer <access_token>` to every business operation. Wrong credentials give 401; repeated failures for a ' +
        'username or from an address give 429 with Retry-After, even with the right password, until the wait is over.',
      tags: ['auth'],
      response: {
        200: { description: 'Successful Response', ...Token },
        401: { description: 'Incorrect username or password', $ref: 'ErrorMessage#' },
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
        429: { description: 'Too many failed attempts for this username or address; see Retry-After', $ref: 'ErrorMessage#' },
      },
    },
    handler: async (request, reply) => {
      const { username, password } = request.body;
      const wait = ctx.throttle.retryAfter(username, request.ip);
      if (wait > 0) {
        throw refusal('LOGIN_THROTTLED', {}, { 'retry-after': String(wait) });
      }
      const user = await checkCredentials(ctx.store(), username, password);
      if (!user) {
        ctx.throttle.fail(username, request.ip);
        request.log.info({ event: 'login_failed' }, 'login failed');
        throw refusal('LOGIN_FAILED', {}, BEARER);
      }
      ctx.throttle.succeed(username);
      request.log.info({ event: 'login', user: user.username }, 'login');
      const token: Static<typeof Token> = await ctx.tokens.issue(user.username);
      return reply.header('cache-control', 'no-store').send(token);
    },
  });
}

/** The user the bearer token names, behind the same guard as the business routes. */
export function meRoute(protect: onRequestHookHandler): OpenRoute {
  return {
    onRequest: protect,
    schema: {
      operationId: 'me',
      summary: 'The user the token was issued to',
      description: 'The user the bearer token names: username, full name, email and whether the account is disabled.',
      tags: ['auth'],
      security: [{ HTTPBearer: [] }],
      response: {
        200: { description: 'Successful Response', ...UserAnswer },
      },
    },
    handler: (request): Static<typeof UserAnswer> => {
      const user = request.user!;
      return { username: user.username, full_name: user.fullName, email: user.email, disabled: user.disabled };
    },
  };
}

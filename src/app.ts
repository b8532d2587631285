/**
 * buildApp: the whole service from a configuration, without reading the environment and without
 * listening (server.ts does both). Tests build it with their own configuration and database file.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { LoginThrottle } from './auth/throttle.js';
import { TokenService } from './auth/tokens.js';
import type { Config } from './config.js';
import { ConfigError, trustProxy } from './config.js';
import { bearerGuard, registerAuthRoutes } from './http/auth.js';
import { ResponseCache } from './http/cache.js';
import type { LogOutput } from './http/logging.js';
import { loggerOptions } from './http/logging.js';
import { registerBuscar } from './http/buscar.js';
import { registerConsulta } from './http/consulta.js';
import { registerFicha } from './http/ficha.js';
import { registerNomenclatura } from './http/nomenclatura.js';
import { registerObservability } from './http/observe.js';
import { registerErrorHandling } from './http/errors.js';
import { DOCS_CSP, connectionLimits, registerProtection } from './http/protection.js';
import { API_VERSION, SERVICE_NAME, registerPublicRoutes } from './http/public.js';
import { CORS_PREFLIGHT, registerRecordRoutes, routeWithAllow } from './http/routes.js';
import { errorMessageSchema, httpValidationErrorSchema, pageSchema, recordSchema, validationErrorSchema } from './http/schemas.js';
import { recordSets } from './record-sets/index.js';
import { openStore } from './store/open.js';
import { MissingSqliteFile } from './store/missing.js';
import { SqliteStore } from './store/sqlite.js';
import type { Store } from './store/store.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** How often the served SQLite file is checked for a replacement by `import`; SIGHUP reloads at once. */
const RELOAD_CHECK_MS = 2000;
/** How long a replaced store stays open for the requests that began on it (they need milliseconds). */
const RETIRE_AFTER_MS = 5000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Opens the served SQLite file anew and serves it from now on; false when the store is not a file the app opened. */
    reloadStore(reason: string): Promise<boolean>;
  }
}

export interface AppOptions {
  /** A store to serve instead of the one the configuration names (tests, the benchmark). */
  store?: Store;
  logger?: boolean;
  /** Readable lines or JSON, and where they go (serve.ts decides; tests capture them). */
  log?: LogOutput;
}

function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Outside the embedded demo the secret is the operator's own; server.ts fills in the demo's. */
export const MIN_SECRET_BYTES = 32;

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  if (Buffer.byteLength(config.JWT_SECRET) < MIN_SECRET_BYTES) {
    throw new ConfigError(`JWT_SECRET must be set to a secret of at least ${MIN_SECRET_BYTES} bytes (e.g. the output of: openssl rand -hex 32)`);
  }
  const tokens = new TokenService({
    secret: config.JWT_SECRET,
    algorithm: config.JWT_ALGORITHM,
    lifetimeSeconds: config.ACCESS_TOKEN_EXPIRE_MINUTES * 60,
  });
  const throttle = new LoginThrottle({
    maxPerUsername: config.LOGIN_MAX_FAILURES,
    maxPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowMs: config.LOGIN_WINDOW_MINUTES * 60_000,
  });
  let store: Store = options.store ?? openStore(config);
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.LOG_LEVEL, options.log),
    genReqId: requestId,
    trustProxy: trustProxy(config),
    ...connectionLimits(config),
    // One line per request, written when it is answered (src/http/observe.ts), instead of two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024,
    // While closing, requests on open connections are still answered (with Connection: close), not refused.
    return503OnClosing: false,
    // Long path parameters reach the handler and get the same 422 as any other bad value.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 16384 },
    frameworkErrors: (_error, _request, reply) => {
      void (reply as unknown as FastifyReply).code(400).type('application/json; charset=utf-8').send({ detail: 'Bad Request' });
    },
  });
  // Parameters are parsed by the routes themselves, with the original's rules and error shapes.
  app.setValidatorCompiler(() => () => true);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onClose', async () => {
    await store.close();
  });
  registerErrorHandling(app);
  await registerProtection(app, { config, tokens });

  for (const schema of [validationErrorSchema, httpValidationErrorSchema, errorMessageSchema]) app.addSchema(schema);
  for (const rs of recordSets) {
    app.addSchema(recordSchema(rs));
    if (rs.paginated) app.addSchema(pageSchema(rs));
  }

  // Every GET answer carries an ETag (a hash of its body) and If-None-Match gives 304; bodies worth it go out compressed.
  await app.register(etag);
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024 });
  if (config.CORS_ORIGINS !== '') {
    await app.register(cors, { origin: config.CORS_ORIGINS.split(',').map((o) => o.trim()), methods: ['GET', 'HEAD', 'POST'] });
    app.decorate(CORS_PREFLIGHT, true);
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: SERVICE_NAME,
        version: API_VERSION,
        description:
          'What applies to a Mexican tariff fraction: duties, trade-agreement and ALADI preferences, quotas, compensatory duties, PROSEC, permits, regulations, NOMs, IEPS, estimated prices, vehicles, US equivalents and replaced fractions.',
      },
      components: { securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' } } },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { persistAuthorization: true }, staticCSP: DOCS_CSP });

  const current = (): Store => store;
  serveReplacedFiles(app, {
    current,
    swap: (next) => {
      store = next;
    },
    reloadable: options.store === undefined,
  });
  const cache = new ResponseCache({ maxEntries: config.RESPONSE_CACHE_ENTRIES, maxBytes: config.RESPONSE_CACHE_MB * 1024 * 1024 });
  const protect = bearerGuard(current, tokens, config.AUTH_USER_CACHE_SECONDS * 1000);
  const timer = registerObservability(app, { enabled: config.METRICS_ENABLED, token: config.METRICS_TOKEN, store: current, recordSets });
  registerRecordRoutes(app, { store: current, protect, cache, timer });
  registerAuthRoutes(app, { store: current, tokens, throttle, protect, routeWithAllow });
  registerFicha(app, { recordSets, store: current, protect, cache });
  registerBuscar(app, { store: current, protect, cache });
  registerPublicRoutes(app, { store: current, routeWithAllow });
  registerNomenclatura(app, { recordSets, store: current, protect, cache });
  registerConsulta(app, { routeWithAllow });
  return app;
}

/** Why the served SQLite file should be opened anew, or null when it should not. */
function reopenReason(open: Store): string | null {
  if (open instanceof MissingSqliteFile) return existsSync(open.path) ? 'a file is at the path again' : null;
  if (!(open instanceof SqliteStore)) return null;
  if (open.replaced()) return 'another file at the path';
  return open.damaged ? 'reads failed on the file' : null;
}

interface StoreSlot {
  readonly current: () => Store;
  readonly swap: (next: Store) => void;
  /** Only a store the app opened itself is reopened (and closed); an injected one belongs to its caller. */
  readonly reloadable: boolean;
}

/**
 * `import` renames a new SQLite file over the served one. The routes read the store through
 * `current()`, so switching is one assignment: requests already running finish on the old store, which
 * is closed a few seconds later, and no request fails. The switch happens on `reloadStore()` (SIGHUP)
 * or when a cheap periodic check sees another file at the path (docs/adr/0002-import-and-reload.md).
 * The same check sees the file gone from the path, and back (src/store/missing.ts).
 */
function serveReplacedFiles(app: FastifyInstance, slot: StoreSlot): void {
  const retiring = new Map<Store, NodeJS.Timeout>();
  let lastFailure = '';
  const switchTo = (next: Store): void => {
    const previous = slot.current();
    slot.swap(next);
    const timer = setTimeout(() => {
      retiring.delete(previous);
      void previous.close();
    }, RETIRE_AFTER_MS).unref();
    retiring.set(previous, timer);
  };
  const reloadStore = async (reason: string): Promise<boolean> => {
    const open = slot.current();
    if (!slot.reloadable || !(open instanceof SqliteStore || open instanceof MissingSqliteFile)) return false;
    const next = new SqliteStore(open.path);
    // A file that cannot answer is not switched to: the service keeps serving the one it has.
    const info = await next.dataset().catch(async (error: unknown) => {
      await next.close();
      throw error;
    });
    switchTo(next);
    lastFailure = '';
    app.log.info({ reason, source: info?.source, imported_at: info?.importedAt, hash: info?.hash }, 'serving the SQLite file anew');
    return true;
  };
  app.decorate('reloadStore', reloadStore);
  const check = setInterval(() => {
    const open = slot.current();
    if (!slot.reloadable) return;
    if (open instanceof SqliteStore && !existsSync(open.path)) {
      switchTo(new MissingSqliteFile(open.path));
      app.log.error({ path: open.path }, 'the SQLite file is gone from its path: answering 503 until a file is there again');
      return;
    }
    const reason = reopenReason(open);
    if (reason === null) return;
    reloadStore(reason).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== lastFailure) app.log.error({ err: error }, 'the new SQLite file cannot be served; still serving the previous one');
      lastFailure = message;
    });
  }, RELOAD_CHECK_MS).unref();
  app.addHook('onClose', async () => {
    clearInterval(check);
    for (const [store, timer] of retiring) {
      clearTimeout(timer);
      await store.close();
    }
  });
}

/**
 * buildApp: the whole service from a configuration, without reading the environment and without
 * listening (server.ts does both). Tests build it with their own configuration and database file.
 */
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import swagger from '@fastify/swagger';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { loadTables } from './contribuciones/tables.js';
import { LineChecker, sliceResult } from './lotes/answer.js';
import { LotesTables } from './lotes/tables.js';
import { ThreadChecker } from './lotes/threaded.js';
import type { CheckSlice } from './lotes/worker.js';
import { LotesWorker } from './lotes/worker.js';
import { newestImport } from './store/versions.js';
import { openWorkDb } from './store/work.js';
import { LoginThrottle } from './auth/throttle.js';
import { TokenService } from './auth/tokens.js';
import type { Config } from './config.js';
import { ConfigError, lotesThreads, trustProxy } from './config-values.js';
import { bearerGuard } from './http/auth.js';
import { COMPRESS_THRESHOLD, ResponseCache } from './http/cache.js';
import type { LogOutput } from './http/logging.js';
import { loggerOptions, requestLogger } from './http/logging.js';
import { registerObservability, requestIds } from './http/observe.js';
import { buildValidator } from './http/contract.js';
import { registerErrorHandling } from './http/errors.js';
import { DirectRoutes, FastPath } from './http/fast-path.js';
import { clientErrorHandler, closeSilentConnections, connectionLimits, frameworkError, registerProtection } from './http/protection.js';
import { openapiOptions } from './http/openapi.js';
import { CORS_PREFLIGHT } from './http/route-kinds.js';
import { registerRoutes } from './http/routes.js';
import { WEBHOOKS } from './http/vigilancias-schemas.js';
import { sharedSchemaBucket, sharedSerializers } from './http/serializers.js';
import { startVigilancias } from './vigilancias/service.js';
import { recordSets } from './record-sets/index.js';
import { Datasets } from './store/datasets.js';
import { MainStore } from './store/main-store.js';
import type { Store, User } from './store/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Opens the main store anew and serves it from now on (SIGHUP); false when there is nothing to reopen. */
    reloadStore(reason: string): Promise<boolean>;
  }
}

export interface AppOptions {
  /** A store to serve instead of the one the configuration names (tests, the benchmark). */
  store?: Store;
  logger?: boolean;
  /** Readable lines or JSON, and where they go (serve.ts decides; tests capture them). */
  log?: LogOutput;
  /** The clock that decides which version is in force today (tests move it instead of waiting for a day). */
  now?: () => Date;
  /** Whether this app works batches (default true); tests of a batch's queued state turn it off. */
  lotesWorker?: boolean;
  /** Told of every route as the framework registers it, plugins' included (the OpenAPI coverage test). */
  onRoute?: (route: RouteOptions) => void;
  /**
   * A user admitted by a valid token without being in the store: the identity the app's own process
   * asks it as (`tariff-lookup mcp`, which never listens and signs with a secret of its own).
   */
  internalUser?: User;
}

/** Outside the embedded demo the secret is the operator's own; server.ts fills in the demo's. */
export const MIN_SECRET_BYTES = 32;

/** Fastify's router options, which the fast path's router takes too. Long path parameters reach the handler and get the same 422 as any other bad value. */
const ROUTER_OPTIONS = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 16384 };

/**
 * The batches' tables (in the working tables of ADR 10) and their worker, over the versions the service
 * serves. Lines are answered in worker threads (LOTES_HILOS) with stores of their own
 * (docs/adr/0011-lotes.md): on SQLite its reads are synchronous, and on either store a search is planned
 * and ranked in the service's memory (issue 44), work that would hold lookups back in the main thread,
 * and whose memo would grow the main heap. When the app was given a store object (a test's or a
 * benchmark's), on that store itself.
 */
function lotesParts(
  config: Config,
  datasets: Datasets,
  log: FastifyBaseLogger,
  options: AppOptions,
  owners: () => Store,
): { tables: LotesTables; worker: LotesWorker; close: () => Promise<void> } {
  const tables = new LotesTables(openWorkDb(config));
  let check: CheckSlice;
  let close = (): Promise<void> => Promise.resolve();
  if (options.store) {
    const checker = new LineChecker(recordSets, loadTables());
    check = async (_version, store, parameters, lines) => (await checker.check(store, parameters, lines)).map(sliceResult);
  } else {
    const thread = new ThreadChecker(config, lotesThreads(config));
    check = (version, _store, parameters, lines) => {
      const info = version === null ? null : (datasets.find(version) ?? null);
      return thread.check(info, info === null || info.version === newestImport(datasets.versions())?.version, parameters, lines);
    };
    close = () => thread.close();
  }
  const worker = new LotesWorker({
    tables,
    versions: datasets,
    check,
    log,
    retentionDays: config.LOTES_RETENCION_DIAS,
    leaseMs: config.LOTES_LEASE_S * 1000,
    owners: (usuario) => owners().findUser(usuario),
    ...(options.now && { now: options.now }),
  });
  return { tables, worker, close };
}

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
  const requestId = requestIds();
  const fastPath = new FastPath();
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.LOG_LEVEL, options.log),
    genReqId: requestId,
    serverFactory: fastPath.serverFactory,
    trustProxy: trustProxy(config),
    ...connectionLimits(config),
    // One line per request, written when it is answered (src/http/observe.ts), instead of two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    bodyLimit: 16 * 1024,
    // A plugin that opens the store or builds the OpenAPI document may take longer than Fastify's 10 s on
    // a busy machine; start is still bounded, so a plugin that never loads is still an error.
    pluginTimeout: 120_000,
    // While closing, requests on open connections are still answered (with Connection: close), not refused.
    return503OnClosing: false,
    routerOptions: ROUTER_OPTIONS,
    // Errors before routing, in the contract's shape with the request id and security headers (src/http/protection.ts).
    frameworkErrors: (error, request, reply) => frameworkError(error, request as FastifyRequest, reply as unknown as FastifyReply),
    clientErrorHandler: clientErrorHandler(() => requestId({ headers: {} })),
    // Each route's declared parts are checked by their TypeBox schemas, in the contract's error shapes
    // (src/http/contract.ts). Given to every scope, plugins' included, as setValidatorCompiler on the root is not.
    schemaController: { bucket: sharedSchemaBucket, compilersFactory: { buildValidator, buildSerializer: sharedSerializers } },
  });
  closeSilentConnections(app);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // The fast path finds the routes it responds to in a router of its own, holding every GET route as Fastify's does.
  const routes = new DirectRoutes(ROUTER_OPTIONS);
  app.addHook('onRoute', routes.onRoute);
  const mainStore = new MainStore(config, app.log, options.store);
  app.decorate('reloadStore', (reason: string) => mainStore.reload(reason));
  const datasets = new Datasets(config, mainStore, app.log, options.now);
  await datasets.refresh();
  // Watch lists, their events and deliveries; a watch list is made only once the versions already there are claimed (src/vigilancias/).
  const vigilancias = startVigilancias(config, datasets, app.log, (usuario) => mainStore.current().findUser(usuario));
  app.addHook('onClose', async () => {
    await vigilancias.close();
    await datasets.close();
    await mainStore.close();
  });
  registerErrorHandling(app);
  const protection = await registerProtection(app, { config, tokens, ...(options.now && { now: options.now }) });

  // Every GET answer carries an ETag (a hash of its body) and If-None-Match gives 304; bodies worth it go out compressed.
  await app.register(etag);
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: COMPRESS_THRESHOLD });
  if (config.CORS_ORIGINS !== '') {
    await app.register(cors, { origin: config.CORS_ORIGINS.split(',').map((o) => o.trim()), methods: ['GET', 'HEAD', 'POST'] });
    app.decorate(CORS_PREFLIGHT, true);
  }

  const current = mainStore.current;
  const guard = bearerGuard(current, tokens, config.AUTH_USER_CACHE_SECONDS * 1000, options.internalUser);
  // The document's common parts come from what each route is: its guard, its limit, its parameters (src/http/openapi.ts).
  await app.register(swagger, openapiOptions({ recordSets, protect: guard.hook, webhooks: WEBHOOKS }));

  const cache = new ResponseCache({ maxEntries: config.RESPONSE_CACHE_ENTRIES, maxBytes: config.RESPONSE_CACHE_MB * 1024 * 1024 });
  const caches = () => ({ ...cache.stats(current()), ...(current().caches?.() ?? {}) });
  const observability = registerObservability(app, { enabled: config.METRICS_ENABLED, token: config.METRICS_TOKEN, store: current, recordSets, caches });
  const lotes = lotesParts(config, datasets, app.log, options, current);
  await registerRoutes(app, {
    store: current,
    datasets,
    tokens,
    throttle,
    protect: guard.hook,
    cache,
    observability,
    vigilancias,
    rateLimit: protection.rateLimit,
    lotes: {
      tables: lotes.tables,
      worker: options.lotesWorker === false ? undefined : lotes.worker,
      perUser: config.LOTES_POR_USUARIO,
      now: options.now ?? (() => new Date()),
    },
  });
  // The batches' worker runs while the app serves: started once it is ready, stopped (its slice committed) before the stores close.
  // Its tables are made on first use (a database down at start delays batches, never the service's start).
  app.addHook('onReady', () => {
    if (options.lotesWorker !== false) lotes.worker.start();
    return Promise.resolve();
  });
  app.addHook('preClose', async () => {
    await lotes.worker.stop();
    await lotes.close();
  });
  app.addHook('onClose', async () => {
    await lotes.tables.db.close();
  });
  // Cached responses and lookups are written before Fastify sees the request, with the same parts (src/http/fast-path.ts).
  fastPath.open({ ...protection, cache, datasets, guard, requestId, answered: observability.answered, cors: config.CORS_ORIGINS !== '', routes });
  app.addHook('preClose', (done) => {
    fastPath.close();
    done();
  });
  return app;
}

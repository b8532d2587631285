/**
 * The routing table: every operation the service serves, in one place, by method and path, with the
 * route behind it (its schema and handler; route-kinds.ts for the kinds). Record-set URLs come from the
 * registry; everything else is written here, batches, MCP and watch lists included. Every path's other
 * methods get one 405 naming those it serves (`Operations.allow`, the one place that makes them). A
 * new operation is one line below; test/routing.test.ts holds every route the framework registers
 * against the OpenAPI document.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, RouteGenericInterface, onRequestHookHandler } from 'fastify';
import type { LoginThrottle } from '../auth/throttle.js';
import type { TokenService } from '../auth/tokens.js';
import { recordSets, registry } from '../record-sets/index.js';
import type { Datasets } from '../store/datasets.js';
import type { Store } from '../store/store.js';
import { acceptAnyBody, loginRoute, meRoute } from './auth.js';
import { buscarRoute, sugerenciasRoute } from './buscar.js';
import { consultaFiles, consultaHome, consultaPages } from './consulta.js';
import type { ResponseCache } from './cache.js';
import { contribucionesRoute } from './contribuciones.js';
import { fichaRoute } from './ficha.js';
import { tiposCambioRoute } from './tipos-cambio.js';
import { evaluarOrigenRoute, reglasOrigenRoute } from './reglas-origen.js';
import { MCP_PATH, mcpBodies, mcpRoute } from './mcp.js';
import type { RateLimit } from './rate-limit.js';
import type { LotesContext } from './lotes.js';
import { lotesBodies, lotesRoutes, registerLotesSchemas } from './lotes.js';
import { nomenclaturaLevelRoute, nomenclaturaRoute } from './nomenclatura.js';
import type { Observability } from './observe.js';
import { DOCS_CSP, DOCS_PREFIX } from './protection.js';
import { healthRoute, openapiRoute, rootRoute } from './public.js';
import { cambiosRoute } from './cambios.js';
import { refusal } from './errors.js';
import { descargasRoute } from './descargas.js';
import { versionRoute, versionesRoute } from './versiones.js';
import { recordGet, recordRoutes } from './records.js';
import { VIGILANCIAS_PATH, registerVigilanciasSchemas, vigilanciasRoutes } from './vigilancias.js';
import type { VigilanciasService } from '../vigilancias/service.js';
import type { OpenRoute, ProtectedGet } from './route-kinds.js';
import { Operations, protectedGet, scoped } from './route-kinds.js';
import { errorMessageSchema, httpValidationErrorSchema, pageSchema, recordSchema, validationErrorSchema } from './schemas.js';

/** What the routes are built from; app.ts makes each once. */
export interface Services {
  readonly store: () => Store;
  /** Which version answers a business call (src/store/datasets.ts). */
  readonly datasets: Datasets;
  readonly tokens: TokenService;
  readonly throttle: LoginThrottle;
  /** The hook that protects a route; one place decides what protection means. */
  readonly protect: onRequestHookHandler;
  readonly cache: ResponseCache;
  readonly observability: Observability;
  /** Watch lists and their webhooks (src/vigilancias/). */
  readonly vigilancias: VigilanciasService;
  /** The per-client rate limit (null when off): MCP counts each tool call of a request against it. */
  readonly rateLimit: RateLimit | null;
  /** Batches: their tables, worker and limits (src/http/lotes.ts). */
  readonly lotes: Omit<LotesContext, 'protect' | 'datasets'>;
}

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const operations = new Operations(app);
  const get = <G extends RouteGenericInterface>(url: string, route: OpenRoute<G>): void => operations.add('GET', url, route);
  const post = <G extends RouteGenericInterface>(url: string, route: OpenRoute<G>): void => operations.add('POST', url, route);
  const protectedAt = <PP, QQ, P, S extends TSchema>(url: string, route: ProtectedGet<PP, QQ, P, S>): void => protectedGet(operations, services, url, route);
  registerSchemas(app);

  const { metrics, timer } = services.observability;
  // In the order of the OpenAPI document and of the interactive documentation's sections.

  // The record sets, from the registry: /api/v1/{path}/ (search), /api/v1/{path}/{key…} (lookup), fixed searches.
  for (const route of recordRoutes(recordSets)) protectedAt(route.url, recordGet(route, timer));

  // Authentication.
  acceptAnyBody(app);
  post('/api/v1/auth/login', loginRoute(services));
  get('/api/v1/auth/me', meRoute(services.protect));

  // Everything about one fraction; which fraction it is.
  protectedAt(
    '/api/v1/ficha/:fraccion',
    fichaRoute(registry, () => services.datasets.today()),
  );
  protectedAt('/api/v1/buscar', buscarRoute());
  protectedAt('/api/v1/buscar/sugerencias', sugerenciasRoute());
  // The tariff's tree, one level per call ("Explorar la tarifa").
  protectedAt('/api/v1/nomenclatura', nomenclaturaRoute(recordSets));
  protectedAt('/api/v1/nomenclatura/capitulos/:capitulo', nomenclaturaLevelRoute(recordSets, 'capitulo'));
  protectedAt('/api/v1/nomenclatura/partidas/:partida', nomenclaturaLevelRoute(recordSets, 'partida'));
  // The exchange rate the law fixes for a date (CFF art. 20; Ley Aduanera art. 56).
  protectedAt('/api/v1/tipos-cambio', tiposCambioRoute(services.datasets));
  // The rules of origin a preference asks for, and whether a bill of materials meets them.
  protectedAt('/api/v1/reglas-origen/:fraccion', reglasOrigenRoute({ datasets: services.datasets }));
  post('/api/v1/reglas-origen/evaluar', evaluarOrigenRoute(app, { datasets: services.datasets, protect: services.protect }));
  // What an import will pay.
  // `fecha` selects the dataset version in force that day (Ley Aduanera art. 56).
  const storeOn = (fecha: string): { store: Store; version: string | undefined } => {
    const inForce = services.datasets.on(fecha);
    if (!inForce) throw refusal('NO_DATASET_ON', { fecha });
    return { store: inForce.store, version: inForce.version?.version };
  };
  post(
    '/api/v1/contribuciones',
    contribucionesRoute(app, {
      recordSets,
      store: services.store,
      protect: services.protect,
      storeOn,
      ratesStore: () => services.datasets.current().store,
      today: () => services.datasets.today(),
    }),
  );

  // A whole catalogue at once: batches worked in the background, in a scope that takes the file as a stream.
  registerLotesSchemas(app);
  const lotes = lotesRoutes({ ...services.lotes, protect: services.protect, datasets: services.datasets });
  await scoped(app, lotesBodies, (scope) => {
    scope.add('POST', '/api/v1/lotes', lotes.post_lote);
    scope.add('GET', '/api/v1/lotes', lotes.list_lotes);
    scope.add('GET', '/api/v1/lotes/:id', lotes.get_lote);
    scope.add('DELETE', '/api/v1/lotes/:id', lotes.delete_lote);
    scope.add('GET', '/api/v1/lotes/:id/resultados', lotes.get_lote_resultados);
  });

  // Dataset versions.
  get('/api/v1/versiones', versionesRoute(services));
  get('/api/v1/versiones/:version', versionRoute(services));
  get('/api/v1/cambios', cambiosRoute(services));
  get('/api/v1/descargas/:version/:archivo', descargasRoute(services));

  // The same answers as MCP tools for assistants (src/http/mcp.ts), in a scope that takes the message as text.
  const mcp = mcpRoute(app, services.protect, services.rateLimit);
  await scoped(app, mcpBodies, (scope) => scope.add('POST', MCP_PATH, mcp));

  // Watch lists: told by a signed webhook when a version changes what they watch.
  const vigilanciasContext = { service: services.vigilancias, protect: services.protect, registry: services.observability.registry };
  registerVigilanciasSchemas(app, vigilanciasContext);
  const v = vigilanciasRoutes(vigilanciasContext);
  const vigilancia = `${VIGILANCIAS_PATH}/:id`;
  post(VIGILANCIAS_PATH, v.crearVigilancia);
  get(VIGILANCIAS_PATH, v.listarVigilancias);
  get(vigilancia, v.verVigilancia);
  operations.add('PUT', vigilancia, v.reemplazarVigilancia);
  operations.add('DELETE', vigilancia, v.borrarVigilancia);
  post(`${vigilancia}/secreto`, v.rotarSecretoVigilancia);
  post(`${vigilancia}/prueba`, v.probarVigilancia);
  get(`${vigilancia}/entregas`, v.entregasVigilancia);
  post(`${vigilancia}/entregas/:entrega/reenviar`, v.reenviarEntrega);

  // The service itself, public.
  get('/', rootRoute());
  get('/health', healthRoute(services.datasets));
  get('/openapi.json', openapiRoute(app));
  // Interactive documentation: the page and its assets under the prefix, served by the plugin.
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { persistAuthorization: false }, staticCSP: DOCS_CSP });
  // The page for people: its pages, and its own modules and stylesheet (docs/adr/0007-consulta-session.md).
  get('/consulta/', consultaHome());
  get('/consulta/*', consultaPages());
  get('/consulta/static/:file', consultaFiles());
  // Prometheus: GET only, guarded by METRICS_TOKEN when set; absent when metrics are off.
  if (metrics) app.route({ method: 'GET', url: '/metrics', ...metrics });

  // For every path above, its other methods: a 405 naming those it serves.
  operations.allow();
}

/** The components the responses refer to: the error shapes and each record set's record (and page). */
function registerSchemas(app: FastifyInstance): void {
  for (const schema of [validationErrorSchema, httpValidationErrorSchema, errorMessageSchema]) app.addSchema(schema);
  for (const rs of recordSets) {
    app.addSchema(recordSchema(rs));
    if (rs.paginated) app.addSchema(pageSchema(rs));
  }
}

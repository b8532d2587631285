/**
 * Every route the framework registers, plugins' included, held against the OpenAPI document: each is
 * documented, or answers 405 for a method its path does not serve, or is listed below with the reason
 * it is left out. And every documented operation is a real route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { createTestDatabase } from './databases.js';
import { startServer } from './servers.js';

/** Routes deliberately absent from the document, by `METHOD url` (HEAD goes with GET), and why. */
const UNDOCUMENTED: Readonly<Record<string, string>> = {
  'GET /openapi.json': 'the document itself, which FastAPI does not list either',
  'GET /docs': 'the interactive documentation page',
  'GET /docs/static/index.html': 'an asset of the documentation page',
  'GET /docs/static/swagger-initializer.js': 'an asset of the documentation page',
  'GET /docs/static/*': 'the assets of the documentation page',
  'GET /docs/json': 'the document again, as the documentation page loads it',
  'GET /docs/yaml': 'the document again, in YAML',
  'GET /metrics': 'Prometheus metrics for operators, text not JSON, not part of the API',
  'GET /consulta/': 'the page for people (HTML), not part of the API',
  'GET /consulta/*': 'the other pages of the page for people',
  'GET /consulta/static/:file': "the page for people's own scripts and stylesheet",
  'OPTIONS *': 'the CORS preflight answer (only with CORS_ORIGINS set)',
};

type Operations = Record<string, Record<string, unknown> | undefined>;

const openapiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const concretePath = (url: string): string => url.replace(/:[A-Za-z0-9_]+/g, '1');

describe('routing', () => {
  let db: TestDatabase;
  let server: Running;
  let base: string;
  let document: { paths: Operations };
  const routes: { method: string; url: string }[] = [];

  before(async () => {
    db = await createTestDatabase('sqlite');
    // Every optional route on (CORS, metrics); no load shedding or rate limit (TEST_ENV): this is not about them.
    const onRoute = (route: RouteOptions): void => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    };
    server = await startServer({ DATABASE_URL: db.url, CORS_ORIGINS: 'https://broker.example', METRICS_ENABLED: 'true' }, { user: false, app: { onRoute } });
    base = server.base;
    document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Operations };
  });

  after(async () => {
    await server?.close();
    await db?.drop();
  });

  const documented = (method: string, url: string): boolean => document.paths[openapiPath(url)]?.[method.toLowerCase()] !== undefined;
  /** HEAD answers as GET does, without the body: documented with it. */
  const covered = (method: string, url: string): boolean => documented(method, url) || (method === 'HEAD' && documented('GET', url));
  const leftOut = (method: string, url: string): boolean => `${method === 'HEAD' ? 'GET' : method} ${url}` in UNDOCUMENTED;
  /** The rest: routes registered only to refuse a method on a path that serves others. */
  const refusals = () => routes.filter(({ method, url }) => !covered(method, url) && !leftOut(method, url));
  const servedMethods = (url: string): string[] => ['GET', 'POST'].filter((m) => documented(m, url) || leftOut(m, url));

  test('the framework registered the routes of every part of the service', () => {
    for (const url of [
      '/',
      '/health',
      '/openapi.json',
      '/docs',
      '/metrics',
      '/api/v1/auth/login',
      '/api/v1/ficha/:fraccion',
      '/api/v1/buscar',
      '/api/v1/aladi2/',
    ]) {
      assert.ok(
        routes.some((r) => r.url === url),
        url,
      );
    }
  });

  test('a route neither documented nor left out with a reason is only a refusal on a path that serves other methods', () => {
    for (const { method, url } of refusals()) {
      assert.ok(servedMethods(url).length > 0, `${method} ${url} is served but neither documented nor listed as left out`);
    }
  });

  test('each refusal answers 405 naming the methods the path serves', async () => {
    const all = refusals();
    assert.ok(all.some((r) => r.method === 'DELETE'));
    for (const { method, url } of all) {
      const served = servedMethods(url);
      const response = await fetch(`${base}${concretePath(url)}`, { method });
      assert.equal(response.status, 405, `${method} ${url}`);
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      for (const m of served) assert.ok(allow.includes(m), `${method} ${url}: Allow ${allow.join(', ')} lacks ${m}`);
    }
  });

  test('every documented operation is a real route, and every route left out exists', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations ?? {})) {
        assert.ok(
          routes.some((r) => r.method === method.toUpperCase() && openapiPath(r.url) === path),
          `${method.toUpperCase()} ${path} is documented but not served`,
        );
      }
    }
    for (const entry of Object.keys(UNDOCUMENTED)) {
      assert.ok(
        routes.some((r) => `${r.method} ${r.url}` === entry),
        `${entry} is listed as left out but not served`,
      );
    }
  });
});

/**
 * The OpenAPI document's common parts (src/http/openapi.ts) hold for every operation, and say what the
 * service does: a protected operation refuses a request without a token, a public one does not; the
 * 429 and 503 it documents come with the headers documented. The linters themselves run in npm test
 * (tools/openapi-lint.ts); here, how their findings are named.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { where } from '../tools/openapi-lint.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { createTestDatabase } from './databases.js';
import { serve, startServer } from './servers.js';

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: unknown[];
  requestBody?: { content: Record<string, { examples?: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, Response>;
}
interface Document {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response>; headers: Record<string, unknown> };
}

const concretePath = (path: string): string => path.replace(/\{[^}]+\}/g, '1');

describe('the OpenAPI document', () => {
  let db: TestDatabase;
  let server: Running;
  let document: Document;
  const operations: { method: string; path: string; op: Operation }[] = [];

  before(async () => {
    db = await createTestDatabase('sqlite');
    server = await startServer({ DATABASE_URL: db.url });
    document = (await (await fetch(`${server.base}/openapi.json`)).json()) as Document;
    for (const [path, ops] of Object.entries(document.paths)) for (const [method, op] of Object.entries(ops)) operations.push({ method, path, op });
  });

  after(async () => {
    await server?.close();
    await db?.drop();
  });

  /** A response with its shared definition in place of a $ref. */
  const resolved = (response: Response): Response =>
    response.$ref === undefined ? response : (document.components.responses[response.$ref.replace('#/components/responses/', '')] ?? {});

  test('names a server and describes every tag it uses', () => {
    assert.deepEqual(document.servers, [{ url: '/', description: 'This service: the host the document was fetched from' }]);
    const described = new Map((document.tags ?? []).map((t) => [t.name, t.description ?? '']));
    for (const { method, path, op } of operations) {
      assert.ok((op.tags ?? []).length > 0, `${method} ${path} has no tag`);
      for (const tag of op.tags ?? []) assert.ok((described.get(tag) ?? '') !== '', `${method} ${path}: tag ${tag} is not described`);
    }
  });

  test('every operation has a unique operationId, a summary and a description', () => {
    const ids = operations.map(({ op }) => op.operationId);
    assert.equal(new Set(ids).size, ids.length);
    for (const { method, path, op } of operations) {
      for (const field of ['operationId', 'summary', 'description'] as const) assert.ok((op[field] ?? '') !== '', `${method} ${path} has no ${field}`);
    }
  });

  test('protected operations document 401, 429 and 503 with Retry-After; public ones say security: []', () => {
    const protectedOnes = operations.filter(({ op }) => (op.security ?? []).length > 0);
    assert.ok(protectedOnes.length > 40, 'the record sets, ficha, buscar… are protected');
    for (const { method, path, op } of operations) {
      assert.ok(op.security !== undefined, `${method} ${path} says nothing about security`);
      const isProtected = op.security.length > 0;
      if (isProtected) assert.deepEqual(op.security, [{ HTTPBearer: [] }]);
      if (isProtected) assert.ok(op.responses['401'], `${method} ${path}: 401`);
      if (path !== '/health') assert.ok(resolved(op.responses['429'] ?? {}).headers?.['Retry-After'], `${method} ${path}: 429 with Retry-After`);
      assert.ok(resolved(op.responses['503'] ?? {}).headers?.['Retry-After'], `${method} ${path}: 503 with Retry-After`);
      if (op.parameters?.some((p) => (p as { in: string }).in === 'query') || op.requestBody) assert.ok(op.responses['422'], `${method} ${path}: 422`);
    }
    for (const name of ['TooManyRequests', 'ServiceUnavailable', 'Unauthorized']) {
      assert.equal(document.components.responses[name]?.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorMessage', name);
    }
  });

  test('answers document their headers: ETag on GET, X-Dataset-Version where as_of picks the version, the RateLimit set', () => {
    for (const { method, path, op } of operations.filter((o) => o.method === 'get')) {
      const ok = op.responses['200'];
      assert.ok(ok?.headers?.['ETag'], `${method} ${path}: ETag`);
      // A business GET answers from a dataset version, which `as_of` picks and X-Dataset-Version names.
      if (op.parameters?.some((p) => (p as { name: string }).name === 'as_of')) {
        assert.ok(ok.headers['X-Dataset-Version'], `${method} ${path}: X-Dataset-Version`);
      }
      if (path !== '/health') assert.ok(ok.headers['RateLimit-Remaining'], `${method} ${path}: RateLimit-Remaining`);
    }
  });

  test('/ and /health have their answers described; login and contribuciones show request examples', () => {
    for (const path of ['/', '/health']) {
      const schema = document.paths[path]?.['get']?.responses['200']?.content?.['application/json']?.schema as { properties?: object } | undefined;
      assert.ok(schema?.properties, path);
    }
    assert.ok(document.paths['/api/v1/auth/login']?.['post']?.requestBody?.content['application/json']?.example);
    assert.ok(Object.keys(document.paths['/api/v1/contribuciones']?.['post']?.requestBody?.content['application/json']?.examples ?? {}).length >= 1);
  });

  test('an operation documented as protected refuses a request without a token, a public one does not', async () => {
    for (const { method, path, op } of operations.filter((o) => o.method === 'get')) {
      const response = await fetch(`${server.base}${concretePath(path)}`);
      await response.arrayBuffer();
      assert.equal(response.status === 401, (op.security ?? []).length > 0, `${method} ${path} answered ${response.status}`);
    }
  });

  test('a 429 carries the headers the document names', async (t) => {
    const limited = await serve(t, { DATABASE_URL: db.url, RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SECONDS: '3600' });
    const ask = () => limited.get('/api/v1/aladi2/', { authorization: `Bearer ${limited.token}` });
    const first = await ask();
    assert.equal(first.status, 200);
    assert.ok(first.headers.get('etag') && first.headers.get('ratelimit-remaining') === '0');
    await first.arrayBuffer();
    const refused = await ask();
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    for (const header of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.ok(refused.headers.get(header) !== null, header);
    assert.deepEqual(await refused.json(), { detail: 'Too Many Requests' });
  });
});

describe('the lint names the operation of each problem', () => {
  const document = { paths: { '/api/v1/x': { get: { operationId: 'get_x' } } } };

  test('a problem inside an operation names its method, path and operationId', () => {
    assert.equal(where(document, ['paths', '/api/v1/x', 'get', 'description']), 'GET /api/v1/x (get_x) at description');
    assert.equal(where(document, ['paths', '/api/v1/x', 'get']), 'GET /api/v1/x (get_x)');
  });

  test('elsewhere, the place in the document', () => {
    assert.equal(where(document, ['components', 'schemas', 'X']), 'components.schemas.X');
    assert.equal(where(document, []), 'the document');
  });
});

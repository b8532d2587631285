/** The public endpoints, the HTTP behaviour every route shares, and the OpenAPI document. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { recordSets } from '../src/record-sets/index.js';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';

let server: Running;

for (const kind of await storeKinds()) {
  describe(`${kind} store`, () => {
    serveFixture(kind, {}, (running) => (server = running));

    describe('public endpoints', () => {
      test('GET / names the service and its documentation', async () => {
        const { status, body } = await server.json('/');
        assert.equal(status, 200);
        assert.deepEqual(body, { name: 'Tariff Classification Lookup Service', version: '1.0.0', docs: '/docs', openapi: '/openapi.json' });
      });

      test('GET /health runs a query and reports the loaded dataset', async () => {
        const { status, body } = await server.json<{ status: string; database: string; dataset: { source: string; counts: Record<string, number> } }>(
          '/health',
        );
        assert.equal(status, 200);
        assert.equal(body.status, 'healthy');
        assert.equal(body.database, 'ok');
        assert.equal(body.dataset.source, 'test fixture');
        assert.deepEqual(
          Object.keys(body.dataset.counts),
          recordSets.map((rs) => rs.path),
        );
        assert.equal(body.dataset.counts['tlcs'], 8);
      });

      test('GET /docs serves interactive documentation from the service itself', async () => {
        const page = await server.get('/docs');
        assert.equal(page.status, 200);
        const html = await page.text();
        const scripts = [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
        assert.ok(scripts.length > 0);
        for (const src of scripts) {
          assert.ok(!/^https?:/.test(src), `${src} is served locally`);
          const asset = await server.get(new URL(src, `${server.base}/docs/`).pathname);
          assert.equal(asset.status, 200, src);
        }
      });
    });

    describe('HTTP behaviour', () => {
      test('unknown paths are 404 Not Found', async () => {
        for (const path of ['/nope', '/api/v1/nope/', '/api/v2/aladi2/', '/api/v1/aladi2/1/2']) {
          const { status, body } = await server.json(path);
          assert.equal(status, 404, path);
          assert.deepEqual(body, { detail: 'Not Found' });
        }
      });

      test('a wrong method is 405 with Allow', async () => {
        for (const [method, path] of [
          ['POST', '/api/v1/aladi2/'],
          ['DELETE', '/api/v1/fracciones/1'],
          ['PUT', '/api/v1/tlcs/5/01012101'],
          ['POST', '/health'],
        ] as const) {
          const response = await fetch(server.base + path, { method });
          assert.equal(response.status, 405, `${method} ${path}`);
          assert.deepEqual(await response.json(), { detail: 'Method Not Allowed' });
          assert.equal(response.headers.get('allow'), 'GET, HEAD');
        }
      });

      test('HEAD answers wherever GET does, without a body', async () => {
        const response = await server.authed.fetch('/api/v1/aladi2/5', { method: 'HEAD' });
        assert.equal(response.status, 200);
        assert.equal(await response.text(), '');
      });

      test('X-Request-ID is echoed when sane and generated otherwise', async () => {
        const echoed = await server.get('/health', { 'x-request-id': 'client-abc.123' });
        assert.equal(echoed.headers.get('x-request-id'), 'client-abc.123');
        const generated = await server.get('/health', { 'x-request-id': 'x'.repeat(500) });
        const id = generated.headers.get('x-request-id') ?? '';
        assert.match(id, /^[0-9a-f-]{36}$/);
      });

      test('a malformed percent-encoding in the path is 400 in the contract shape', async () => {
        const { status, body } = await server.json('/api/v1/aladi2/%E0%A4%A');
        assert.equal(status, 400);
        assert.deepEqual(body, { detail: 'Bad Request' });
      });

      test('hostile parameters never produce a 500', async () => {
        const values = ["' OR 1=1 --", '%00', '\u0000', 'ñ'.repeat(1000), '0101%', '01_1', '1e3', '-0', '99999999999999999999999'];
        for (const rs of recordSets) {
          for (const v of values) {
            for (const name of [...rs.filters.map((f) => f.param), 'skip', 'limit']) {
              const response = await server.authed.fetch(`/api/v1/${rs.path}/?${name}=${encodeURIComponent(v)}`);
              assert.ok(response.status === 200 || response.status === 422, `${rs.path} ${name}=${v.slice(0, 20)}: ${response.status}`);
              await response.arrayBuffer();
            }
            const lookup = await server.authed.fetch(`/api/v1/${rs.path}/${encodeURIComponent(v)}${rs.key.length > 1 ? '/x' : ''}`);
            assert.ok([404, 422].includes(lookup.status), `${rs.path}/${v.slice(0, 20)}: ${lookup.status}`);
            assert.ok('detail' in ((await lookup.json()) as object));
          }
        }
      });
    });

    describe('conditional requests, compression, CORS', () => {
      test('GET answers carry an ETag; If-None-Match with it gives 304 without a body', async () => {
        const first = await server.authed.fetch('/api/v1/tlcs/?limit=5');
        const tag = first.headers.get('etag');
        assert.ok(tag);
        assert.equal(first.headers.get('cache-control'), 'private, no-cache');
        await first.arrayBuffer();
        const again = await server.authed.fetch('/api/v1/tlcs/?limit=5', { headers: { 'if-none-match': tag } });
        assert.equal(again.status, 304);
        assert.equal(await again.text(), '');
        const other = await server.authed.fetch('/api/v1/tlcs/?limit=4', { headers: { 'if-none-match': tag } });
        assert.equal(other.status, 200);
        assert.notEqual(other.headers.get('etag'), tag);
        await other.arrayBuffer();
      });

      test('bodies worth compressing go out with gzip or brotli as the client accepts', async () => {
        const plain = await (await server.authed.fetch('/api/v1/fracciones/')).text();
        for (const encoding of ['gzip', 'br']) {
          const response = await server.authed.fetch('/api/v1/fracciones/', { headers: { 'accept-encoding': encoding } });
          assert.equal(response.headers.get('content-encoding'), encoding);
          assert.equal(await response.text(), plain, 'fetch decodes it back to the same body');
        }
      });

      test('CORS is off unless origins are configured', async () => {
        const response = await server.get('/health', { origin: 'https://example.org' });
        assert.equal(response.headers.get('access-control-allow-origin'), null);
        await response.arrayBuffer();
      });
    });

    describe('domain cases', () => {
      test('TIPAT lists only records whose FUNDAMENTO2 is TIPAT, and still filters', async () => {
        const { status, body } = await server.json<Record<string, unknown>[]>('/api/v1/fundamentos-tlc/tipat');
        assert.equal(status, 200);
        assert.ok(body.length > 0);
        assert.ok(body.every((r) => r['FUNDAMENTO2'] === 'TIPAT'));
        const all = (await server.json<Record<string, unknown>[]>('/api/v1/fundamentos-tlc/')).body;
        assert.ok(all.some((r) => r['FUNDAMENTO2'] !== 'TIPAT'));
        const narrowed = (await server.json<Record<string, unknown>[]>('/api/v1/fundamentos-tlc/tipat?fraccion=0101')).body;
        assert.ok(narrowed.length > 0 && narrowed.length < body.length);
        assert.ok(narrowed.every((r) => String(r['FRACCION']).startsWith('0101') && r['FUNDAMENTO2'] === 'TIPAT'));
      });

      test('10 digits mean fraction + NICO; an explicit NICO that differs finds nothing', async () => {
        const both = (await server.json<Record<string, unknown>[]>('/api/v1/aladi2/?fraccion=0101210101')).body;
        assert.ok(both.length > 0);
        assert.ok(both.every((r) => r['FRACCION'] === '01012101' && r['NICO'] === '01'));
        const same = (await server.json<unknown[]>('/api/v1/aladi2/?fraccion=0101210101&nico=01')).body;
        assert.deepEqual(same, both);
        const differs = (await server.json<unknown[]>('/api/v1/aladi2/?fraccion=0101210101&nico=00')).body;
        assert.deepEqual(differs, []);
      });

      test('a malformed fraction or NICO is 422 saying what is accepted', async () => {
        for (const [query, name] of [
          ['fraccion=abc', 'fraccion'],
          ['fraccion=123456789', 'fraccion'],
          ['fraccion=01012101001', 'fraccion'],
          ['nico=1', 'nico'],
          ['nico=abc', 'nico'],
        ]) {
          const { status, body } = await server.json<{ detail: { loc: string[]; type: string; msg: string }[] }>(`/api/v1/cupos/?${query}`);
          assert.equal(status, 422, query);
          assert.deepEqual(body.detail[0]?.loc, ['query', name]);
          assert.equal(body.detail[0]?.type, 'string_pattern_mismatch');
        }
        const { body } = await server.json<{ detail: { msg: string }[] }>('/api/v1/cupos/?fraccion=12a');
        assert.match(body.detail[0]?.msg ?? '', /8 digits.*10 digits/);
      });

      test('ieps matches the fraction with or without dots, and by prefix', async () => {
        const plain = (await server.json<Record<string, unknown>[]>('/api/v1/ieps/?fraccion=84713001')).body;
        const dots = (await server.json<Record<string, unknown>[]>('/api/v1/ieps/?fraccion=8471.30.01')).body;
        assert.ok(plain.length > 0);
        assert.deepEqual(dots, plain);
        const prefix = (await server.json<Record<string, unknown>[]>('/api/v1/ieps/?fraccion=8471.3')).body;
        assert.deepEqual(prefix, plain);
      });

      test('the tlcs composite key needs both parts', async () => {
        const ok = await server.json<Record<string, unknown>>('/api/v1/tlcs/5/0101.21.01');
        assert.equal(ok.status, 200);
        assert.equal(ok.body['SYSID'], 5);
        const wrongFraction = await server.json('/api/v1/tlcs/5/84713001');
        assert.equal(wrongFraction.status, 404);
        assert.deepEqual(wrongFraction.body, { detail: 'TLCS record not found' });
      });
    });

    interface OpenApiOperation {
      security?: unknown;
      parameters: { name: string; schema: { minimum?: number; maximum?: number; default?: number } }[];
      responses: Record<string, unknown>;
    }

    interface OpenApiDocument {
      info: { version: string };
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { properties?: Record<string, unknown> } | undefined> };
      paths: Record<string, { get?: OpenApiOperation; post?: OpenApiOperation } | undefined>;
    }

    describe('OpenAPI document', () => {
      test('passes an OpenAPI validator and documents each record set with parameters, bounds and schemas', async () => {
        const { status, body } = await server.json<OpenApiDocument>('/openapi.json');
        assert.equal(status, 200);
        const validator = new Validator();
        const result = await validator.validate(structuredClone(body) as unknown as Record<string, unknown>);
        assert.equal(result.valid, true, JSON.stringify(result.errors));
        assert.equal(body.info.version, '1.0.0');
        assert.deepEqual(body.components.securitySchemes.HTTPBearer, { type: 'http', scheme: 'bearer' });
        for (const name of ['HTTPValidationError', 'ValidationError', ...recordSets.map((rs) => rs.schema)]) {
          assert.ok(body.components.schemas[name], name);
        }
        for (const rs of recordSets) {
          const search = body.paths[`/api/v1/${rs.path}/`]?.get;
          assert.ok(search, `${rs.path} search`);
          assert.deepEqual(search.security, [{ HTTPBearer: [] }]);
          const limit = search.parameters.find((p) => p.name === 'limit');
          assert.deepEqual([limit?.schema.minimum, limit?.schema.maximum, limit?.schema.default], [1, 1000, 100]);
          for (const f of rs.filters)
            assert.ok(
              search.parameters.some((p) => p.name === f.param),
              `${rs.path} ${f.param}`,
            );
          assert.ok(search.responses['422']);
          const lookupPath = `/api/v1/${rs.path}/${rs.key.map((k) => `{${k.toLowerCase()}}`).join('/')}`;
          assert.ok(body.paths[lookupPath]?.get, lookupPath);
          const properties = Object.keys(body.components.schemas[rs.schema]?.properties ?? {});
          assert.deepEqual(
            properties,
            rs.fields.map((f) => f.name),
          );
        }
        assert.ok(body.paths['/api/v1/fundamentos-tlc/tipat']?.get);
      });
    });
  });
}

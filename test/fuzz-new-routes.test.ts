/**
 * The same property as test/fuzz.test.ts for the routes added since (batches, watch lists, exchange
 * rates, MCP): random and hostile queries, bodies, content types and ids never give a 5xx, and every
 * refusal is one of the contract's shapes (JSON-RPC's own shapes on /mcp).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Running } from './servers.js';
import { tempDir } from './lifetime.js';
import { writeFixtureDatabase } from './databases.js';
import { startServer } from './servers.js';
import { assertNoInternals } from './clients.js';

let server: Running;
const tmp = tempDir();

before(async () => {
  const path = join(tmp.dir, 'fuzz-new.sqlite');
  await writeFixtureDatabase(path);
  // Limits raised: the fuzz sends as many batches and watch lists as it likes.
  server = await startServer({ DATABASE_URL: `sqlite:${path}`, LOTES_POR_USUARIO: '1000', VIGILANCIAS_POR_USUARIO: '1000' });
});

after(async () => {
  await server.close();
  tmp.remove();
});

const HOSTILE = [
  "'",
  '"',
  "' OR '1'='1",
  '%',
  '\u0000',
  '../../etc/passwd',
  '<script>',
  '１２',
  '🙂',
  ' ',
  '-1',
  '1e309',
  'NaN',
  '9'.repeat(40),
  '2024-02-31',
  '0000-01-01',
];
const text = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 60 }), fc.integer().map(String));

const auth = (): Record<string, string> => ({ authorization: `Bearer ${server.token}` });

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; type: string; body: unknown }> {
  const response = await fetch(server.base + path, { ...init, headers: { ...auth(), ...(init.headers as Record<string, string> | undefined) } });
  const raw = await response.text();
  assertNoInternals(raw, path);
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, type, body: type.includes('json') && raw !== '' ? (JSON.parse(raw) as unknown) : raw };
}

/** A refusal in the contract's shapes: 422 a list of Pydantic entries, anything else a string. */
function assertContract(status: number, body: unknown, what: string): void {
  assert.ok(status < 500, `${what}: ${status} ${JSON.stringify(body)}`);
  if (status < 400) return;
  assert.ok(body !== null && typeof body === 'object' && 'detail' in body, `${what}: ${JSON.stringify(body)}`);
  const detail = body.detail;
  if (status === 422) {
    assert.ok(Array.isArray(detail) && detail.length > 0, what);
    for (const d of detail as Record<string, unknown>[]) {
      assert.equal(typeof d['type'], 'string', what);
      assert.ok(Array.isArray(d['loc']), what);
      assert.equal(typeof d['msg'], 'string', what);
    }
  } else {
    assert.equal(typeof detail, 'string', what);
  }
}

describe('fuzz of the newer routes', () => {
  test('batches: hostile files of every content type, queries and ids', async () => {
    const types = [
      'text/csv',
      'application/x-ndjson',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/json',
      'text/plain',
      '',
    ];
    const file = fc.oneof(
      fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
      fc
        .array(fc.array(text, { maxLength: 5 }), { maxLength: 6 })
        .map((rows) => Buffer.from(['descripcion,fraccion,valor_aduana', ...rows.map((r) => r.join(','))].join('\n'))),
      fc
        .array(fc.dictionary(fc.constantFrom('descripcion', 'fraccion', 'valor_aduana', 'nico', '__proto__'), text), { maxLength: 4 })
        .map((rows) => Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'))),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...types),
        file,
        fc.dictionary(fc.constantFrom('nombre', 'fecha', 'pais_origen', 'x'), text, { maxKeys: 2 }),
        async (type, body, query) => {
          const qs = new URLSearchParams(query).toString();
          const sent = await call(`/api/v1/lotes?${qs}`, { method: 'POST', body, headers: type === '' ? {} : { 'content-type': type } });
          assertContract(sent.status, sent.body, `POST lotes ${type} ${qs}`);
          assert.ok([202, 400, 413, 415, 422].includes(sent.status), `POST lotes: ${sent.status}`);
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(text, fc.dictionary(fc.constantFrom('skip', 'limit', 'formato', 'solo_revisar'), text, { maxKeys: 3 }), async (id, query) => {
        const qs = new URLSearchParams(query).toString();
        for (const path of [`/api/v1/lotes/${encodeURIComponent(id)}`, `/api/v1/lotes/${encodeURIComponent(id)}/resultados?${qs}`, `/api/v1/lotes?${qs}`]) {
          const got = await call(path);
          assertContract(got.status, got.body, path);
        }
      }),
      { numRuns: 100 },
    );
  });

  test('watch lists: hostile bodies and ids', async () => {
    const body = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            nombre: text,
            fracciones: fc.array(text, { maxLength: 5 }),
            conjuntos: fc.array(fc.oneof(text, fc.constant('tlcs')), { maxLength: 3 }),
            webhook: fc.record({ url: text }),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(body, text, async (sent, id) => {
        const made = await call('/api/v1/vigilancias', { method: 'POST', body: sent, headers: { 'content-type': 'application/json' } });
        assertContract(made.status, made.body, `POST vigilancias ${sent}`);
        const replaced = await call(`/api/v1/vigilancias/${encodeURIComponent(id)}`, {
          method: 'PUT',
          body: sent,
          headers: { 'content-type': 'application/json' },
        });
        assertContract(replaced.status, replaced.body, `PUT vigilancias/${id}`);
        for (const path of [
          `/api/v1/vigilancias/${encodeURIComponent(id)}`,
          `/api/v1/vigilancias/${encodeURIComponent(id)}/entregas?skip=${encodeURIComponent(id)}`,
        ]) {
          const got = await call(path);
          assertContract(got.status, got.body, path);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('exchange rates: hostile dates', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
        ),
        async (fecha) => {
          const got = await call(`/api/v1/tipos-cambio?fecha=${encodeURIComponent(fecha)}`);
          assertContract(got.status, got.body, `tipos-cambio ${fecha}`);
          assert.ok([200, 404, 422].includes(got.status), `tipos-cambio ${fecha}: ${got.status}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('MCP: hostile JSON-RPC never fails the server', async () => {
    const message = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record({
          name: fc.oneof(text, fc.constantFrom('buscar_fraccion', 'ficha_fraccion', 'calcular_contribuciones', 'explorar_tarifa')),
          arguments: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })),
        })
        .map((params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })),
    );
    await fc.assert(
      fc.asyncProperty(message, async (body) => {
        const got = await call('/mcp', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        });
        assert.ok(got.status < 500, `mcp ${body}: ${got.status} ${JSON.stringify(got.body)}`);
      }),
      { numRuns: 150 },
    );
  });
});

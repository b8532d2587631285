/**
 * Fastify checks a route's declared parts by their schemas, before its handler, in Pydantic's shapes
 * (src/http/contract.ts); a schema not declared through the contract only documents (a narrow test of
 * the validator compiler, with inject).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { buildValidator, pathParams, queryParams, typed } from '../../src/http/contract.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { PAGING } from '../../src/http/params.js';
import { Operations } from '../../src/http/route-kinds.js';

const Body = Type.Object({ nombre: Type.String({ maxLength: 5 }), cantidad: Type.Integer({ minimum: 1 }) });
const Query = Type.Object({ activa: Type.Optional(Type.Boolean()), limit: Type.Integer({ minimum: 1, default: 10 }) });

async function app(): Promise<{ app: FastifyInstance; handled: () => number }> {
  const app = Fastify({ schemaController: { compilersFactory: { buildValidator } } });
  registerErrorHandling(app);
  let handled = 0;
  const operations = new Operations(app);
  operations.add(
    'POST',
    '/cosas/:id',
    typed(
      { params: pathParams([{ name: 'id', in: 'path', kind: 'fraction', description: 'A fraction' }]), querystring: Query, body: Body },
      {
        schema: {},
        handler: (request) => {
          handled++;
          // Typed by the schemas: no cast, and the values are the checked ones.
          const { id } = request.params;
          const { activa, limit } = request.query;
          const { nombre, cantidad } = request.body;
          return { id, activa: activa ?? null, limit, nombre, cantidad };
        },
      },
    ),
  );
  operations.add(
    'GET',
    '/paginas',
    typed({ querystring: queryParams(PAGING) }, { schema: {}, handler: (request) => ({ skip: request.query.skip, limit: request.query.limit }) }),
  );
  // A schema given directly documents only: the route reads its input itself.
  operations.add('GET', '/libre', { schema: { querystring: Type.Object({ n: Type.Integer() }) }, handler: () => ({ libre: true }) });
  await app.ready();
  return { app, handled: () => handled };
}

test('checked parts reach the handler typed and normalised: a fraction in its typed form, query texts as numbers and booleans, defaults filled in', async (t) => {
  const { app: server } = await app();
  t.after(() => server.close());
  const answer = await server.inject({ method: 'POST', url: '/cosas/0101.21.01?activa=true', payload: { nombre: 'abc', cantidad: 2 } });
  assert.equal(answer.statusCode, 200);
  assert.deepEqual(answer.json(), { id: '01012101', activa: true, limit: 10, nombre: 'abc', cantidad: 2 });
});

test("every failing part in one 422, in FastAPI's order path, query, body, and the handler never runs", async (t) => {
  const { app: server, handled } = await app();
  t.after(() => server.close());
  const all = await server.inject({ method: 'POST', url: '/cosas/01x?limit=0', payload: { nombre: 'abcdefg' } });
  assert.equal(all.statusCode, 422);
  assert.deepEqual(
    all.json<{ detail: { type: string; loc: unknown[] }[] }>().detail.map((d) => [d.type, d.loc]),
    [
      ['string_pattern_mismatch', ['path', 'id']],
      ['greater_than_equal', ['query', 'limit']],
      ['string_too_long', ['body', 'nombre']],
      ['missing', ['body', 'cantidad']],
    ],
  );
  // The path checked, a failing body is reported with the query after it.
  const body = await server.inject({ method: 'POST', url: '/cosas/01?limit=0', payload: { nombre: 'abcdefg' } });
  assert.deepEqual(body.json(), {
    detail: [
      { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: 0, ctx: { ge: 1 } },
      { type: 'string_too_long', loc: ['body', 'nombre'], msg: 'String should have at most 5 characters', input: 'abcdefg', ctx: { max_length: 5 } },
      { type: 'missing', loc: ['body', 'cantidad'], msg: 'Field required', input: { nombre: 'abcdefg' } },
    ],
  });
  const query = await server.inject({ method: 'POST', url: '/cosas/01?limit=0', payload: { nombre: 'a', cantidad: 1 } });
  assert.deepEqual(query.json(), {
    detail: [{ type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: 0, ctx: { ge: 1 } }],
  });
  // A bad path alone: the parts after it, still as sent, pass their own checks.
  const path = await server.inject({ method: 'POST', url: '/cosas/01x?limit=2', payload: { nombre: 'a', cantidad: 1 } });
  assert.deepEqual(
    path.json<{ detail: { loc: unknown[] }[] }>().detail.map((d) => d.loc),
    [['path', 'id']],
  );
  assert.equal(handled(), 0);
});

test("ParamSpecs are read by params.ts' rules: an integer with spaces around it, int_parsing for a word", async (t) => {
  const { app: server } = await app();
  t.after(() => server.close());
  assert.deepEqual((await server.inject({ url: '/paginas?skip=%203%20' })).json(), { skip: 3, limit: 100 });
  const bad = await server.inject({ url: '/paginas?limit=muchos' });
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(
    bad.json<{ detail: { type: string; loc: unknown[] }[] }>().detail.map((d) => [d.type, d.loc]),
    [['int_parsing', ['query', 'limit']]],
  );
});

test('a schema not declared through the contract is not checked', async (t) => {
  const { app: server } = await app();
  t.after(() => server.close());
  const answer = await server.inject({ url: '/libre?n=no' });
  assert.equal(answer.statusCode, 200);
});

/**
 * One validation per route: a business GET is answered by the fast path (src/http/fast-path.ts)
 * when it can, by Fastify otherwise, and both give the same answer to the same request. A request
 * with an Origin header (CORS on) always goes to Fastify; the same request without it is the front
 * door's once the token has been verified and the route has answered once. Hostile parameters must
 * get the same status and body on both paths, and a 422 is never kept to be served again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Running } from './servers.js';
import { serveFixture } from './servers.js';

const ORIGIN = 'http://elsewhere.test';

/** Routes of each kind the fast path meets: lookups (answered on a miss too) and cached searches. */
const ROUTES = ['/api/v1/aladi2/1', '/api/v1/aladi2/', '/api/v1/ficha/01012101', '/api/v1/tlcs/'];

/** Query strings a careless client or an attacker sends. */
const HOSTILE_QUERIES = [
  'as_of=2024-13-45',
  'as_of=2024-02-31',
  'as_of=2023-02-29',
  'as_of=1900-02-29',
  'as_of=0000-01-01',
  'as_of=2024-00-10',
  'as_of=2024-04-31',
  'as_of=9999-99-99',
  'as_of=0050-01-01',
  'as_of=0001-01-01',
  'as_of=2024-02-29',
  'as_of=2024-1-01',
  'as_of=',
  'as_of=+2024-01-01',
  'as_of=2024-02-31&as_of=2024-01-01',
  'as_of=2024-01-01&as_of=2024-02-31',
  'as_of=%32024-02-31',
  'x=1&as_of=2024-02-30',
  'as_of_x=2024-02-31',
  'as_of=2024-02-31x',
  'skip=9007199254740992',
  'skip=-1&as_of=2024-02-31',
  'limit=0',
];

const LOOKUP_IDS = ['99999999999999999999', '-9007199254740992', '9007199254740991', 'abc', '1e3', '0', '%20', '%00'];

const both = (server: Running) => {
  const headers = { authorization: `Bearer ${server.token}` };
  const ask = async (url: string, extra: Record<string, string> = {}): Promise<{ status: number; body: unknown }> => {
    const response = await server.get(url, { ...headers, ...extra });
    return { status: response.status, body: await response.json() };
  };
  return { viaFastify: (url: string) => ask(url, { origin: ORIGIN }), viaFastPath: (url: string) => ask(url) };
};

describe('the fast path and Fastify answer every business GET alike', () => {
  let server!: Running;
  serveFixture('sqlite', { CORS_ORIGINS: ORIGIN }, (s) => (server = s));

  test('a table of hostile parameters: the same status and body on both paths, twice over (nothing cached)', async () => {
    const { viaFastify, viaFastPath } = both(server);
    const urls = [
      ...ROUTES.flatMap((route) => HOSTILE_QUERIES.map((q) => `${route}?${q}`)),
      ...LOOKUP_IDS.map((id) => `/api/v1/aladi2/${id}`),
      ...LOOKUP_IDS.map((id) => `/api/v1/aladi2/${id}?as_of=2024-02-31`),
    ];
    // Every route has answered once and the token is verified (the fast path takes only a token verified before).
    for (const route of ROUTES) assert.equal((await viaFastify(route)).status, 200, route);
    for (const url of urls) {
      const reference = await viaFastify(url);
      assert.ok([200, 404, 422].includes(reference.status), `${url}: ${reference.status}`);
      for (let round = 0; round < 2; round++) assert.deepEqual(await viaFastPath(url), reference, `${url}, round ${round + 1}`);
      assert.deepEqual(await viaFastify(url), reference, `${url} again`);
    }
  });

  test('an impossible date is a 422 on as_of on every route, a lookup answered before included', async () => {
    const { viaFastPath } = both(server);
    for (const route of ROUTES) {
      assert.equal((await viaFastPath(`${route}?as_of=2024-06-01`)).status, 200, route);
      for (const date of ['2024-13-45', '2024-02-31']) {
        for (let round = 0; round < 2; round++) {
          const { status, body } = await viaFastPath(`${route}?as_of=${date}`);
          assert.equal(status, 422, `${route} ${date}`);
          assert.deepEqual(body, {
            detail: [{ type: 'date_parsing', loc: ['query', 'as_of'], msg: 'Input should be a valid date in the format YYYY-MM-DD', input: date }],
          });
        }
      }
    }
  });

  test('a year before 0100 is a calendar date: before every version, 404 "No dataset in force", not 422', async () => {
    const { viaFastify, viaFastPath } = both(server);
    for (const route of ROUTES) {
      for (const ask of [viaFastify, viaFastPath]) {
        const { status, body } = await ask(`${route}?as_of=0050-01-01`);
        assert.equal(status, 404, route);
        assert.deepEqual(body, { detail: 'No dataset in force on 0050-01-01' });
      }
    }
  });

  test('skip past 2^53 is a 422 naming the bound, not clamped', async () => {
    const { viaFastPath } = both(server);
    const { status, body } = await viaFastPath('/api/v1/tlcs/?skip=9007199254740992');
    assert.equal(status, 422);
    assert.deepEqual(body, {
      detail: [
        {
          type: 'less_than_equal',
          loc: ['query', 'skip'],
          msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`,
          input: '9007199254740992',
          ctx: { le: Number.MAX_SAFE_INTEGER },
        },
      ],
    });
  });
});

describe('errors name what the client sent', () => {
  let server!: Running;
  serveFixture('sqlite', {}, (s) => (server = s));

  test('a bad path parameter and a bad query in one 422, as FastAPI reports them: path first, the query in its order, as_of last', async () => {
    const cases: [string, string[]][] = [
      ['/api/v1/aladi2/uno?as_of=2024-02-31', ['path sysid', 'query as_of']],
      ['/api/v1/ficha/0101?nico=x&pais=ABCD&as_of=no', ['path fraccion', 'query nico', 'query as_of']],
      ['/api/v1/reglas-origen/48?pais=ZZZ&fecha=2024-02-31', ['path fraccion', 'query fecha']],
      ['/api/v1/reglas-origen/48?pais=ZZZ', ['path fraccion', 'query pais']],
      ['/api/v1/nomenclatura/capitulos/1?as_of=x', ['path capitulo', 'query as_of']],
      ['/api/v1/buscar?limit=0&as_of=x', ['query q', 'query as_of']],
    ];
    for (const [url, places] of cases) {
      const { status, body } = await server.json<{ detail: { loc: string[] }[] }>(url);
      assert.equal(status, 422, url);
      assert.deepEqual(
        body.detail.map((d) => d.loc.join(' ')),
        places,
        url,
      );
    }
  });

  test('cambios with desde after today and no hasta: the 422 is on desde, with its value', async () => {
    const { status, body } = await server.json<{ detail: { loc: string[]; input: unknown; type: string }[] }>('/api/v1/cambios?desde=2999-01-01');
    assert.equal(status, 422);
    assert.equal(body.detail.length, 1);
    assert.deepEqual(body.detail[0]!.loc, ['query', 'desde']);
    assert.equal(body.detail[0]!.input, '2999-01-01');
    assert.equal(body.detail[0]!.type, 'value_error');
    const given = await server.json<{ detail: { loc: string[]; input: unknown }[] }>('/api/v1/cambios?desde=2024-01-02&hasta=2024-01-01');
    assert.equal(given.status, 422);
    assert.deepEqual(
      given.body.detail.map((d) => [d.loc, d.input]),
      [[['query', 'hasta'], '2024-01-01']],
    );
  });

  test('a contributions answer names the version that answered in X-Dataset-Version, as every business answer does', async () => {
    const versions = await server.json<{ version: string; actual: boolean }[]>('/api/v1/versiones');
    const current = versions.body.find((v) => v.actual)?.version;
    assert.ok(current);
    for (const fecha of [undefined, '2015-06-01']) {
      const response = await fetch(`${server.base}/api/v1/contribuciones`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fecha, pais_origen: 'USA', partidas: [{ fraccion: '01012101', nico: '00', valor_aduana: '100.00', cantidad_umt: '1' }] }),
      });
      assert.equal(response.status, 200, JSON.stringify(await response.clone().json()));
      assert.equal(response.headers.get('x-dataset-version'), current);
    }
  });

  test('contribuciones on a date in year 0050: 404 no dataset in force, not 422', async () => {
    const response = await fetch(`${server.base}/api/v1/contribuciones`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fecha: '0050-01-01', pais_origen: 'USA', partidas: [{ fraccion: '01012101', valor_aduana: '100.00' }] }),
    });
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { detail: 'No dataset in force on 0050-01-01' });
  });
});

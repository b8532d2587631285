/** The answer cache follows the data: a new dataset, loaded by another process, shows within seconds. */
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { recordSets } from '../src/record-sets/index.js';
import { recordToRow } from '../src/data/record-row.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetWriter } from '../src/store/store.js';
import { fixtureRecords } from './fixtures.js';
import type { Running } from './servers.js';
import { temporary, waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import { serve, serveWithLog } from './servers.js';
import { TEST_ENV } from './service-env.js';
import { TEST_PASSWORD, TEST_USER, login } from './clients.js';
import { cliInProcess } from './commands.js';

/** The fixture with only its first `n` records in every record set. */
const firstRecords =
  (n: number) =>
  (writer: DatasetWriter): void => {
    for (const rs of recordSets) for (const record of fixtureRecords(rs).slice(0, n)) writer.insert(rs, recordToRow(rs, record));
  };

/** How many times the store was asked to search a record set, as /metrics counts it (a cached answer is not). */
async function storeSearches(server: Running, recordSet: string): Promise<number> {
  const text = await (await server.get('/metrics')).text();
  const pattern = new RegExp(`^store_query_duration_seconds_count\\{record_set="${recordSet}",operation="search"\\} (\\d+)$`, 'm');
  return Number(pattern.exec(text)?.[1] ?? 0);
}

for (const kind of await storeKinds()) {
  describe(`answer cache (${kind})`, () => {
    test('a repeated call is answered from the cache, without asking the store', async (t) => {
      const db = await database(t, kind);
      const server = await serve(t, { DATABASE_URL: db.url });
      const first = await server.json<unknown[]>('/api/v1/aladi2/');
      assert.equal(await storeSearches(server, 'aladi2'), 1, 'the first call asks the store');
      const second = await server.json<unknown[]>('/api/v1/aladi2/');
      assert.deepEqual(second.body, first.body);
      assert.equal(await storeSearches(server, 'aladi2'), 1, 'served from the cache: the store was not asked again');
      assert.equal((await server.json('/api/v1/aladi2/?skip=1')).status, 200);
      assert.equal(await storeSearches(server, 'aladi2'), 2, 'another query is another answer');
    });

    test('a dataset loaded under a running service replaces the cached answers', async (t) => {
      const db = await database(t, kind);
      const server = await serve(t, { DATABASE_URL: db.url });
      const count = async (): Promise<number> => (await server.json<unknown[]>('/api/v1/aladi2/')).body.length;
      assert.equal(await count(), 8);
      assert.equal(await count(), 8);
      const fill = firstRecords(3);
      await writeDatabase(db.url, 'second load', fill);
      await waitFor('the new data served, not the cached answer', async () => (await count()) === 3);
    });
  });
}

describe('answers written from the cache', () => {
  test('carry what the first answer did, count against the rate limit, and still give 304 and compression', async (t) => {
    const db = await database(t, 'sqlite');
    const server = await serve(t, { DATABASE_URL: db.url, RATE_LIMIT_MAX: '1000' });
    const auth = { authorization: `Bearer ${server.token}` };
    const call = async (path: string, headers: Record<string, string> = {}) => {
      const response = await server.get(path, { ...auth, ...headers });
      return { response, body: await response.text() };
    };
    const first = await call('/api/v1/aladi2/5');
    const second = await call('/api/v1/aladi2/5');
    assert.equal(first.response.status, 200);
    assert.equal(second.response.status, 200);
    assert.equal(second.body, first.body);
    for (const name of ['etag', 'cache-control', 'content-type', 'content-security-policy', 'x-content-type-options', 'ratelimit-limit']) {
      assert.equal(second.response.headers.get(name), first.response.headers.get(name), name);
    }
    assert.ok(second.response.headers.get('etag'), 'an ETag');
    assert.equal(Number(second.response.headers.get('content-length')), Buffer.byteLength(second.body));
    assert.notEqual(second.response.headers.get('x-request-id'), first.response.headers.get('x-request-id'), 'an id of its own');
    const remaining = (r: Response): number => Number(r.headers.get('ratelimit-remaining'));
    assert.equal(remaining(second.response), remaining(first.response) - 1, 'counted like any other request');

    const etag = second.response.headers.get('etag')!;
    const revalidated = await call('/api/v1/aladi2/5', { 'if-none-match': etag });
    assert.equal(revalidated.response.status, 304);
    assert.equal(revalidated.body, '');

    // The same question asked in other words shares the answer; a body worth compressing is compressed every time.
    const page = await call('/api/v1/aladi2/?skip=0&limit=100', { 'accept-encoding': 'gzip' });
    const reordered = await call('/api/v1/aladi2/?limit=100&skip=0', { 'accept-encoding': 'gzip' });
    const again = await call('/api/v1/aladi2/?limit=100&skip=0', { 'accept-encoding': 'gzip' });
    assert.equal(reordered.response.headers.get('etag'), page.response.headers.get('etag'));
    assert.equal(await storeSearches(server, 'aladi2'), 1, 'one search of the store for the three calls');
    assert.ok(Buffer.byteLength(again.body) >= 1024, 'a body worth compressing');
    assert.equal(again.response.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(JSON.parse(again.body), JSON.parse(page.body));
  });
});

describe('responses written by the fast path', () => {
  test('are logged, counted in the metrics and refused past the rate limit as the first answer was; a client request id is kept', async (t) => {
    const db = await database(t, 'sqlite');
    const { app, base, log: out } = await serveWithLog(t, { DATABASE_URL: db.url, LOG_LEVEL: 'info', RATE_LIMIT_MAX: '4' });
    const { access_token: token } = (await (await login(base, TEST_USER, TEST_PASSWORD)).json()) as { access_token: string };
    const call = async (headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}/api/v1/aladi2/5`, { headers: { authorization: `Bearer ${token}`, ...headers } });
      await response.arrayBuffer();
      return response;
    };
    const answers = [await call(), await call(), await call({ 'x-request-id': 'trace-4711.a' }), await call(), await call()];
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 200, 429],
      'four answers within the limit of four, the fifth refused',
    );
    assert.deepEqual(
      answers.map((r) => r.headers.get('ratelimit-remaining')),
      ['3', '2', '1', '0', '0'],
    );
    assert.ok(answers[4]!.headers.get('retry-after'), 'the refusal says when to come back');
    assert.equal(answers[2]!.headers.get('x-request-id'), 'trace-4711.a', "the client's request id is the answer's");

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const counted = (status: number): number =>
      Number(new RegExp(`^http_requests_total\\{method="GET",route="/api/v1/aladi2/:sysid",status="${status}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    assert.equal(counted(200), 4, 'every answer counted, cached or not');
    assert.equal(counted(429), 1);

    await app.close();
    const lines = out.lines().filter((l) => l['msg'] === 'request' && l['route'] === '/api/v1/aladi2/:sysid');
    assert.equal(lines.length, 5, 'one line per request');
    const shape = (line: Record<string, unknown>) => Object.keys(line).sort().join(',');
    const [computed, cached] = [lines[0]!, lines[1]!];
    assert.equal(shape(cached), shape(computed), 'a cached answer is logged with the fields of a computed one');
    for (const line of lines.slice(0, 4)) {
      assert.equal(line['status'], 200);
      assert.equal(line['user'], TEST_USER);
      assert.equal(typeof line['ms'], 'number');
    }
    assert.equal(lines[2]!['reqId'], 'trace-4711.a');
    assert.equal(new Set(lines.map((l) => l['reqId'])).size, 5, 'each request an id of its own');
    assert.equal(lines[4]!['status'], 429);
  });

  test('a lookup never answered before gets the answer, headers, log line and count the route gives, the cache on or off', async (t) => {
    for (const entries of ['0', '500']) {
      const db = await database(t, 'sqlite');
      const {
        app,
        base,
        log: out,
      } = await serveWithLog(t, { DATABASE_URL: db.url, LOG_LEVEL: 'info', RESPONSE_CACHE_ENTRIES: entries, RATE_LIMIT_MAX: '100' });
      const { access_token: token } = (await (await login(base, TEST_USER, TEST_PASSWORD)).json()) as { access_token: string };
      const call = async (path: string) => {
        const response = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
        return { response, text: await response.text() };
      };
      const names = (r: Response) => [...r.headers.keys()].filter((n) => n !== 'date' && n !== 'x-request-id').join(',');
      // The first lookup of the route, then others never asked: each answered in full, as the first was.
      const first = await call('/api/v1/aladi2/5');
      assert.equal(first.response.status, 200);
      const rows = [first];
      for (const id of [6, 7, 5, 6]) rows.push(await call(`/api/v1/aladi2/${id}`));
      for (const row of rows) {
        assert.equal(row.response.status, 200);
        assert.equal(names(row.response), names(first.response), `cache entries ${entries}: the same headers`);
        assert.ok((JSON.parse(row.text) as { SYSID: number }).SYSID > 0, 'a record');
      }
      assert.equal(rows[3]!.text, first.text, 'the same record, the same bytes');
      assert.equal(rows[3]!.response.headers.get('etag'), first.response.headers.get('etag'));
      assert.notEqual(rows[1]!.response.headers.get('etag'), first.response.headers.get('etag'));
      assert.equal(rows[4]!.text, rows[1]!.text);
      assert.deepEqual(
        rows.map((r) => Number(r.response.headers.get('ratelimit-remaining'))),
        [99, 98, 97, 96, 95],
        'each lookup counted once against the limit',
      );

      // What the route does not answer with a 200 is answered as the route answers it, counted once.
      const lookups = async (): Promise<number> => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return Number(/^store_query_duration_seconds_count\{record_set="aladi2",operation="lookup"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      assert.equal(await lookups(), entries === '0' ? 5 : 3, 'the store asked once per lookup not kept');
      const missing = await call('/api/v1/aladi2/999999');
      assert.equal(await lookups(), entries === '0' ? 6 : 4, 'a lookup that finds nothing asks the store once');
      assert.equal(missing.response.status, 404);
      assert.deepEqual(Object.keys(JSON.parse(missing.text) as object), ['detail']);
      assert.equal(missing.response.headers.get('ratelimit-remaining'), '94', 'a lookup that finds nothing is counted once');
      const bad = await call('/api/v1/aladi2/abc');
      assert.equal(bad.response.status, 422);
      assert.equal((JSON.parse(bad.text) as { detail: { loc: string[] }[] }).detail[0]!.loc.join('.'), 'path.sysid');
      assert.equal((await call('/api/v1/aladi2/6/')).text, rows[1]!.text, 'a trailing slash is the same lookup, as the router has it');
      // A fixed path beside a lookup's parameter is its own route (a search), whichever was asked first.
      await call('/api/v1/fundamentos-tlc/1');
      const fixed = await call('/api/v1/fundamentos-tlc/tipat');
      assert.equal(fixed.response.status, 200);
      assert.ok(Array.isArray(JSON.parse(fixed.text)), 'the search of the fixed path, not a lookup of "tipat"');
      const unknownToken = await fetch(`${base}/api/v1/aladi2/8`, { headers: { authorization: 'Bearer nonsense' } });
      assert.equal(unknownToken.status, 401);

      await app.close();
      const lines = out.lines().filter((l) => l['msg'] === 'request' && l['route'] === '/api/v1/aladi2/:sysid');
      assert.deepEqual(
        lines.map((l) => l['status']),
        [200, 200, 200, 200, 200, 404, 422, 200, 401],
        `cache entries ${entries}: one line per request, with its status`,
      );
      const shape = (line: Record<string, unknown>) => Object.keys(line).sort().join(',');
      for (const line of lines.slice(1, 5)) assert.equal(shape(line), shape(lines[0]!), 'logged with the fields of the first answer');
    }
  });

  test('an answer as of a date comes from the version in force that day, cached or not', async (t) => {
    const db = await database(t, 'sqlite');
    await writeDatabase(db.url, 'a later version', firstRecords(3), { vigenteDesde: '2099-01-01' });
    const server = await serve(t, { DATABASE_URL: db.url });
    const asked = async (path: string) => {
      const { body, response } = await server.json<unknown[]>(path);
      return { rows: body.length, version: response.headers.get('x-dataset-version') };
    };
    const twice: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      assert.equal((await asked('/api/v1/aladi2/')).rows, 8, 'today: the version in force');
      const later = await asked('/api/v1/aladi2/?as_of=2099-06-01');
      assert.equal(later.rows, 3, 'as of a later date: the version loaded ahead');
      assert.match(later.version ?? '', /^2099-01-01\./);
      twice.push(await asked('/api/v1/aladi2/?as_of=2099-06-01&as_of=2000-01-01'));
    }
  });
});

describe('compressed answers', () => {
  /** A GET as the bytes arrive, not decoded as fetch would. */
  function raw(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      httpGet(base + path, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      }).on('error', reject);
    });
  }

  test('are compressed once and kept: the same bytes every time, in the coding the client prefers, or none as it asks', async (t) => {
    const db = await database(t, 'sqlite');
    const server = await serve(t, { DATABASE_URL: db.url });
    const auth = { authorization: `Bearer ${server.token}` };
    const path = '/api/v1/aladi2/?limit=100';
    const plain = await raw(server.base, path, auth);
    assert.ok(plain.body.length >= 1024, 'a body worth compressing');
    assert.equal(plain.headers['content-encoding'], undefined);
    const decode = { br: brotliDecompressSync, gzip: gunzipSync } as const;
    const asked: [string, 'br' | 'gzip' | undefined][] = [
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['x-gzip', 'gzip'],
      ['*', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
    ];
    for (const [accepted, coding] of asked) {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await raw(server.base, path, { ...auth, 'accept-encoding': accepted }));
      for (const a of answers) {
        assert.equal(a.status, 200);
        assert.equal(a.headers['content-encoding'], coding, accepted);
        assert.equal(a.headers['etag'], plain.headers['etag'], 'one entity tag for the answer in any coding');
        assert.equal(Number(a.headers['content-length']), a.body.length, 'the length of the bytes sent');
        assert.deepEqual(coding === undefined ? a.body : decode[coding](a.body), plain.body, `${accepted}: decodes to the answer`);
        if (coding !== undefined) assert.equal(a.headers['vary'], 'accept-encoding');
      }
      assert.deepEqual(answers[2]!.body, answers[0]!.body, `${accepted}: the same bytes each time`);
    }
    const refused = await raw(server.base, path, { ...auth, 'accept-encoding': 'gzip', 'x-no-compression': '1' });
    assert.equal(refused.headers['content-encoding'], undefined, 'X-No-Compression turns compression off');
    assert.deepEqual(refused.body, plain.body);
  });
});

describe('a client holding the answer', () => {
  test("gets a 304 with the answer's headers and no body, cached or not, in any coding, counted as a 304; another tag gets the answer", async (t) => {
    const db = await database(t, 'sqlite');
    const server = await serve(t, { DATABASE_URL: db.url });
    const auth = { authorization: `Bearer ${server.token}` };
    const first = await server.get('/api/v1/aladi2/?limit=100', auth);
    const body = await first.text();
    const etag = first.headers.get('etag')!;
    for (const held of [etag, `W/${etag}`]) {
      const extras: Record<string, string>[] = [{}, { 'accept-encoding': 'gzip, br' }];
      for (const extra of extras) {
        for (let i = 0; i < 3; i++) {
          const again = await server.get('/api/v1/aladi2/?limit=100', { ...auth, ...extra, 'if-none-match': held });
          assert.equal(again.status, 304, `${held} ${JSON.stringify(extra)}`);
          assert.equal(await again.text(), '');
          assert.equal(again.headers.get('etag'), etag);
          for (const name of ['cache-control', 'x-dataset-version', 'x-request-id', 'content-security-policy']) {
            assert.ok(again.headers.get(name), `${name} on the 304`);
          }
          assert.equal(again.headers.get('content-encoding'), null);
        }
      }
    }
    const other = await server.get('/api/v1/aladi2/?limit=100', { ...auth, 'if-none-match': '"another"' });
    assert.equal(other.status, 200);
    assert.equal(await other.text(), body);
    const metrics = await (await server.get('/metrics')).text();
    assert.match(metrics, /^http_requests_total\{method="GET",route="\/api\/v1\/aladi2\/",status="304"\} 12$/m, 'every 304 counted as one');
  });
});

describe('import into PostgreSQL', () => {
  test('tariff-lookup import loads an exported folder into PostgreSQL in one go, and a running service serves it', async (t) => {
    if (!(await storeKinds()).includes('postgres')) return t.skip('PostgreSQL is not reachable');
    const source = await database(t, 'sqlite');
    const target = await database(t, 'postgres', firstRecords(2));
    const folder = temporary(t);
    const server = await serve(t, { DATABASE_URL: target.url });
    // The test server trusts local connections, so a password in the URL is accepted and ignored:
    // enough to prove that the command never prints it.
    const secret = 'import-secret-4711';
    const withPassword = new URL(target.url);
    withPassword.password = secret;
    const run = (args: string[], url: string) => cliInProcess(args, { ...TEST_ENV, DATABASE_URL: url });
    const exported = await run(['export', join(folder, 'csv')], source.url);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal((await server.json<unknown[]>('/api/v1/tlcs/')).body.length, 2);
    const imported = await run(['import', join(folder, 'csv'), '--source', 'fixture export'], withPassword.toString());
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /rows\/s/);
    assert.match(imported.stdout + imported.stderr, /postgres:\*\*\*@/, 'the database is named, its password hidden');
    assert.ok(!(imported.stdout + imported.stderr).includes(secret), 'no password shown');
    await waitFor('the imported data served', async () => (await server.json<unknown[]>('/api/v1/tlcs/')).body.length === 8);
    const health = (await server.json<{ dataset: { source: string } }>('/health')).body;
    assert.equal(health.dataset.source, 'fixture export');
    assert.equal((await server.json('/api/v1/auth/me')).status, 200, 'users survive the load');
  });
});

/**
 * Property-based fuzzing of every route with random and hostile paths, query strings, headers and
 * login bodies: never a 500, always one of the contract's shapes. SQL injection attempts in every
 * parameter have no effect beyond a 422 or an empty or ordinary result.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { recordSets } from '../src/record-sets/index.js';
import type { Running } from './servers.js';
import { tempDir } from './lifetime.js';
import { writeFixtureDatabase } from './databases.js';
import { startServer } from './servers.js';
import { assertNoInternals } from './clients.js';

let server: Running;
const tmp = tempDir();
const path = join(tmp.dir, 'fuzz.sqlite');

before(async () => {
  await writeFixtureDatabase(path);
  server = await startServer({ DATABASE_URL: `sqlite:${path}`, LOGIN_MAX_FAILURES: '100000', LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' });
});

after(async () => {
  await server.close();
  tmp.remove();
});

const HOSTILE = [
  "'",
  '"',
  "' OR '1'='1",
  '1; DROP TABLE aladi2; --',
  "0101' UNION SELECT * FROM users --",
  '%',
  '_',
  '*',
  '\\',
  '\u0000',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '１２３４５６７８',
  '🙂',
  ' ',
  '.',
  '0101.21.01.00.00',
  '-1',
  '1e309',
  'NaN',
  '0x10',
];

const value = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 40 }), fc.stringMatching(/^[0-9. ]{0,14}$/), fc.integer().map(String));
const paramNames = [...new Set(recordSets.flatMap((rs) => rs.filters.map((f) => f.param))), 'skip', 'limit', 'q', 'fraccion[]', '__proto__', 'constructor'];

/** What a client may see: the contract's shapes only. */
function assertContractShape(status: number, body: unknown, what: string): void {
  assert.notEqual(status, 500, what);
  assert.ok([200, 304, 400, 401, 404, 405, 413, 422, 429].includes(status), `${what}: ${status}`);
  if (status === 200) return;
  assert.ok(body !== null && typeof body === 'object' && 'detail' in body, `${what}: ${JSON.stringify(body)}`);
  const detail = body.detail;
  if (status === 422) {
    assert.ok(Array.isArray(detail), what);
    for (const d of detail as Record<string, unknown>[]) {
      assert.equal(typeof d['type'], 'string');
      assert.ok(Array.isArray(d['loc']));
      assert.equal(typeof d['msg'], 'string');
    }
  } else {
    assert.equal(typeof detail, 'string', what);
  }
}

/** `path` requested (as the test user when `authed`), its answer parsed: it shows nothing of the service's insides. */
async function call(path: string, init: RequestInit = {}, authed = false): Promise<{ status: number; body: unknown }> {
  const response = await (authed ? server.authed.fetch(path, init) : fetch(server.base + path, init));
  const text = await response.text();
  assertNoInternals(text, path);
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

describe('fuzz', () => {
  test('random and hostile query strings on every search', async () => {
    const paths = recordSets.flatMap((rs) => [`/api/v1/${rs.path}/`, ...rs.fixedSearches.map((s) => `/api/v1/${rs.path}/${s.segment}`)]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.array(fc.tuple(fc.constantFrom(...paramNames), value), { maxLength: 4 }), async (path, pairs) => {
        const query = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const { status, body } = await call(`${path}?${query}`, {}, true);
        assertContractShape(status, body, `${path}?${query}`);
        if (status === 200) {
          const items = Array.isArray(body) ? body : (body as { items: unknown[] }).items;
          assert.ok(Array.isArray(items));
        }
      }),
      { numRuns: 400 },
    );
  });

  test('random and hostile path segments on every lookup and beyond', async () => {
    const prefixes = [...recordSets.map((rs) => `/api/v1/${rs.path}/`), '/api/v1/', '/', '/api/v1/tlcs/1/'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...prefixes), value, fc.constantFrom('', '/', '/x', '?a=b'), async (prefix, segment, suffix) => {
        const path = `${prefix}${encodeURIComponent(segment)}${suffix}`;
        const { status, body } = await call(path, {}, true);
        assertContractShape(status, body, path);
      }),
      { numRuns: 300 },
    );
  });

  test('random and hostile Authorization headers are 401, never anything worse', async () => {
    const header = fc.oneof(
      fc.constantFrom(...HOSTILE).map((v) => `Bearer ${v}`),
      fc.string({ maxLength: 60 }).map((v) => `Bearer ${v}`),
      fc.string({ maxLength: 60 }),
      fc.base64String({ maxLength: 200 }).map((v) => `Bearer ${v}.${v}.${v}`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        let headers: Record<string, string>;
        try {
          headers = { authorization: new Headers({ authorization: value }).get('authorization') ?? '' };
        } catch {
          return; // not a value HTTP can carry
        }
        const { status, body } = await call('/api/v1/cupos/', { headers });
        assert.equal(status, 401, value);
        assertContractShape(status, body, value);
      }),
      { numRuns: 300 },
    );
  });

  test('random and hostile login bodies are 401 or 422, never a 500, never a hint', async () => {
    const body = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.json(),
      fc.record({ username: fc.oneof(value, fc.integer(), fc.constant(null)), password: fc.oneof(value, fc.boolean()) }).map((o) => JSON.stringify(o)),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (text, type) => {
        const { status, body: answer } = await call('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': type }, body: text });
        assert.ok([401, 422].includes(status), `${type} ${text}: ${status}`);
        assertContractShape(status, answer, text);
        if (status === 401) assert.deepEqual(answer, { detail: 'Incorrect username or password' });
      }),
      { numRuns: 150 },
    );
  });

  test('injection attempts change nothing: the data is the same afterwards', async () => {
    // Read from the file itself: /health's hash is the one recorded at the load, and answers may come from the cache.
    const everything = (): Record<string, unknown[]> => {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        const tables = [...recordSets.map((rs) => rs.table), 'users'];
        return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all()]));
      } finally {
        db.close();
      }
    };
    const before = everything();
    for (const rs of recordSets) assert.equal(before[rs.table]?.length, 8, rs.table);
    assert.equal(before['users']?.length, 1);
    for (const rs of recordSets) {
      for (const attempt of HOSTILE) {
        for (const f of rs.filters) await call(`/api/v1/${rs.path}/?${f.param}=${encodeURIComponent(attempt)}`, {}, true);
      }
    }
    assert.deepEqual(everything(), before);
    const served = await server.json<unknown[]>('/api/v1/aladi2/?limit=1000');
    assert.equal(served.body.length, 8);
  });
});

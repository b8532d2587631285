/**
 * Table-driven over the registry: for every record set, over real HTTP against a real database of each
 * store kind, search returns the records in the contract's shape and order, every filter narrows as
 * the contract says (checked against a plain model of the rules), paging and bounds behave, lookups
 * find and 404.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Filter, RecordSet } from '../src/record-sets/define.js';
import { recordSets } from '../src/record-sets/index.js';
import type { FixtureRecord } from './fixtures.js';
import { fixtureRecords } from './fixtures.js';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';

const byKey =
  (rs: RecordSet) =>
  (a: FixtureRecord, b: FixtureRecord): number => {
    for (const k of rs.key) {
      const x = a[k]!;
      const y = b[k]!;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };

const sorted = (rs: RecordSet, records: FixtureRecord[]): FixtureRecord[] => [...records].sort(byKey(rs));

/** The contract's matching rules, written plainly, to compare the service against. */
function matches(filter: Filter, raw: string, r: FixtureRecord): boolean {
  const v = r[filter.field];
  switch (filter.rule) {
    case 'fraction': {
      const d = raw.replace(/[.\s]/g, '');
      if (typeof v !== 'string') return false;
      if (d.length === 10) return v === d.slice(0, 8) && r[filter.nicoField] === d.slice(8);
      return d.length === 8 ? v === d : v.startsWith(d);
    }
    case 'us-fraction':
      return typeof v === 'string' && v.startsWith(raw.replace(/[.\s]/g, ''));
    case 'nico':
      return v === raw;
    case 'code':
      return typeof v === 'string' && v.toUpperCase() === raw.trim().toUpperCase();
    case 'int':
      return v === Number(raw);
  }
}

const SAMPLES: Record<Filter['rule'], string[]> = {
  fraction: ['01012101', '0101.21.01', '0101 21 01', '0101210101', '0101.21.01.00', '0101', '01', '8', '84713001', '99999999'],
  'us-fraction': ['0101', '0101.21.00.10', '0101210010', '847130', '8471.30', '9', '0101210020'],
  nico: ['00', '01', '99', '55'],
  code: ['usa', ' USA ', 'Can', 'XXI', 'XXIV', 'I', 'ZZZ'],
  int: ['1', '2', '3', '7'],
};

type Body = FixtureRecord[] | { items: FixtureRecord[]; total: number; skip: number; limit: number };
const itemsOf = (body: Body): FixtureRecord[] => (Array.isArray(body) ? body : body.items);

function searchPath(rs: RecordSet, query = ''): string {
  return `/api/v1/${rs.path}/${query ? `?${query}` : ''}`;
}

function recordSetSuites(server: () => Running): void {
  for (const rs of recordSets) {
    const records = fixtureRecords(rs);
    const all = sorted(rs, records);

    describe(`record set ${rs.path}`, () => {
      test('search without filters lists every record, in identifier order, every field present in order', async () => {
        const { status, body } = await server().json<Body>(searchPath(rs));
        assert.equal(status, 200);
        assert.equal(Array.isArray(body), !rs.paginated, 'paginated wrapper only for fracciones and fracciones-usa');
        const items = itemsOf(body);
        assert.deepEqual(items, all);
        for (const item of items)
          assert.deepEqual(
            Object.keys(item),
            rs.fields.map((f) => f.name),
          );
        if (!Array.isArray(body)) assert.deepEqual({ ...body, items: [] }, { items: [], total: all.length, skip: 0, limit: 100 });
      });

      test('decimals are strings with their scale, integers are numbers, empty fields null', async () => {
        const items = itemsOf((await server().json<Body>(searchPath(rs))).body);
        assert.ok(
          items.some((i) => Object.values(i).includes(null)),
          'empty fields are served as null',
        );
        for (const field of rs.fields) {
          const values = items.map((i) => i[field.name]);
          for (const v of values.filter((x) => x !== null)) {
            if (field.type.kind === 'int') assert.equal(typeof v, 'number');
            else assert.equal(typeof v, 'string');
            if (field.type.kind === 'dec') assert.match(String(v), new RegExp(`^-?\\d+\\.\\d{${field.type.scale}}$`));
          }
        }
      });

      test('the path answers the same with and without its trailing slash', async () => {
        const withSlash = await server().json(searchPath(rs, 'limit=3'));
        const without = await server().json(`/api/v1/${rs.path}?limit=3`);
        assert.equal(without.status, 200);
        assert.deepEqual(without.body, withSlash.body);
      });

      for (const filter of rs.filters) {
        test(`filter ${filter.param} (${filter.rule}) narrows as the contract says`, async () => {
          for (const raw of SAMPLES[filter.rule]) {
            const { status, body } = await server().json<Body>(searchPath(rs, `${filter.param}=${encodeURIComponent(raw)}`));
            assert.equal(status, 200, `${filter.param}=${raw}`);
            const expected = all.filter((r) => matches(filter, raw, r));
            assert.deepEqual(itemsOf(body), expected, `${filter.param}=${raw}`);
            if (!Array.isArray(body)) assert.equal(body.total, expected.length);
          }
        });
      }

      test('an empty filter counts as not given, unknown parameters are ignored', async () => {
        const query = rs.filters.map((f) => `${f.param}=`).join('&');
        const { status, body } = await server().json<Body>(searchPath(rs, `${query}&colour=blue`));
        assert.equal(status, 200);
        assert.deepEqual(itemsOf(body), all);
      });

      test('skip and limit page through the ordered records', async () => {
        const { body } = await server().json<Body>(searchPath(rs, 'skip=2&limit=3'));
        assert.deepEqual(itemsOf(body), all.slice(2, 5));
        if (!Array.isArray(body)) assert.deepEqual([body.total, body.skip, body.limit], [all.length, 2, 3]);
        const past = await server().json<Body>(searchPath(rs, 'skip=100'));
        assert.deepEqual(itemsOf(past.body), []);
        if (!Array.isArray(past.body)) assert.equal(past.body.total, all.length);
      });

      test('bad skip and limit are 422 in FastAPI shape, never clamped', async () => {
        const cases: [string, string, string, Record<string, number> | undefined][] = [
          ['skip=-1', 'skip', 'greater_than_equal', { ge: 0 }],
          ['limit=0', 'limit', 'greater_than_equal', { ge: 1 }],
          ['limit=1001', 'limit', 'less_than_equal', { le: 1000 }],
          ['limit=abc', 'limit', 'int_parsing', undefined],
          ['skip=1.5', 'skip', 'int_parsing', undefined],
        ];
        for (const [query, name, type, ctx] of cases) {
          const { status, body } = await server().json<{ detail: Record<string, unknown>[] }>(searchPath(rs, query));
          assert.equal(status, 422, query);
          assert.equal(body.detail.length, 1);
          const [entry] = body.detail;
          assert.deepEqual(entry?.['loc'], ['query', name]);
          assert.equal(entry?.['type'], type);
          assert.equal(entry?.['input'], query.split('=')[1]);
          assert.equal(typeof entry?.['msg'], 'string');
          assert.deepEqual(entry?.['ctx'], ctx);
        }
        const both = await server().json<{ detail: unknown[] }>(searchPath(rs, 'skip=-5&limit=5000'));
        assert.equal(both.body.detail.length, 2, 'one entry per failing parameter');
      });

      test('lookup by identifier returns the record; an unknown one is 404 naming the record set', async () => {
        for (const record of records) {
          const key = rs.key.map((k) => encodeURIComponent(String(record[k]))).join('/');
          const { status, body } = await server().json(`/api/v1/${rs.path}/${key}`);
          assert.equal(status, 200);
          assert.deepEqual(body, record);
        }
        const missing = rs.key.map((k) => (k === 'FRACCION' ? '01012101' : '999999')).join('/');
        const { status, body } = await server().json(`/api/v1/${rs.path}/${missing}`);
        assert.equal(status, 404);
        assert.deepEqual(body, { detail: `${rs.label} record not found` });
      });

      test('a lookup identifier that is not an integer is 422 on the path', async () => {
        const rest = rs.key.length > 1 ? '/01012101' : '';
        const { status, body } = await server().json<{ detail: Record<string, unknown>[] }>(`/api/v1/${rs.path}/abc${rest}`);
        assert.equal(status, 422);
        assert.deepEqual(body.detail[0]?.['loc'], ['path', rs.key[0]!.toLowerCase()]);
        assert.equal(body.detail[0]?.['type'], 'int_parsing');
      });
    });
  }
}

for (const kind of await storeKinds()) {
  describe(`${kind} store`, () => {
    let server: Running;
    serveFixture(kind, {}, (running) => (server = running));
    recordSetSuites(() => server);
  });
}

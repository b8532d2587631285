/**
 * The two stores answer identically: the same rows, loaded into SQLite and into PostgreSQL, give the
 * same records, in the same order, for every kind of condition the routes build. The rows are chosen
 * to find where engines differ: case beyond ASCII, punctuation and spaces inside codes, accents
 * precomposed and combining, characters outside the BMP, LIKE wildcards, decimals at the edges of their
 * precision, integers beyond 32 bits; and the PostgreSQL database has a linguistic default collation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { recordToRow } from '../../src/data/record-row.js';
import { checkValue } from '../../src/data/values.js';
import type { Field, Filter, RecordSet } from '../../src/record-sets/define.js';
import { recordSets } from '../../src/record-sets/index.js';
import { openStore } from '../../src/store/drivers.js';
import type { Condition } from '../../src/store/sql.js';
import type { DatasetWriter } from '../../src/store/store.js';
import type { Store } from '../../src/store/store.js';
import type { TestDatabase } from '../databases.js';
import { defer } from '../lifetime.js';
import { storeKinds } from '../stores.js';
import { createTestDatabase, fillDemo } from '../databases.js';

const TEXTS = [
  '01012101',
  '0101210',
  '0101.21.01',
  '0101 21 01',
  '0101-21',
  'ABC',
  'abc',
  'Abc',
  'Ñandú',
  'ñandú',
  'NANDU',
  'ß',
  'SS',
  'ı',
  'I',
  'i',
  'é',
  'e\u0301',
  'É',
  '😀',
  '~',
  '%_',
  "O'Hara",
  'a"b\\c',
  ' lead',
  'trail ',
  'tab\there',
  'Z',
  'z',
  '\u00a0x',
  '[x]',
];
const PREFIXES = ['0', '01', '0101', '0101.', '0101 ', '01012', 'A', 'a', 'Ñ', 'ñ', 'N', 'e', 'é', '😀', '~', '%', '_', 'Z', 'z', ' '];
const INTS = [0, -1, 1, 2147483647, 2147483648, 9007199254740991, -9007199254740991];

const chars = (s: string, n: number): string => Array.from(s).slice(0, n).join('');

/** The first of `candidates` the field accepts, as import would store it. */
function storable(field: Field, candidates: readonly unknown[]): string | number | null {
  for (const c of candidates) {
    const checked = checkValue(field, c);
    if (checked.ok) return checked.value;
  }
  return null;
}

function decimals(p: number, s: number): string[] {
  const max = `${'9'.repeat(p - s)}${s > 0 ? `.${'9'.repeat(s)}` : ''}`;
  return ['0', '-0.5', '0.05', '1', max, `-${max}`, '10', `0.${'0'.repeat(Math.max(0, s - 1))}1`];
}

function value(rs: RecordSet, field: Field, i: number, f: number): string | number | null {
  if (i % 7 === 6 && !rs.key.includes(field.name)) return null;
  const t = field.type;
  switch (t.kind) {
    case 'int':
      return INTS[(i + f) % INTS.length] ?? null;
    case 'dec':
      return storable(field, [decimals(t.precision, t.scale)[(i + f) % 8]]);
    case 'date8':
      return `2024${String((i % 12) + 1).padStart(2, '0')}15`;
    case 'str':
      return chars(TEXTS[(i + f) % TEXTS.length]!, t.length) || null;
    case 'text':
      return i === 0 ? 'ñ'.repeat(10000) : `${TEXTS[(i + f) % TEXTS.length]!} ${TEXTS[(i * 3) % TEXTS.length]!}`;
  }
}

/**
 * Rows for every record set: identifiers spread over the 64-bit range; in composite keys few values
 * of the first part, so that the order of the text part decides.
 */
function trickyRows(rs: RecordSet): (string | number | null)[][] {
  const rows = new Map<string, (string | number | null)[]>();
  for (let i = 0; i < TEXTS.length * 2; i++) {
    const row = rs.fields.map((field, f) => {
      if (field.name === rs.key[0]) return rs.key.length > 1 ? i % 3 : (i % 2 === 0 ? 1 : -1) * (i * 1_000_003 + (i % 5 === 0 ? 2 ** 40 : 0));
      return value(rs, field, i, f);
    });
    const id = JSON.stringify(rs.key.map((k) => row[rs.fields.findIndex((x) => x.name === k)]));
    if (!row.some((v, f) => v === null && rs.key.includes(rs.fields[f]!.name))) rows.set(id, row);
  }
  return [...rows.values()];
}

function fillTricky(writer: DatasetWriter): void {
  for (const rs of recordSets) {
    for (const row of trickyRows(rs)) {
      const record = Object.fromEntries(rs.fields.map((f, i) => [f.name, row[i]]));
      writer.insert(rs, recordToRow(rs, record));
    }
  }
}

/** Every condition a filter of this rule can produce, with values meant to find differences. */
function conditionsOf(filter: Filter): Condition[] {
  switch (filter.rule) {
    case 'fraction': {
      const exact = TEXTS.map((t): Condition => ({ kind: 'eq', field: filter.field, value: t }));
      const prefix = PREFIXES.map((p): Condition => ({ kind: 'prefix', field: filter.field, value: p }));
      const dotted = filter.dottedField;
      const either = dotted
        ? PREFIXES.map((p): Condition => ({
            kind: 'or',
            any: [
              { kind: 'prefix', field: filter.field, value: p },
              { kind: 'prefix', field: dotted, value: p },
            ],
          }))
        : [];
      return [...exact, ...prefix, ...either, { kind: 'eq', field: filter.field, value: 'a\0b' }];
    }
    case 'us-fraction':
      return PREFIXES.map((p): Condition => ({ kind: 'prefix', field: filter.field, value: p }));
    case 'code':
      return [...TEXTS, 'a\0'].map((t): Condition => ({ kind: 'ci', field: filter.field, value: t.trim().toUpperCase() }));
    case 'nico':
      return TEXTS.map((t): Condition => ({ kind: 'eq', field: filter.field, value: chars(t, 2) }));
    case 'int':
      return INTS.map((n): Condition => ({ kind: 'eq', field: filter.field, value: n }));
  }
}

const kinds = await storeKinds();

if (kinds.includes('postgres')) {
  describe('the stores answer identically', () => {
    const dbs: TestDatabase[] = [];
    const stores: Store[] = [];

    before(async () => {
      for (const kind of kinds) {
        const db = await createTestDatabase(kind, fillTricky);
        dbs.push(db);
        stores.push(openStore(loadConfig({ DATABASE_URL: db.url })));
      }
    });

    after(async () => {
      for (const store of stores) await store.close();
      for (const db of dbs) await db.drop();
    });

    /** What every store answers to `ask`; the first (SQLite) is the reference. */
    async function same<T>(what: string, ask: (store: Store) => Promise<T>): Promise<void> {
      const [reference, ...others] = await Promise.all(stores.map(ask));
      for (const other of others) assert.deepEqual(other, reference, what);
    }

    test('the same content hash and counts', async () => {
      await same('dataset', async (s) => {
        const info = await s.dataset();
        return { hash: info?.hash, counts: info?.counts };
      });
    });

    for (const rs of recordSets) {
      test(`${rs.path}: every record, every page, every lookup`, async () => {
        await same('all', (s) => s.search(rs, { conditions: [], skip: 0, limit: 1000 }));
        for (const [skip, limit] of [
          [0, 1],
          [3, 5],
          [10, 1000],
          [1000, 10],
        ] as const) {
          await same(`skip ${skip} limit ${limit}`, (s) => s.search(rs, { conditions: [], skip, limit }));
        }
        await same('count', (s) => s.count(rs, []));
        for (const row of trickyRows(rs)) {
          const key = rs.key.map((k) => row[rs.fields.findIndex((f) => f.name === k)] as string | number);
          await same(`lookup ${JSON.stringify(key)}`, (s) => s.lookup(rs, key));
        }
        const absent = rs.key.map((k) => (rs.fields.find((f) => f.name === k)?.type.kind === 'int' ? 123456789 : 'a\0'));
        await same('absent lookup', (s) => s.lookup(rs, absent));
      });

      if (rs.filters.length === 0) continue;
      test(`${rs.path}: every filter`, async () => {
        const empty = rs.fields.map((f): Condition => ({ kind: 'null', field: f.name }));
        for (const filter of [...rs.filters, { rule: 'empty' as const, param: 'empty' }]) {
          for (const condition of filter.rule === 'empty' ? empty : conditionsOf(filter)) {
            const what = `${filter.param} ${JSON.stringify(condition)}`;
            await same(what, (s) => s.search(rs, { conditions: [condition], skip: 0, limit: 1000 }));
            await same(`count ${what}`, (s) => s.count(rs, [condition]));
          }
        }
      });
    }
  });

  describe('the demo dataset', () => {
    // Each store's copy of the demo database the run wrote once with that store's own writer (databases.ts).
    test('is stored identically: the same content hash and counts', async (t) => {
      const answers = [];
      for (const kind of kinds) {
        const db = await createTestDatabase(kind, fillDemo);
        const store = openStore(loadConfig({ DATABASE_URL: db.url }));
        defer(t, () => db.drop());
        defer(t, () => store.close());
        const info = await store.dataset();
        answers.push({ hash: info?.hash, counts: info?.counts });
      }
      assert.deepEqual(answers[1], answers[0]);
    });
  });
}

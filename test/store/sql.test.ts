/** SQL building, without a database: the exact text and bound values of every query shape. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { defineRecordSet, fields, int, str, text } from '../../src/record-sets/define.js';
import type { Condition } from '../../src/store/sql.js';
import {
  buildCount,
  buildCreateTable,
  buildIndexes,
  buildInsert,
  buildLookup,
  buildSearch,
  postgresDialect,
  prefixUpperBound,
  quote,
  sqliteDialect,
} from '../../src/store/sql.js';

/** A small record set of the usual shape: an identifier, a fraction with its NICO and dotted form, a country. */
const sample = defineRecordSet({
  path: 'muestra-uno',
  schema: 'MuestraUnoResponse',
  description: 'A record set for the tests of SQL building.',
  fields: fields({ SYSID: int(), FRACCION: str(8), FRACCIONPUNTO: str(10), NICO: str(2), PAIS: str(3), NOTAS: text() }),
  filters: [
    { param: 'fraccion', rule: 'fraction', field: 'FRACCION', dottedField: 'FRACCIONPUNTO', nicoField: 'NICO' },
    { param: 'nico', rule: 'nico', field: 'NICO' },
    { param: 'pais', rule: 'code', field: 'PAIS' },
    { param: 'otro_pais', rule: 'code', field: 'PAIS' },
  ],
  fixedSearches: [{ segment: 'usa', summary: 'Only the United States', where: { PAIS: 'USA' } }],
});

const composite = defineRecordSet({
  path: 'muestra-dos',
  schema: 'MuestraDosResponse',
  description: 'A record set identified by two fields.',
  fields: fields({ SYSID: int(), FRACCION: str(8), NOTAS: text() }),
  key: ['SYSID', 'FRACCION'],
  filters: [{ param: 'sysid', rule: 'int', field: 'SYSID' }],
});

const COLUMNS = '"SYSID", "FRACCION", "FRACCIONPUNTO", "NICO", "PAIS", "NOTAS"';

describe('quote', () => {
  test('wraps an identifier in double quotes and doubles any inside it', () => {
    assert.equal(quote('FRACCION'), '"FRACCION"');
    assert.equal(quote('a"b'), '"a""b"');
  });
});

describe('prefixUpperBound', () => {
  test('is the prefix with its last character raised by one', () => {
    assert.equal(prefixUpperBound('0101'), '0102');
    assert.equal(prefixUpperBound('0109'), '010:');
    assert.equal(prefixUpperBound('9'), ':');
  });

  test('every string starting with the prefix, and no other, lies in [prefix, bound)', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789.'), minLength: 0, maxLength: 12 });
    fc.assert(
      fc.property(
        digits.filter((p) => p.length > 0),
        digits,
        digits,
        (prefix, rest, other) => {
          const upper = prefixUpperBound(prefix);
          const inside = prefix + rest;
          assert.ok(inside >= prefix && inside < upper, `${inside} in [${prefix}, ${upper})`);
          if (!other.startsWith(prefix)) assert.ok(!(other >= prefix && other < upper), `${other} outside [${prefix}, ${upper})`);
        },
      ),
    );
  });
});

describe('buildSearch', () => {
  test('no condition: every column in declaration order, ordered by the identifier, paging bound last', () => {
    const q = buildSearch(sample, [], 20, 10, sqliteDialect);
    assert.equal(q.text, `SELECT ${COLUMNS} FROM "muestra_uno" ORDER BY "SYSID" LIMIT ? OFFSET ?`);
    assert.deepEqual(q.values, [10, 20]);
  });

  test('PostgreSQL placeholders are numbered in the order of the values, conditions joined with AND', () => {
    const conditions: Condition[] = [
      { kind: 'prefix', field: 'FRACCION', value: '0101' },
      { kind: 'eq', field: 'NICO', value: '00' },
      { kind: 'ci', field: 'PAIS', value: 'USA' },
    ];
    const q = buildSearch(sample, conditions, 0, 100, postgresDialect);
    assert.equal(
      q.text,
      `SELECT ${COLUMNS} FROM "muestra_uno" WHERE ("FRACCION" >= $1 AND "FRACCION" < $2) AND "NICO" = $3 AND UPPER("PAIS") = $4 ` +
        'ORDER BY "SYSID" LIMIT $5 OFFSET $6',
    );
    assert.deepEqual(q.values, ['0101', '0102', '00', 'USA', 100, 0]);
  });

  test('OR groups are parenthesised; a null test binds nothing', () => {
    const conditions: Condition[] = [
      {
        kind: 'or',
        any: [
          { kind: 'eq', field: 'NICO', value: '00' },
          { kind: 'null', field: 'NICO' },
        ],
      },
      { kind: 'eq', field: 'SYSID', value: 7 },
    ];
    const q = buildSearch(sample, conditions, 0, 5, postgresDialect);
    assert.match(q.text, / WHERE \("NICO" = \$1 OR "NICO" IS NULL\) AND "SYSID" = \$2 ORDER BY/);
    assert.deepEqual(q.values, ['00', 7, 5, 0]);
  });

  test("an OR's equalities on one field are one IN list, nested ORs flattened, the rest kept in order", () => {
    const conditions: Condition[] = [
      {
        kind: 'or',
        any: [
          {
            kind: 'or',
            any: [
              { kind: 'eq', field: 'FRACCION', value: '01012101' },
              { kind: 'eq', field: 'NICO', value: '00' },
            ],
          },
          { kind: 'null', field: 'NICO' },
          { kind: 'or', any: [{ kind: 'eq', field: 'FRACCION', value: '01012999' }] },
          { kind: 'prefix', field: 'FRACCION', value: '02' },
        ],
      },
    ];
    for (const [dialect, marks] of [
      [sqliteDialect, ['?', '?', '?', '?', '?', '?']],
      [postgresDialect, ['$1', '$2', '$3', '$4', '$5', '$6']],
    ] as const) {
      const q = buildSearch(sample, conditions, 0, 5, dialect);
      const [a, b, c, d] = marks;
      assert.ok(q.text.includes(` WHERE ("FRACCION" IN (${a}, ${b}) OR "NICO" = ${c} OR "NICO" IS NULL OR ("FRACCION" >= ${d} AND "FRACCION" < `), q.text);
      assert.deepEqual(q.values, ['01012101', '01012999', '00', '02', '03', 5, 0]);
    }
  });

  test('a value never reaches the SQL text, whatever it holds', () => {
    const hostile = `'; DROP TABLE "muestra_uno"; --`;
    for (const dialect of [sqliteDialect, postgresDialect]) {
      const q = buildSearch(
        sample,
        [
          { kind: 'eq', field: 'PAIS', value: hostile },
          { kind: 'prefix', field: 'FRACCION', value: hostile },
        ],
        0,
        1,
        dialect,
      );
      assert.ok(!q.text.includes('DROP'), q.text);
      assert.deepEqual(q.values.slice(0, 2), [hostile, hostile]);
    }
  });

  test('a composite identifier orders by each of its fields in turn', () => {
    assert.match(buildSearch(composite, [], 0, 1, sqliteDialect).text, / ORDER BY "SYSID", "FRACCION" LIMIT/);
  });
});

describe('buildCount', () => {
  test('the same conditions and values as the search, without paging or order', () => {
    const conditions: Condition[] = [{ kind: 'prefix', field: 'FRACCION', value: '84' }];
    const count = buildCount(sample, conditions, postgresDialect);
    assert.equal(count.text, 'SELECT COUNT(*) AS "total" FROM "muestra_uno" WHERE ("FRACCION" >= $1 AND "FRACCION" < $2)');
    assert.deepEqual(count.values, ['84', '85']);
    assert.deepEqual(buildCount(sample, [], sqliteDialect), { text: 'SELECT COUNT(*) AS "total" FROM "muestra_uno"', values: [] });
  });
});

describe('buildLookup and buildInsert', () => {
  test('a lookup binds the identifier fields in key order', () => {
    assert.equal(buildLookup(composite, postgresDialect), 'SELECT "SYSID", "FRACCION", "NOTAS" FROM "muestra_dos" WHERE "SYSID" = $1 AND "FRACCION" = $2');
    assert.equal(buildLookup(sample, sqliteDialect), `SELECT ${COLUMNS} FROM "muestra_uno" WHERE "SYSID" = ?`);
  });

  test('an insert has one placeholder per field, in declaration order', () => {
    assert.equal(buildInsert(composite, postgresDialect), 'INSERT INTO "muestra_dos" ("SYSID", "FRACCION", "NOTAS") VALUES ($1, $2, $3)');
    assert.equal(buildInsert(sample, sqliteDialect), `INSERT INTO "muestra_uno" (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`);
  });
});

describe('buildCreateTable', () => {
  test('the column type comes from the dialect; identifier fields are NOT NULL and the primary key', () => {
    const ddl = buildCreateTable(composite, (f) => (f.type.kind === 'int' ? 'INTEGER' : 'TEXT'));
    assert.equal(
      ddl,
      'CREATE TABLE "muestra_dos" (\n  "SYSID" INTEGER NOT NULL,\n  "FRACCION" TEXT NOT NULL,\n  "NOTAS" TEXT,\n  PRIMARY KEY ("SYSID", "FRACCION")\n)',
    );
  });
});

describe('buildIndexes', () => {
  test('one index per filtered field: fraction with its NICO, its dotted form, upper-cased codes, fixed searches', () => {
    assert.deepEqual(buildIndexes(sample), [
      'CREATE INDEX "muestra_uno_fraccion" ON "muestra_uno" ("FRACCION", "NICO")',
      'CREATE INDEX "muestra_uno_fraccionpunto" ON "muestra_uno" ("FRACCIONPUNTO")',
      'CREATE INDEX "muestra_uno_nico" ON "muestra_uno" ("NICO")',
      'CREATE INDEX "muestra_uno_pais" ON "muestra_uno" (UPPER("PAIS"))',
      'CREATE INDEX "muestra_uno_usa" ON "muestra_uno" ("PAIS")',
    ]);
  });
});

/** The filter rules as pure functions: the conditions a value puts on columns, and the indexes behind them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Filter, FractionFilter } from '../../src/record-sets/define.js';
import { date8, defineRecordSet, fields, int, str } from '../../src/record-sets/define.js';
import { dotted } from '../../src/fraccion.js';
import { filterConditions, filterIndexes, filterRules, searchConditions } from '../../src/record-sets/filters.js';
import { recordSets } from '../../src/record-sets/index.js';

const byFraction: FractionFilter = { param: 'fraccion', rule: 'fraction', field: 'FRACCION', nicoField: 'NICO' };
const withDots: FractionFilter = { ...byFraction, field: 'SIN', dottedField: 'CON' };

describe('fraction rule', () => {
  test('8 digits find that fraction, 10 that fraction and NICO, fewer every fraction starting with them', () => {
    assert.deepEqual(filterConditions(byFraction, '01012101'), [{ kind: 'eq', field: 'FRACCION', value: '01012101' }]);
    assert.deepEqual(filterConditions(byFraction, '0101210100'), [
      { kind: 'eq', field: 'FRACCION', value: '01012101' },
      { kind: 'eq', field: 'NICO', value: '00' },
    ]);
    assert.deepEqual(filterConditions(byFraction, '0101'), [{ kind: 'prefix', field: 'FRACCION', value: '0101' }]);
  });

  test('a code held both ways is matched on either form, the dotted one written with its dots', () => {
    assert.deepEqual(filterConditions(withDots, '01012'), [
      {
        kind: 'or',
        any: [
          { kind: 'prefix', field: 'SIN', value: '01012' },
          { kind: 'prefix', field: 'CON', value: '0101.2' },
        ],
      },
    ]);
    assert.deepEqual(filterConditions(withDots, '2203000105'), [
      {
        kind: 'or',
        any: [
          { kind: 'eq', field: 'SIN', value: '22030001' },
          { kind: 'eq', field: 'CON', value: '2203.00.01' },
        ],
      },
      { kind: 'eq', field: 'NICO', value: '05' },
    ]);
  });

  test('dots go where the fraction form puts them, for a whole code and for any prefix', () => {
    assert.equal(dotted('01012101'), '0101.21.01');
    assert.equal(dotted('0101'), '0101');
    assert.equal(dotted('01012'), '0101.2');
    assert.equal(dotted('0101210'), '0101.21.0');
    assert.equal(dotted('0101210100'), '0101.21.01.00', 'the NICO a group of its own');
  });
});

describe('the other rules', () => {
  test('a US code is a prefix, a code is compared case-insensitively, NICO and integers exactly', () => {
    assert.deepEqual(filterConditions({ param: 'f', rule: 'us-fraction', field: 'US' }, '010121'), [{ kind: 'prefix', field: 'US', value: '010121' }]);
    assert.deepEqual(filterConditions({ param: 'pais', rule: 'code', field: 'PAIS' }, 'USA'), [{ kind: 'ci', field: 'PAIS', value: 'USA' }]);
    assert.deepEqual(filterConditions({ param: 'nico', rule: 'nico', field: 'NICO' }, '01'), [{ kind: 'eq', field: 'NICO', value: '01' }]);
    assert.deepEqual(filterConditions({ param: 'nivel', rule: 'int', field: 'NIVEL' }, 3), [{ kind: 'eq', field: 'NIVEL', value: 3 }]);
  });

  test('every rule tells a client what its parameter does', () => {
    for (const [rule, spec] of Object.entries(filterRules)) {
      const filter = { param: 'p', rule, field: 'F', nicoField: 'N' } as Filter;
      assert.ok((spec.describe as (f: Filter) => string)(filter).length > 10, rule);
    }
  });
});

describe('a search', () => {
  const rs = defineRecordSet({
    path: 'sample',
    schema: 'SampleResponse',
    description: 'A sample.',
    fields: fields({ FRACCION: str(10), PAIS: str(3), NICO: str(2), DOF: date8(), SYSID: int() }),
    filters: [byFraction, { param: 'pais', rule: 'code', field: 'PAIS' }, { param: 'nico', rule: 'nico', field: 'NICO' }],
  });

  test('ANDs the filters given a value, in declaration order, and ignores the others', () => {
    assert.deepEqual(searchConditions(rs, { nico: '00', fraccion: '0101', skip: 0 }), [
      { kind: 'prefix', field: 'FRACCION', value: '0101' },
      { kind: 'eq', field: 'NICO', value: '00' },
    ]);
    assert.deepEqual(searchConditions(rs, {}), []);
  });

  test('has one index per searched column, the fraction with its NICO, the code upper-cased', () => {
    assert.deepEqual(filterIndexes(rs), [
      { name: 'fraccion', columns: ['FRACCION', 'NICO'], upperCase: false },
      { name: 'pais', columns: ['PAIS'], upperCase: true },
      { name: 'nico', columns: ['NICO'], upperCase: false },
    ]);
  });
});

test('in the registry, every column a filter searches leads an index', () => {
  for (const rs of recordSets) {
    const leading = new Set(filterIndexes(rs).map((i) => i.columns[0]));
    for (const f of rs.filters) {
      const searched = f.rule === 'fraction' ? [f.field, ...(f.dottedField ? [f.dottedField] : [])] : [f.field];
      for (const column of searched) assert.ok(leading.has(column), `${rs.path}?${f.param}: no index led by ${column}`);
    }
  }
});

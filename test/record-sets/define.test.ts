/** The registry's checks: a declaration that does not hold together fails when it is defined, and the notes a client reads. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecordSetInput } from '../../src/record-sets/define.js';
import { defineRecordSet, fields, fractionFilters, int, ownFractionFilter, str, text } from '../../src/record-sets/define.js';
import { recordSets } from '../../src/record-sets/index.js';

const base: RecordSetInput = {
  path: 'sample-set',
  schema: 'SampleSetResponse',
  description: 'A sample.',
  fields: fields({ FRACCION: str(10), PAIS: [str(3), 'country key'], NICO: str(2), NOTAS: text(), SYSID: int() }),
  filters: [...fractionFilters(), { param: 'pais', rule: 'code', field: 'PAIS' }],
};

describe('defineRecordSet', () => {
  test('fills the names that follow from the others', () => {
    const rs = defineRecordSet(base);
    assert.equal(rs.table, 'sample_set');
    assert.equal(rs.label, 'SampleSet');
    assert.deepEqual(rs.key, ['SYSID']);
    assert.equal(rs.paginated, false);
    assert.equal(rs.country, undefined);
  });

  const refused: [string, Partial<RecordSetInput>, RegExp][] = [
    ['a key that is not a field', { key: ['ID'] }, /key ID is not a field/],
    ['a filter on a missing field', { filters: [{ param: 'x', rule: 'int', field: 'X' }] }, /filter x X is not a field/],
    ['a fraction filter whose NICO is missing', { filters: [{ param: 'f', rule: 'fraction', field: 'FRACCION', nicoField: 'N' }] }, /filter f NICO N/],
    [
      'a fraction filter whose dotted copy is missing',
      { filters: [{ param: 'f', rule: 'fraction', field: 'FRACCION', nicoField: 'NICO', dottedField: 'D' }] },
      /filter f dotted D/,
    ],
    ['a fixed search on a missing field', { fixedSearches: [{ segment: 's', summary: 's', where: { TIPO: 'X' } }] }, /fixed search TIPO/],
    ['a country that is not a field', { country: 'COUNTRY' }, /country COUNTRY is not a field/],
    ['a field declared twice', { fields: [...base.fields, { name: 'NICO', type: { kind: 'int' } }] }, /duplicate field/],
    ['a parameter declared twice', { filters: [...base.filters, { param: 'pais', rule: 'int', field: 'SYSID' }] }, /duplicate filter parameter/],
  ];
  for (const [what, change, message] of refused) {
    test(`refuses ${what}`, () => {
      assert.throws(() => defineRecordSet({ ...base, ...change }), message);
    });
  }

  test('derives the notes of the key and the filters after the declaration’s own words', () => {
    const rs = defineRecordSet(base);
    const note = (name: string): string | undefined => rs.fields.find((f) => f.name === name)?.description;
    assert.equal(note('PAIS'), 'country key; searched with ?pais=');
    assert.equal(note('FRACCION'), 'searched with ?fraccion=');
    assert.equal(note('NICO'), 'searched with ?nico=');
    assert.equal(note('SYSID'), 'identifier of the record (GET /api/v1/sample-set/{sysid})');
    assert.equal(note('NOTAS'), undefined);
    const twoPart = defineRecordSet({ ...base, key: ['SYSID', 'FRACCION'] });
    assert.equal(twoPart.fields[0]?.description, 'part of the identifier of the record (GET /api/v1/sample-set/{sysid}/{fraccion}); searched with ?fraccion=');
  });

  test('finds a record set’s own fraction filter, and none where there is none', () => {
    assert.equal(ownFractionFilter(defineRecordSet(base))?.field, 'FRACCION');
    assert.equal(ownFractionFilter(defineRecordSet({ ...base, filters: [{ param: 'pais', rule: 'code', field: 'PAIS' }] })), undefined);
  });
});

describe('the registry', () => {
  test('names every record set, table and schema once', () => {
    for (const name of ['path', 'table', 'schema'] as const) {
      const names = recordSets.map((rs) => rs[name]);
      assert.equal(new Set(names).size, names.length, name);
    }
  });

  test('tells clients nothing internal in its field notes', () => {
    const internal = /\bfilter\b|part of the key|NICO-era|\bs[A-Z][A-Za-z]+\b/;
    for (const rs of recordSets) {
      for (const f of rs.fields) assert.ok(!internal.test(f.description ?? ''), `${rs.path}.${f.name}: ${f.description}`);
    }
  });
});
